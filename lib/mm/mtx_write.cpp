// Matrix Market writer: entries formatted in parallel blocks, written in order, values
// in shortest round-trip form so that reading the output back is bit-exact.
#include <omp.h>

#include <charconv>
#include <string>

#include "mm/io.hpp"
#include "mm/mtx.hpp"

namespace mm {

namespace {

constexpr std::int64_t kBlockEntries = 1 << 15;

inline char* put_int(char* p, std::int64_t v) {
  return std::to_chars(p, p + 24, v).ptr;
}
inline char* put_real(char* p, double v) {
  return std::to_chars(p, p + 32, v).ptr;
}

// Formats entries [b, e) of M into OUT (replacing its contents).
void format_block(const MtxMatrix& m, std::int64_t b, std::int64_t e, std::string& out) {
  const MtxHeader& h = m.header;
  const bool coo = h.format == Format::coordinate;
  // Widest line: two indices (20 digits each), two doubles (<= 24 each), blanks, newline.
  out.resize(static_cast<std::size_t>(e - b) * 96);
  char* p = out.data();
  for (std::int64_t k = b; k < e; ++k) {
    if (coo) {
      p = put_int(p, m.row[k] + 1);
      *p++ = ' ';
      p = put_int(p, m.col[k] + 1);
      if (h.field != Field::pattern) *p++ = ' ';
    }
    switch (h.field) {
      case Field::pattern:
        break;
      case Field::integer:
        p = put_int(p, m.integer[k]);
        break;
      case Field::real:
        p = put_real(p, m.real[k]);
        break;
      case Field::complex:
        p = put_real(p, m.real[k]);
        *p++ = ' ';
        p = put_real(p, m.imag[k]);
        break;
    }
    *p++ = '\n';
  }
  out.resize(static_cast<std::size_t>(p - out.data()));
}

}  // namespace

void write_mtx_header(OutputStream& out, const MtxHeader& h) {
  std::string head = h.banner() + "\n";
  for (const auto& c : h.comments) {
    head += '%';
    head += c;
    head += '\n';
  }
  char size_line[72];
  char* p = std::to_chars(size_line, size_line + 24, h.rows).ptr;
  *p++ = ' ';
  p = std::to_chars(p, p + 24, h.cols).ptr;
  if (h.format == Format::coordinate) {
    *p++ = ' ';
    p = std::to_chars(p, p + 24, h.nnz).ptr;
  }
  *p++ = '\n';
  head.append(size_line, p);
  out.write(head);
}

void write_mtx_entries(OutputStream& out, const MtxMatrix& m, const WriteOptions& opt) {
  const MtxHeader& h = m.header;
  const int threads = opt.threads > 0 ? opt.threads : omp_get_num_procs();
  const std::int64_t n = h.nnz;
  const std::int64_t nblocks = (n + kBlockEntries - 1) / kBlockEntries;
  std::vector<std::string> bufs(static_cast<std::size_t>(threads) * 2);
  const auto group = static_cast<std::int64_t>(bufs.size());
  for (std::int64_t g = 0; g < nblocks; g += group) {
    const std::int64_t count = std::min(group, nblocks - g);
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (count > 1)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t b = (g + i) * kBlockEntries;
      format_block(m, b, std::min(n, b + kBlockEntries), bufs[static_cast<std::size_t>(i)]);
    }
    for (std::int64_t i = 0; i < count; ++i) out.write(bufs[static_cast<std::size_t>(i)]);
  }
}

void write_mtx(OutputStream& out, const MtxMatrix& m, const WriteOptions& opt) {
  write_mtx_header(out, m.header);
  write_mtx_entries(out, m, opt);
}

void write_mtx(const std::string& path, const MtxMatrix& m, const WriteOptions& opt) {
  OutputStream out(path);
  write_mtx(out, m, opt);
  out.commit();
}

}  // namespace mm
