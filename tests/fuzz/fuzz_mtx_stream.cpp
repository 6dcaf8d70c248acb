// libFuzzer target: the reader through InputStream, on gzip data and on streams without a
// size, reads exactly what it reads from the same text in memory.
//
// Byte 0: bits 0-1 the thread count (1..4), bits 2-3 the chunk size (1, 7, 64, 4096 bytes),
// bit 4 a pipe (no size, as standard input) instead of a memfd, bits 5-7 the mode below;
// byte 1 the mode's parameter; the rest is the text. The harness compresses with its own
// deflate (zlib's deflate; the reader decompresses with gzread) and the file is opened by
// read_mtx as /proc/self/fd/N.
// - modes 0-3, gzip at level 1, 6, 9 or 0 (stored blocks); mode 4, the text in two gzip
//   members cut where byte 1 says: the outcome must be that of parse_mtx on the text (the
//   same matrix bit for bit, or the same error on the same line);
// - mode 5, the gzip data cut short by 1 + byte 1 bytes (at most all of it): refused;
// - modes 6-7, the bytes as they are (gzip or not; the seeds hold gzip files): without the
//   gzip magic the outcome of parse_mtx; with it, refused as bad input or accepted with the
//   reader's invariants.
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_oracle.hpp"

using fuzz::finding;
using fuzz::require;

namespace {

std::string gzip(std::string_view text, int level) {
  z_stream z{};
  require(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK,
          "harness: deflateInit2");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  require(deflate(&z, Z_FINISH) == Z_STREAM_END, "harness: deflate");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// The outcomes of reading one text two ways agree: the same matrix, or the same error on the
// same line (the names differ: the path, and "fuzz").
void require_same(const fuzz::Outcome& got, const std::string& path, const fuzz::Outcome& want) {
  if (got.matrix.has_value() != want.matrix.has_value())
    finding("gzip/stream and memory disagree: '" + got.error + "' vs '" + want.error + "'");
  if (want.matrix) {
    if (!fuzz::same(*got.matrix, *want.matrix)) finding("gzip/stream read another matrix");
    return;
  }
  if (fuzz::error_line(got.error, path) != fuzz::error_line(want.error, "fuzz") ||
      fuzz::error_what(got.error, path) != fuzz::error_what(want.error, "fuzz"))
    finding("gzip/stream error '" + got.error + "' vs in memory '" + want.error + "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static constexpr std::size_t kChunks[] = {1, 7, 64, 4096};
  const int threads = 1 + (data[0] & 3);
  const std::size_t chunk = kChunks[(data[0] >> 2) & 3];
  const bool as_pipe = (data[0] >> 4) & 1;
  const int mode = data[0] >> 5;
  const unsigned param = data[1];
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  std::string bytes;
  if (mode <= 3) {
    static constexpr int kLevels[] = {1, 6, 9, 0};
    bytes = gzip(text, kLevels[mode]);
  } else if (mode == 4) {
    const std::size_t cut = text.size() * param / 255;
    bytes = gzip(text.substr(0, cut), 6) + gzip(text.substr(cut), 1);
  } else if (mode == 5) {
    bytes = gzip(text, 6);
    bytes.resize(bytes.size() - std::min<std::size_t>(bytes.size(), 1 + param));
  } else {
    bytes = text;
  }

  const fuzz::FdFile file(bytes, as_pipe);
  const fuzz::Outcome got = fuzz::outcome([&] {
    return mm::read_mtx(file.path(), mm::ReadOptions{threads, chunk});
  });
  if (!got.matrix) fuzz::error_line(got.error, file.path());  // names the file, and a line

  const bool magic = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                     static_cast<unsigned char>(bytes[1]) == 0x8b;
  if (mode == 5) {
    require(!got.matrix, "a truncated gzip stream was accepted");
  } else if (mode <= 4 || !magic) {
    require_same(got, file.path(), fuzz::parse(text, 1, std::max<std::size_t>(text.size(), 1)));
  } else if (got.matrix) {
    fuzz::check_parsed(*got.matrix);
  }
  return 0;
}
