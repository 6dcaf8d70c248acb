// libFuzzer target: the Matrix Market reader on a file in memory refuses bad input with
// mm::Error, never crashes, and reads the same for every thread count and chunk size.
//
// The first byte picks the thread count (1..4) and the chunk size; the rest is the file.
// Every input is parsed twice, with the chosen options and with one thread and one
// chunk: both must agree (same matrix, or the same error message). A parsed matrix must
// satisfy the reader's invariants, and so must its symmetry expansion when it is small.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_oracle.hpp"

using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr std::size_t kChunks[] = {1, 2, 3, 7, 16, 64, 4096, std::size_t{1} << 20};
  const int threads = 1 + (data[0] & 3);
  const std::size_t chunk = kChunks[(data[0] >> 2) & 7];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const fuzz::Outcome a = fuzz::parse(text, threads, chunk);
  // One thread, one chunk (inputs are short: -max_len). A bigger chunk costs a zero-filled
  // read window of chunk*threads*4 bytes on every run.
  const fuzz::Outcome b = fuzz::parse(text, 1, std::max<std::size_t>(text.size(), 1));
  if (a.matrix.has_value() != b.matrix.has_value())
    finding("accepted with one set of options, refused with the other: '" + a.error + b.error +
            "'");
  if (!a.matrix) {
    if (a.error != b.error)
      finding("error depends on threads/chunk: '" + a.error + "' vs '" + b.error + "'");
    fuzz::check_error(a.error, text);
    return 0;
  }
  if (!fuzz::same(*a.matrix, *b.matrix)) finding("matrix depends on threads/chunk");
  fuzz::check_parsed(*a.matrix);
  fuzz::check_grammar(text, a.matrix->header);
  return 0;
}
