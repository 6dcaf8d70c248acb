// Matrix Market banner and size line: parsing, validation and the header's text.
#include "mm/mtx_header.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "mm/error.hpp"

namespace mm {

std::string_view to_string(Format f) {
  return f == Format::coordinate ? "coordinate" : "array";
}

std::string_view to_string(Field f) {
  switch (f) {
    case Field::real:
      return "real";
    case Field::integer:
      return "integer";
    case Field::complex:
      return "complex";
    case Field::pattern:
      return "pattern";
  }
  return "?";
}

std::string_view to_string(Symmetry s) {
  switch (s) {
    case Symmetry::general:
      return "general";
    case Symmetry::symmetric:
      return "symmetric";
    case Symmetry::skew_symmetric:
      return "skew-symmetric";
    case Symmetry::hermitian:
      return "hermitian";
  }
  return "?";
}

std::string MtxHeader::banner() const {
  std::string s = "%%MatrixMarket matrix ";
  s += to_string(format);
  s += ' ';
  s += to_string(field);
  s += ' ';
  s += to_string(symmetry);
  return s;
}

std::int64_t array_stored_count(std::int64_t rows, std::int64_t cols, Symmetry s) {
  switch (s) {
    case Symmetry::general:
      return rows * cols;
    case Symmetry::skew_symmetric:
      return rows * (rows - 1) / 2;
    default:
      return rows * (rows + 1) / 2;
  }
}

std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> t;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t b = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > b) t.push_back(line.substr(b, i - b));
  }
  return t;
}

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

constexpr std::size_t kQuoteMax = 40;  // characters of a token or line an error message shows

std::string quoted(std::string_view s) {
  std::string r = "'";
  for (char c : s.substr(0, kQuoteMax)) r += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return r + (s.size() > kQuoteMax ? "...'" : "'");
}

}  // namespace

std::string describe_token(std::string_view tok) {
  return quoted(tok);
}

void parse_banner(std::string_view line, const std::string& file, MtxHeader& h) {
  const auto t = split_tokens(line);
  const char* expected =
      "expected the banner '%%MatrixMarket matrix coordinate|array "
      "real|double|integer|complex|pattern general|symmetric|skew-symmetric|hermitian'";
  if (t.empty() || lower(t[0]) != "%%matrixmarket") {
    throw InputError(
        file, 1, std::string(expected) + ", found " + (t.empty() ? "an empty line" : quoted(line)));
  }
  const char* names[] = {"object", "format", "field", "symmetry"};
  for (std::size_t k = 1; k <= 4; ++k) {
    if (t.size() <= k)
      throw InputError(
          file, 1, std::string("the banner is missing its ") + names[k - 1] + " word; " + expected);
  }
  if (lower(t[1]) != "matrix")
    throw InputError(file, 1,
                     "unknown object " + quoted(t[1]) + " in the banner, expected 'matrix'");
  const std::string fmt = lower(t[2]);
  if (fmt == "coordinate")
    h.format = Format::coordinate;
  else if (fmt == "array")
    h.format = Format::array;
  else
    throw InputError(
        file, 1,
        "unknown format " + quoted(t[2]) + " in the banner, expected 'coordinate' or 'array'");
  const std::string fld = lower(t[3]);
  if (fld == "real" || fld == "double")
    h.field = Field::real;
  else if (fld == "integer")
    h.field = Field::integer;
  else if (fld == "complex")
    h.field = Field::complex;
  else if (fld == "pattern")
    h.field = Field::pattern;
  else
    throw InputError(
        file, 1,
        "unknown field " + quoted(t[3]) +
            " in the banner, expected 'real', 'double', 'integer', 'complex' or 'pattern'");
  const std::string sym = lower(t[4]);
  if (sym == "general")
    h.symmetry = Symmetry::general;
  else if (sym == "symmetric")
    h.symmetry = Symmetry::symmetric;
  else if (sym == "skew-symmetric")
    h.symmetry = Symmetry::skew_symmetric;
  else if (sym == "hermitian")
    h.symmetry = Symmetry::hermitian;
  else
    throw InputError(
        file, 1,
        "unknown symmetry " + quoted(t[4]) +
            " in the banner, expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian'");
  if (t.size() > 5)
    throw InputError(file, 1,
                     "unexpected " + quoted(t[5]) + " after the symmetry word in the banner");
  if (h.format == Format::array && h.field == Field::pattern)
    throw InputError(
        file, 1, "'array' with 'pattern' is not a valid combination: an array file stores values");
  if (h.symmetry == Symmetry::hermitian && h.field != Field::complex)
    throw InputError(
        file, 1,
        "'hermitian' needs the 'complex' field, found '" + std::string(to_string(h.field)) + "'");
}

bool banner_start_refused(std::string_view bytes) {
  // More than quoted() shows, so the message ends in "..." as it would for the whole line.
  if (bytes.size() <= kQuoteMax) return false;
  constexpr std::string_view kWord = "%%matrixmarket";
  std::size_t i = 0;
  while (i < bytes.size() && is_blank(bytes[i])) ++i;
  for (std::size_t k = 0; i + k < bytes.size(); ++k) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(bytes[i + k])));
    if (k == kWord.size()) return !is_blank(c);  // "%%MatrixMarketX" is another word
    if (c != kWord[k]) return true;
  }
  return false;  // blanks, or a prefix of the word: the rest decides
}

bool parse_int64(std::string_view tok, std::int64_t& out) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+') {
    ++b;
    if (b != e && *b == '-') return false;  // "+-5" is not a number
  }
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e && b != e;
}

void parse_size_line(std::string_view line, std::int64_t line_no, const std::string& file,
                     MtxHeader& h) {
  const auto t = split_tokens(line);
  const bool coo = h.format == Format::coordinate;
  const std::size_t want = coo ? 3 : 2;
  const char* what = coo ? "'rows cols nnz'" : "'rows cols'";
  if (t.size() != want) {
    throw InputError(file, line_no,
                     std::string("expected the size line ") + what + " (" + std::to_string(want) +
                         " integers), found " + std::to_string(t.size()) +
                         (t.size() == 1 ? " token" : " tokens"));
  }
  std::int64_t v[3] = {0, 0, 0};
  const char* names[] = {"rows", "cols", "nnz"};
  for (std::size_t k = 0; k < want; ++k) {
    if (!parse_int64(t[k], v[k]))
      throw InputError(file, line_no,
                       std::string("expected an integer for ") + names[k] +
                           " on the size line, found " + quoted(t[k]));
    if (v[k] < 0 || t[k][0] == '-')  // "-0" too: a size is never signed negative
      throw InputError(file, line_no,
                       std::string(names[k]) + " must not be negative, found " + std::string(t[k]));
  }
  h.rows = v[0];
  h.cols = v[1];
  if (h.symmetry != Symmetry::general && h.rows != h.cols) {
    throw InputError(file, line_no,
                     "a " + std::string(to_string(h.symmetry)) + " matrix must be square, found " +
                         std::to_string(h.rows) + " x " + std::to_string(h.cols));
  }
  if (coo) {
    h.nnz = v[2];
  } else {
    constexpr std::int64_t kMax = std::int64_t{1} << 62;
    if (h.rows != 0 && h.cols > kMax / h.rows)
      throw InputError(file, line_no,
                       "array of " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                           " values is too large");
    h.nnz = array_stored_count(h.rows, h.cols, h.symmetry);
  }
}

}  // namespace mm
