// libFuzzer target: the header alone (banner, comments, size line) against a reference parser
// written apart from the reader, and read_mtx_header against the whole reader.
//
// Byte 0: bit 0 hands the file to read_mtx_header as a pipe (no size) instead of a memfd;
// the rest is the file (gzip data, by its magic bytes, only has to be refused or read without
// a crash). A finding is any of:
// - read_mtx_header and the reference disagree: accepted or refused, the line an error
//   names, or the header read (format, field, symmetry, rows, cols, nnz, comments);
// - parse_mtx on the whole text refuses the header otherwise (another message), or reads
//   another header; where the header is good, an error of parse_mtx names a body line;
// - the header written by mm::write_mtx_header and read back differs (a comment keeps all
//   but a last '\r', which the reader takes as a CRLF line end).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_oracle.hpp"
#include "mm/io.hpp"

using fuzz::finding;
using fuzz::require;

namespace {

struct Reference {
  std::optional<mm::MtxHeader> header;
  long long line = 0;       // the line an error names
  long long size_line = 0;  // of an accepted header
};

bool parse_size(std::string_view t, std::int64_t& v) {
  if (!fuzz::is_index(t)) return false;  // '+' allowed, no '-': a size is never negative
  if (t[0] == '+') t.remove_prefix(1);
  v = 0;
  for (char c : t) {
    if (v > (INT64_MAX - (c - '0')) / 10) return false;
    v = v * 10 + (c - '0');
  }
  return true;
}

// The header as the Matrix Market format defines it (words case-insensitive; "double" is
// real; array pattern and hermitian non-complex refused; a symmetric kind square; an array of
// at most 2^62 values).
Reference reference(std::string_view text) {
  Reference r;
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  r.line = 1;
  if (lines.empty()) return r;
  const auto b = fuzz::tokens(lines[0]);
  if (b.size() != 5 || fuzz::ascii_lower(b[0]) != "%%matrixmarket" ||
      fuzz::ascii_lower(b[1]) != "matrix")
    return r;
  mm::MtxHeader h;
  const std::string fmt = fuzz::ascii_lower(b[2]), fld = fuzz::ascii_lower(b[3]),
                    sym = fuzz::ascii_lower(b[4]);
  if (fmt == "coordinate")
    h.format = mm::Format::coordinate;
  else if (fmt == "array")
    h.format = mm::Format::array;
  else
    return r;
  if (fld == "real" || fld == "double")
    h.field = mm::Field::real;
  else if (fld == "integer")
    h.field = mm::Field::integer;
  else if (fld == "complex")
    h.field = mm::Field::complex;
  else if (fld == "pattern" && h.format == mm::Format::coordinate)
    h.field = mm::Field::pattern;
  else
    return r;
  if (sym == "general")
    h.symmetry = mm::Symmetry::general;
  else if (sym == "symmetric")
    h.symmetry = mm::Symmetry::symmetric;
  else if (sym == "skew-symmetric")
    h.symmetry = mm::Symmetry::skew_symmetric;
  else if (sym == "hermitian" && h.field == mm::Field::complex)
    h.symmetry = mm::Symmetry::hermitian;
  else
    return r;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto tok = fuzz::tokens(lines[i]);
    if (tok.empty()) continue;
    if (tok[0][0] == '%') {
      std::string_view c = lines[i].substr(lines[i].find('%') + 1);
      if (!c.empty() && c.back() == '\r') c.remove_suffix(1);
      h.comments.emplace_back(c);
      continue;
    }
    r.line = static_cast<long long>(i + 1);
    const bool coo = h.format == mm::Format::coordinate;
    std::int64_t v[3] = {0, 0, 0};
    if (tok.size() != (coo ? 3u : 2u)) return r;
    for (std::size_t k = 0; k < tok.size(); ++k)
      if (!parse_size(tok[k], v[k])) return r;
    if (h.symmetry != mm::Symmetry::general && v[0] != v[1]) return r;
    if (!coo && v[0] != 0 && v[1] > (std::int64_t{1} << 62) / v[0]) return r;
    h.rows = v[0];
    h.cols = v[1];
    h.nnz = coo ? v[2] : mm::array_stored_count(v[0], v[1], h.symmetry);
    r.header = h;
    r.size_line = r.line;
    return r;
  }
  r.line = static_cast<long long>(lines.size()) + 1;  // no size line
  return r;
}

bool same_header(const mm::MtxHeader& a, const mm::MtxHeader& b) {
  return a.format == b.format && a.field == b.field && a.symmetry == b.symmetry &&
         a.rows == b.rows && a.cols == b.cols && a.nnz == b.nnz && a.comments == b.comments;
}

std::optional<mm::MtxHeader> read_header(const std::string& path, std::string& error) {
  try {
    return mm::read_mtx_header(path);
  } catch (const mm::Error& e) {
    require(e.code() == mm::ExitCode::bad_input, "error with an exit code other than bad_input");
    error = e.what();
  }
  return std::nullopt;
}

// mm::write_mtx_header's text read back: the same header, but for a comment's last '\r'.
void check_round_trip(const mm::MtxHeader& h) {
  const std::string path = fuzz::scratch_dir() + "/header.mtx";
  {
    mm::OutputStream out(path);
    mm::write_mtx_header(out, h);
    out.commit();
  }
  mm::MtxHeader want = h;
  for (auto& c : want.comments)
    if (!c.empty() && c.back() == '\r') c.pop_back();
  std::string error;
  const auto got = read_header(path, error);
  if (!got) finding("the header written is refused: " + error);
  require(same_header(*got, want), "the header written reads back as another");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool as_pipe = data[0] & 1;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const fuzz::FdFile file(text, as_pipe);
  std::string error;
  const std::optional<mm::MtxHeader> h = read_header(file.path(), error);
  // gzip data (by its magic bytes) is decompressed first: fuzz_mtx_stream's subject.
  if (text.size() >= 2 && text[0] == '\x1f' && text[1] == '\x8b') return 0;
  const Reference ref = reference(text);
  const fuzz::Outcome whole = fuzz::parse(text, 1, std::max<std::size_t>(text.size(), 1));

  if (!h) {
    const long long line = fuzz::error_line(error, file.path());
    if (ref.header) finding("refused a header the reference reads: " + error);
    if (line != ref.line)
      finding("error '" + error + "', the reference's on line " + std::to_string(ref.line));
    if (whole.matrix || fuzz::error_line(whole.error, "fuzz") != line ||
        fuzz::error_what(whole.error, "fuzz") != fuzz::error_what(error, file.path()))
      finding("read_mtx_header refused with '" + error + "', parse_mtx: '" + whole.error + "'");
    fuzz::check_error(whole.error, text);
    return 0;
  }
  if (!ref.header)
    finding("accepted a header the reference refuses on line " + std::to_string(ref.line));
  require(same_header(*h, *ref.header), "another header than the reference's");
  if (whole.matrix)
    require(same_header(whole.matrix->header, *h), "parse_mtx read another header");
  else
    require(fuzz::error_line(whole.error, "fuzz") > ref.size_line,
            "parse_mtx refused a good header");
  check_round_trip(*h);
  return 0;
}
