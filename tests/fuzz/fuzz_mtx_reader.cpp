// libFuzzer target: the Matrix Market reader refuses bad input with mm::Error, never crashes.
//
// The first byte picks the thread count (1..4) and the chunk size; the rest is the file.
// Every input is parsed twice, with the chosen options and with one thread and one
// chunk: both must agree (same matrix, or the same error message). A parsed matrix must
// satisfy the reader's invariants, and so must its symmetry expansion when it is small.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mm/error.hpp"
#include "mm/mtx.hpp"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_mtx_reader finding: %s\n", what.c_str());
  std::abort();
}

void require(bool ok, const char* what) {
  if (!ok) finding(what);
}

bool same_doubles(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same(const mm::MtxMatrix& a, const mm::MtxMatrix& b) {
  return a.header.banner() == b.header.banner() && a.header.rows == b.header.rows &&
         a.header.cols == b.header.cols && a.header.nnz == b.header.nnz &&
         a.header.comments == b.header.comments && a.row == b.row && a.col == b.col &&
         same_doubles(a.real, b.real) && same_doubles(a.imag, b.imag) && a.integer == b.integer;
}

// Value arrays sized for NNZ entries of M's field; indices in range for coordinate data.
void check_matrix(const mm::MtxMatrix& m, std::int64_t nnz) {
  const auto& h = m.header;
  const auto n = static_cast<std::size_t>(nnz);
  require(h.rows >= 0 && h.cols >= 0 && nnz >= 0, "negative size");
  require(m.real.size() == (h.field == mm::Field::real || h.field == mm::Field::complex ? n : 0),
          "real size");
  require(m.imag.size() == (h.field == mm::Field::complex ? n : 0), "imag size");
  require(m.integer.size() == (h.field == mm::Field::integer ? n : 0), "integer size");
  require(!(h.format == mm::Format::array && h.field == mm::Field::pattern),
          "array pattern accepted");
  require(h.symmetry != mm::Symmetry::hermitian || h.field == mm::Field::complex,
          "hermitian non-complex");
  if (h.format == mm::Format::array) {
    require(m.row.empty() && m.col.empty(), "array with indices");
    return;
  }
  require(m.row.size() == n && m.col.size() == n, "index array size");
  for (std::size_t k = 0; k < n; ++k) {
    require(m.row[k] >= 0 && m.row[k] < h.rows, "row out of range");
    require(m.col[k] >= 0 && m.col[k] < h.cols, "col out of range");
  }
}

void check_parsed(const mm::MtxMatrix& m) {
  const auto& h = m.header;
  check_matrix(m, h.nnz);
  if (h.symmetry != mm::Symmetry::general)
    require(h.rows == h.cols, "non-square symmetric accepted");
  if (h.format == mm::Format::array) {
    require(h.nnz == mm::array_stored_count(h.rows, h.cols, h.symmetry), "array nnz");
  } else if (h.symmetry == mm::Symmetry::skew_symmetric) {
    for (std::size_t k = 0; k < m.row.size(); ++k)
      require(m.row[k] != m.col[k], "skew diagonal accepted");
  }
  // Expansion only when cheap: a dense array expands to rows*cols values.
  const bool small = h.format == mm::Format::coordinate ? h.nnz <= (1 << 16) : h.rows <= 256;
  if (!small) return;
  const mm::MtxMatrix g = mm::expand_symmetry(m);
  require(g.header.symmetry == mm::Symmetry::general, "expanded symmetry");
  const std::int64_t want = h.format == mm::Format::array ? h.rows * h.cols : g.header.nnz;
  require(g.header.nnz == want, "expanded nnz");
  check_matrix(g, g.header.nnz);
}

// An independent grammar for the tokens of an accepted file: the reader's fast path must
// not accept what the Matrix Market grammar refuses.
bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool digits(std::string_view& t) {
  std::size_t i = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  t.remove_prefix(i);
  return i > 0;
}

// MM_FUZZ_ALLOW_KNOWN=1 tolerates the known reader bugs (see README.md): "+-5" taken
// as a value, "-0" taken as a size. A run can then look past them.
const bool allow_known = std::getenv("MM_FUZZ_ALLOW_KNOWN") != nullptr;

bool sign(std::string_view& t) {
  if (allow_known && t.starts_with("+-")) t.remove_prefix(1);
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    t.remove_prefix(1);
    return true;
  }
  return false;
}

// Sizes and indices: digits, with a '+' allowed (the reader takes one on the size line).
bool is_index(std::string_view t) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (allow_known && t.size() > 1 && t[0] == '-' && t.find_first_not_of('0', 1) == t.npos)
    return true;
  return digits(t) && t.empty();
}

bool is_integer(std::string_view t) {
  sign(t);
  return digits(t) && t.empty();
}

bool is_real(std::string_view t) {
  sign(t);
  std::string low(t);
  for (char& c : low) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (low == "inf" || low == "infinity" || low.starts_with("nan")) return true;
  const bool whole = digits(t);
  bool frac = false;
  if (!t.empty() && t[0] == '.') {
    t.remove_prefix(1);
    frac = digits(t);
  }
  if (!whole && !frac) return false;
  if (!t.empty() && (t[0] == 'e' || t[0] == 'E')) {
    t.remove_prefix(1);
    sign(t);
    if (!digits(t)) return false;
  }
  return t.empty();
}

void check_grammar(std::string_view text, const mm::MtxHeader& h) {
  bool banner = true, size_line = true;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (banner) {
      banner = false;
      continue;
    }
    std::vector<std::string_view> tok;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && blank(line[i])) ++i;
      const std::size_t b = i;
      while (i < line.size() && !blank(line[i])) ++i;
      if (i > b) tok.push_back(line.substr(b, i - b));
    }
    if (tok.empty() || tok[0][0] == '%') continue;
    if (size_line) {
      for (auto t : tok) require(is_index(t), "accepted a malformed size line");
      size_line = false;
      continue;
    }
    std::size_t k = 0;
    if (h.format == mm::Format::coordinate) {
      for (; k < 2; ++k) require(k < tok.size() && is_index(tok[k]), "accepted a malformed index");
    }
    for (; k < tok.size(); ++k) {
      if (h.field == mm::Field::integer)
        require(is_integer(tok[k]), "accepted a malformed integer value");
      else
        require(is_real(tok[k]), "accepted a malformed real value");
    }
  }
}

// The line an error names must exist; an error about the end of the input names the
// line just past the last one (where the missing line was expected).
void check_error(const std::string& msg, std::string_view text) {
  static const std::string prefix = "fuzz:";
  require(msg.compare(0, prefix.size(), prefix) == 0, "error does not name the file");
  const char* p = msg.c_str() + prefix.size();
  char* end = nullptr;
  const long long line = std::strtoll(p, &end, 10);
  require(end != p && *end == ':' && line >= 1, "error does not name a line");
  long long lines = !text.empty() && text.back() != '\n';
  for (char c : text) lines += c == '\n';
  const std::string_view what =
      std::string_view(end).substr(std::min<std::size_t>(2, std::strlen(end)));
  const bool at_end = what.starts_with("unexpected end of file") || what.starts_with("empty file");
  if (at_end)
    require(line == lines + 1,
            "an end-of-file error names a line other than the one after the last");
  else
    require(line <= lines, "error names a line past the end of the file");
}

struct Outcome {
  std::optional<mm::MtxMatrix> matrix;
  std::string error;
};

Outcome parse(std::string_view text, int threads, std::size_t chunk) {
  Outcome o;
  try {
    o.matrix = mm::parse_mtx(text, "fuzz", mm::ReadOptions{threads, chunk});
  } catch (const mm::Error& e) {
    o.error = e.what();
    require(e.code() == mm::ExitCode::bad_input, "error with an exit code other than bad_input");
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr std::size_t kChunks[] = {1, 2, 3, 7, 16, 64, 4096, std::size_t{1} << 20};
  const int threads = 1 + (data[0] & 3);
  const std::size_t chunk = kChunks[(data[0] >> 2) & 7];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const Outcome a = parse(text, threads, chunk);
  // One thread, one chunk (inputs are short: -max_len=4096). A bigger chunk costs a
  // zero-filled read window of chunk*threads*4 bytes on every run.
  const Outcome b = parse(text, 1, std::max<std::size_t>(text.size(), 1));
  if (a.matrix.has_value() != b.matrix.has_value())
    finding("accepted with one set of options, refused with the other: '" + a.error + b.error +
            "'");
  if (!a.matrix) {
    if (a.error != b.error)
      finding("error depends on threads/chunk: '" + a.error + "' vs '" + b.error + "'");
    check_error(a.error, text);
    return 0;
  }
  if (!same(*a.matrix, *b.matrix)) finding("matrix depends on threads/chunk");
  check_parsed(*a.matrix);
  check_grammar(text, a.matrix->header);
  return 0;
}
