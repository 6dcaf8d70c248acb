// libFuzzer target: the reader's `array` path against a reference parser written apart from
// it, the symmetry expansion against a reference expansion, and write-then-read.
//
// The header is built from bytes 1 and 2, so every input reaches the body:
// byte 1: bits 0-1 the field (real, "double", integer, complex), bits 2-3 the symmetry
// (general, symmetric, skew-symmetric, hermitian; hermitian makes the field complex),
// bits 4-6 the rows (0..7), bit 7 a comment line; byte 2: bits 0-2 the columns of a general
// array (0..7), bit 3 CRLF line ends, bit 4 the banner in capitals, bit 5 a blank line before
// the size line. Byte 0 picks threads and chunk size as in fuzz_mtx_reader; the rest is the
// body. A finding is any difference from the reference: accepted or refused, the error's
// line and kind (too many values, too few, a malformed line; -2^63 is malformed in a
// skew-symmetric file), each value (bit for bit, or NaN of the same sign), the expanded
// array, or the matrix written and read back.
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_oracle.hpp"
#include "mm/io.hpp"

using fuzz::finding;
using fuzz::require;

namespace {

enum class Kind { none, too_many, too_few, malformed };

struct Reference {
  Kind error = Kind::none;
  long long line = 0;
  std::vector<double> re, im;
  std::vector<std::int64_t> in;
};

// The body as the Matrix Market format defines it: lines split at '\n'; a line whose first
// non-blank character is '%' is a comment, an all-blank one is skipped, any other holds one
// value (two for complex) as whole tokens.
Reference reference(std::string_view body, long long line, mm::Field field, bool skew,
                    std::int64_t nnz) {
  Reference r;
  std::int64_t k = 0;
  for (; !body.empty(); ++line) {
    const std::size_t nl = body.find('\n');
    const std::string_view text = body.substr(0, nl);
    body.remove_prefix(nl == std::string_view::npos ? body.size() : nl + 1);
    const auto tok = fuzz::tokens(text);
    if (tok.empty() || tok[0][0] == '%') continue;
    r.line = line;
    if (k >= nnz) {
      r.error = Kind::too_many;
      return r;
    }
    r.error = Kind::malformed;
    if (tok.size() != (field == mm::Field::complex ? 2u : 1u)) return r;
    for (std::string_view t : tok) {
      const std::string s(t);
      errno = 0;
      if (field == mm::Field::integer) {
        if (!fuzz::is_integer(t)) return r;
        const long long v = std::strtoll(s.c_str(), nullptr, 10);
        if (errno == ERANGE) return r;
        if (skew && v == INT64_MIN) return r;  // its mirror, -2^63 negated, has no int64
        r.in.push_back(v);
      } else {
        if (!fuzz::is_real(t)) return r;
        (r.re.size() > r.im.size() && field == mm::Field::complex ? r.im : r.re)
            .push_back(std::strtod(s.c_str(), nullptr));
      }
    }
    r.error = Kind::none;
    ++k;
  }
  if (k < nnz) {
    r.error = Kind::too_few;
    r.line = line;
  }
  return r;
}

Kind kind_of(const std::string& msg) {
  const std::string_view what = fuzz::error_what(msg, "fuzz");
  if (what.starts_with("more values than")) return Kind::too_many;
  if (what.starts_with("unexpected end of file")) return Kind::too_few;
  return Kind::malformed;
}

// The full column-major array of stored values V (n x n from a triangle, or rows x cols).
template <class T, class Mirror>
std::vector<T> reference_expand(const std::vector<T>& v, const mm::MtxHeader& h, Mirror mirror,
                                T zero) {
  if (h.symmetry == mm::Symmetry::general) return v;
  const std::int64_t n = h.rows;
  const bool skew = h.symmetry == mm::Symmetry::skew_symmetric;
  std::vector<T> a(static_cast<std::size_t>(n * n), zero);
  std::size_t k = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = skew ? j + 1 : j; i < n; ++i) {
      a[static_cast<std::size_t>(j * n + i)] = v[k];
      if (i != j) a[static_cast<std::size_t>(i * n + j)] = mirror(v[k]);
      ++k;
    }
  return a;
}

void check_expansion(const mm::MtxMatrix& m) {
  const mm::MtxHeader& h = m.header;
  const mm::MtxMatrix g = mm::expand_symmetry(m);
  const bool skew = h.symmetry == mm::Symmetry::skew_symmetric;
  const bool herm = h.symmetry == mm::Symmetry::hermitian;
  const auto same = [](double a, double b) { return fuzz::same_value(a, b); };
  if (h.field == mm::Field::integer) {
    // An integer's mirror in a skew-symmetric file is its negation (INT64_MIN is refused).
    const auto neg = [&](std::int64_t x) { return skew ? -x : x; };
    require(g.integer == reference_expand(m.integer, h, neg, std::int64_t{0}),
            "expanded integer array differs from the reference");
    return;
  }
  const auto neg_re = [&](double x) { return skew ? -x : x; };
  const auto neg_im = [&](double x) { return skew || herm ? -x : x; };
  const auto re = reference_expand(m.real, h, neg_re, 0.0);
  require(std::equal(re.begin(), re.end(), g.real.begin(), g.real.end(), same),
          "expanded real parts differ from the reference");
  if (h.field == mm::Field::complex) {
    const auto im = reference_expand(m.imag, h, neg_im, 0.0);
    require(std::equal(im.begin(), im.end(), g.imag.begin(), g.imag.end(), same),
            "expanded imaginary parts differ from the reference");
  }
}

// Written (mm::write_mtx through an OutputStream) and read back: the same header and values.
void check_round_trip(const mm::MtxMatrix& m) {
  const std::string path = fuzz::scratch_dir() + "/array.mtx";
  mm::write_mtx(path, m, mm::WriteOptions{1});
  const mm::MtxMatrix r = mm::read_mtx(path, mm::ReadOptions{1, 4096});
  require(r.header.banner() == m.header.banner() && r.header.rows == m.header.rows &&
              r.header.cols == m.header.cols && r.header.nnz == m.header.nnz &&
              r.header.comments == m.header.comments,
          "written and read back: another header");
  require(fuzz::same_values(r.real, m.real) && fuzz::same_values(r.imag, m.imag) &&
              r.integer == m.integer,
          "written and read back: other values");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  static constexpr std::size_t kChunks[] = {1, 2, 3, 7, 16, 64, 4096, std::size_t{1} << 20};
  const int threads = 1 + (data[0] & 3);
  const std::size_t chunk = kChunks[(data[0] >> 2) & 7];
  static constexpr const char* kFields[] = {"real", "double", "integer", "complex"};
  static constexpr mm::Field kField[] = {mm::Field::real, mm::Field::real, mm::Field::integer,
                                         mm::Field::complex};
  static constexpr const char* kSyms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
  int field = data[1] & 3;
  const int sym = (data[1] >> 2) & 3;
  if (sym == 3) field = 3;  // hermitian needs complex
  const int rows = (data[1] >> 4) & 7;
  const int cols = sym == 0 ? data[2] & 7 : rows;
  const std::string eol = data[2] & 8 ? "\r\n" : "\n";

  std::string head =
      std::string("%%MatrixMarket matrix array ") + kFields[field] + " " + kSyms[sym];
  if (data[2] & 16)
    for (char& c : head) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  head += eol;
  long long header_lines = 2;
  if (data[1] & 128) {
    head += "% a comment" + eol;
    ++header_lines;
  }
  if (data[2] & 32) {
    head += eol;
    ++header_lines;
  }
  head += std::to_string(rows) + " " + std::to_string(cols) + eol;
  const std::string_view body(reinterpret_cast<const char*>(data + 3), size - 3);
  const std::string text = head + std::string(body);

  const mm::Symmetry symmetry = static_cast<mm::Symmetry>(sym);
  const std::int64_t nnz = mm::array_stored_count(rows, cols, symmetry);
  const Reference ref = reference(body, header_lines + 1, kField[field],
                                  symmetry == mm::Symmetry::skew_symmetric, nnz);
  const fuzz::Outcome got = fuzz::parse(text, threads, chunk);
  const fuzz::Outcome one = fuzz::parse(text, 1, text.size());
  if (got.matrix.has_value() != one.matrix.has_value() || got.error != one.error)
    finding("depends on threads/chunk: '" + got.error + "' vs '" + one.error + "'");

  if (!got.matrix) {
    fuzz::check_error(got.error, text);
    if (ref.error == Kind::none) finding("refused what the reference reads: " + got.error);
    if (fuzz::error_line(got.error, "fuzz") != ref.line || kind_of(got.error) != ref.error)
      finding("error '" + got.error + "', the reference's on line " + std::to_string(ref.line));
    return 0;
  }
  if (ref.error != Kind::none)
    finding("accepted what the reference refuses on line " + std::to_string(ref.line));
  const mm::MtxMatrix& m = *got.matrix;
  require(fuzz::same(m, *one.matrix), "matrix depends on threads/chunk");
  require(m.header.format == mm::Format::array && m.header.field == kField[field] &&
              m.header.symmetry == symmetry && m.header.rows == rows && m.header.cols == cols,
          "another header than the one written");
  require(
      fuzz::same_values(m.real, ref.re) && fuzz::same_values(m.imag, ref.im) && m.integer == ref.in,
      "values differ from the reference");
  fuzz::check_parsed(m);
  check_expansion(m);
  check_round_trip(m);
  return 0;
}
