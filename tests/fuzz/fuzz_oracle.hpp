// The fuzz targets' shared oracle: invariants of an accepted matrix, the Matrix Market token
// grammar, the shape of an error message, and the ways a target hands bytes to the reader.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mm/error.hpp"
#include "mm/mtx.hpp"

namespace fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

inline void require(bool ok, const char* what) {
  if (!ok) finding(what);
}

inline bool same_doubles(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Bit for bit: two reads of one input by the same reader.
inline bool same(const mm::MtxMatrix& a, const mm::MtxMatrix& b) {
  return a.header.banner() == b.header.banner() && a.header.rows == b.header.rows &&
         a.header.cols == b.header.cols && a.header.nnz == b.header.nnz &&
         a.header.comments == b.header.comments && a.row == b.row && a.col == b.col &&
         same_doubles(a.real, b.real) && same_doubles(a.imag, b.imag) && a.integer == b.integer;
}

// One value as an independent parse or a write-then-read gives it: equal, or both NaN of
// one sign (a NaN's payload is not kept by the writer's "nan").
inline bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

inline bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same_value(a[k], b[k])) return false;
  return true;
}

// Value arrays sized for NNZ entries of M's field; indices in range for coordinate data.
inline void check_matrix(const mm::MtxMatrix& m, std::int64_t nnz) {
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

// The reader's invariants of an accepted matrix, and of its symmetry expansion when small.
inline void check_parsed(const mm::MtxMatrix& m) {
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

// ---- The Matrix Market grammar of a token, written apart from the reader: the reader's fast
// path must not accept what it refuses, and must accept what it accepts.

inline bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> tok;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && blank(line[i])) ++i;
    const std::size_t b = i;
    while (i < line.size() && !blank(line[i])) ++i;
    if (i > b) tok.push_back(line.substr(b, i - b));
  }
  return tok;
}

inline bool digits(std::string_view& t) {
  std::size_t i = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  t.remove_prefix(i);
  return i > 0;
}

inline bool sign(std::string_view& t) {
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    t.remove_prefix(1);
    return true;
  }
  return false;
}

// Sizes and indices: digits, with a '+' allowed (the reader takes one on the size line).
inline bool is_index(std::string_view t) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  return digits(t) && t.empty();
}

inline bool is_integer(std::string_view t) {
  sign(t);
  return digits(t) && t.empty();
}

inline std::string ascii_lower(std::string_view t) {
  std::string low(t);
  for (char& c : low) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return low;
}

// A real: C's decimal floating-point syntax, inf, infinity, nan or nan(n-char-sequence).
inline bool is_real(std::string_view t) {
  sign(t);
  const std::string low = ascii_lower(t);
  if (low == "inf" || low == "infinity" || low == "nan") return true;
  if (low.starts_with("nan(") && low.ends_with(")")) {
    for (char c : std::string_view(low).substr(4, low.size() - 5))
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
  }
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

// The tokens of an accepted file (TEXT) fit the grammar of its header H.
inline void check_grammar(std::string_view text, const mm::MtxHeader& h) {
  bool banner = true, size_line = true;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (banner) {
      banner = false;
      continue;
    }
    const auto tok = tokens(line);
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

// Lines of TEXT as the reader counts them: one a '\n', and a last one without it.
inline long long count_lines(std::string_view text) {
  long long lines = !text.empty() && text.back() != '\n';
  for (char c : text) lines += c == '\n';
  return lines;
}

// The line an error from reading a file called NAME names ("NAME:LINE: what"); 0 when it
// names none ("NAME: what", a read error). Anything else is a finding.
inline long long error_line(const std::string& msg, const std::string& name) {
  require(
      msg.compare(0, name.size(), name) == 0 && msg.size() > name.size() && msg[name.size()] == ':',
      "error does not name the file");
  const char* p = msg.c_str() + name.size() + 1;
  if (*p == ' ') return 0;
  char* end = nullptr;
  const long long line = std::strtoll(p, &end, 10);
  require(end != p && *end == ':' && line >= 1, "error does not name a line");
  return line;
}

// What follows "NAME:LINE: " (or "NAME: ").
inline std::string_view error_what(const std::string& msg, const std::string& name) {
  std::string_view s(msg);
  s.remove_prefix(std::min(s.size(), name.size() + 1));
  if (!s.empty() && s[0] != ' ') s.remove_prefix(std::min(s.size(), s.find(':') + 1));
  if (!s.empty() && s[0] == ' ') s.remove_prefix(1);
  return s;
}

// The line an error names must exist; an error about the end of the input names the
// line just past the last one (where the missing line was expected).
inline void check_error(const std::string& msg, std::string_view text,
                        const std::string& name = "fuzz") {
  const long long line = error_line(msg, name);
  require(line >= 1, "a parse error names no line");
  const long long lines = count_lines(text);
  const std::string_view what = error_what(msg, name);
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

// Runs READ (a call of the reader), catching its mm::Error, which must be bad input.
template <class F>
Outcome outcome(F&& read) {
  Outcome o;
  try {
    o.matrix = read();
  } catch (const mm::Error& e) {
    o.error = e.what();
    require(e.code() == mm::ExitCode::bad_input, "error with an exit code other than bad_input");
  }
  return o;
}

inline Outcome parse(std::string_view text, int threads, std::size_t chunk) {
  return outcome([&] { return mm::parse_mtx(text, "fuzz", mm::ReadOptions{threads, chunk}); });
}

// Bytes the reader opens by a path: a memfd (a regular file, with a size) or a pipe (no size,
// as standard input), named /proc/self/fd/N. Closed on destruction.
class FdFile {
 public:
  FdFile(std::string_view bytes, bool as_pipe) {
    if (as_pipe && bytes.size() <= 65536) {  // the pipe's buffer holds it all: no writer thread
      int p[2];
      require(pipe(p) == 0, "harness: pipe failed");
      write_all(p[1], bytes);
      close(p[1]);
      fd_ = p[0];
    } else {
      fd_ = memfd_create("fuzz", MFD_CLOEXEC);
      require(fd_ >= 0, "harness: memfd_create failed");
      write_all(fd_, bytes);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~FdFile() { close(fd_); }
  FdFile(const FdFile&) = delete;
  FdFile& operator=(const FdFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  static void write_all(int fd, std::string_view b) {
    while (!b.empty()) {
      const ssize_t w = ::write(fd, b.data(), b.size());
      require(w > 0, "harness: write failed");
      b.remove_prefix(static_cast<std::size_t>(w));
    }
  }
  int fd_ = -1;
  std::string path_;
};

// A scratch folder of this process for files the targets write, in TMPDIR (removed at a
// normal exit; run.sh empties its TMPDIR of those that fork jobs leave).
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/mmfuzz.XXXXXX";
    require(mkdtemp(t.data()) != nullptr, "harness: mkdtemp failed");
    static std::string keep = t;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return t;
  }();
  return dir;
}

}  // namespace fuzz
