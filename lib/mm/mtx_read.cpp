// Matrix Market reader: header line by line, then the body in windows of whole
// lines, each window cut into chunks parsed in parallel straight into place.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/mtx.hpp"
#include "mm/mtx_header.hpp"
#include "mm/mtx_source.hpp"

namespace mm {

namespace {

using detail::HeaderReader;
using detail::kLineTooLong;
using detail::MemorySource;
using detail::Source;
using detail::StreamSource;
using detail::Window;

const char* skip_blanks(const char* p, const char* e) {
  while (p < e && is_blank(*p)) ++p;
  return p;
}

enum class LineKind { blank, comment, entry };

LineKind classify(const char* p, const char* e) {
  if (p < e && ((*p >= '0' && *p <= '9') || *p == '-')) return LineKind::entry;  // fast path
  p = skip_blanks(p, e);
  if (p == e) return LineKind::blank;
  return *p == '%' ? LineKind::comment : LineKind::entry;
}

bool parse_double(const char*& p, const char* e, double& v) {
  const char* b = p;
  if (b < e && *b == '+') {
    ++b;
    if (b < e && *b == '-') return false;  // "+-5" is not a number
  }
  auto [q, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range) {
    // Under- or overflow: keep strtod's answer (0 or +-inf) rather than refuse the file.
    std::string tok(b, q);
    v = std::strtod(tok.c_str(), nullptr);
  } else if (ec != std::errc()) {
    return false;
  }
  p = q;
  return true;
}

bool parse_index(const char*& p, const char* e, std::int64_t& v) {
  auto [q, ec] = std::from_chars(p, e, v);
  if (ec != std::errc() || q == p) return false;
  p = q;
  return true;
}

// A token must end at a blank or the end of the line.
bool token_end(const char* p, const char* e) {
  return p == e || is_blank(*p);
}

struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::int64_t lines = 0, entries = 0;  // counted in the first pass
  std::int64_t first_line = 0, first_entry = 0;
  std::int64_t error_line = 0;  // 0: no error
  std::string error;
  // Pattern entry lines that carried a value (read with a warning): how many, the first.
  std::int64_t valued = 0, valued_line = 0, valued_entry = 0;
};

class BodyParser {
 public:
  BodyParser(MtxMatrix& m, const std::string& name, int threads, std::size_t chunk_bytes,
             std::int64_t first_line, bool strict)
      : m_(m),
        h_(m.header),
        name_(name),
        threads_(threads),
        chunk_(std::max<std::size_t>(chunk_bytes, 1)),
        line_(first_line),
        valued_ok_(!strict && h_.field == Field::pattern && h_.format == Format::coordinate) {}

  void reserve(std::int64_t n) {
    each_array([k = static_cast<std::size_t>(n)](auto& v) { v.reserve(k); });
  }

  // TEXT holds whole lines only (the last one may lack its newline at the end of input).
  void process(const char* text, std::size_t len) {
    split(text, len);
    const auto nchunks = static_cast<std::int64_t>(chunks_.size());
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (nchunks > 1)
    for (std::int64_t c = 0; c < nchunks; ++c) count(chunks_[c]);
    std::int64_t line = line_, entry = count_;
    for (auto& c : chunks_) {
      c.first_line = line;
      c.first_entry = entry;
      line += c.lines;
      entry += c.entries;
    }
    const std::int64_t stored = std::min(entry, h_.nnz);
    resize(stored);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (nchunks > 1)
    for (std::int64_t c = 0; c < nchunks; ++c) parse(chunks_[c]);
    for (const auto& c : chunks_)
      if (c.error_line) throw InputError(name_, c.error_line, c.error);
    for (const auto& c : chunks_) {
      if (c.valued && valued_ == 0) {
        valued_line_ = c.valued_line;
        valued_entry_ = c.valued_entry;
      }
      valued_ += c.valued;
    }
    line_ = line;
    count_ = entry;
  }
  std::int64_t next_line() const {
    return line_;
  }

  void finish() {
    if (count_ < h_.nnz) {
      throw InputError(name_, line_,
                       "unexpected end of file: the size line declares " + std::to_string(h_.nnz) +
                           (h_.format == Format::array ? " values" : " entries") + ", found " +
                           std::to_string(count_));
    }
    if (valued_ > 0) {
      ReadWarning w;
      w.kind = "pattern_values";
      w.count = valued_;
      w.first_line = valued_line_;
      w.first_entry = valued_entry_;
      w.message = std::to_string(valued_) +
                  (valued_ == 1 ? " entry line of a pattern file carries a value"
                                : " entry lines of a pattern file carry a value") +
                  " after the indices, ignored";
      m_.read_warnings.push_back(std::move(w));
    }
  }

 private:
  void split(const char* text, std::size_t len) {
    chunks_.clear();
    const char* end = text + len;
    const char* p = text;
    while (p < end) {
      const char* q = p + std::min<std::size_t>(chunk_, static_cast<std::size_t>(end - p));
      if (q < end) {
        // Extend to just after the newline that ends the line holding byte q-1.
        const void* nl =
            q[-1] == '\n' ? q - 1 : std::memchr(q, '\n', static_cast<std::size_t>(end - q));
        q = nl ? static_cast<const char*>(nl) + 1 : end;
      }
      Chunk c;
      c.begin = p;
      c.end = q;
      chunks_.push_back(std::move(c));
      p = q;
    }
  }

  static void count(Chunk& c) {
    const char* p = c.begin;
    while (p < c.end) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(c.end - p));
      const char* le = nl ? static_cast<const char*>(nl) : c.end;
      if (classify(p, le) == LineKind::entry) ++c.entries;
      ++c.lines;
      p = nl ? le + 1 : c.end;
    }
  }

  void resize(std::int64_t n) {
    each_array([k = static_cast<std::size_t>(n)](auto& v) { v.resize(k); });
  }

  // F(v) for each array of the matrix that the header's entries fill.
  template <class F>
  void each_array(F&& f) {
    if (h_.format == Format::coordinate) {
      f(m_.row);
      f(m_.col);
    }
    if (h_.field == Field::real || h_.field == Field::complex) f(m_.real);
    if (h_.field == Field::complex) f(m_.imag);
    if (h_.field == Field::integer) f(m_.integer);
  }

  void parse(Chunk& c) const {
    std::int64_t k = c.first_entry, line = c.first_line;
    for (const char* p = c.begin; p < c.end; ++line) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(c.end - p));
      const char* le = nl ? static_cast<const char*>(nl) : c.end;
      // Refused wherever it falls, so the answer is the same for every window and chunk size.
      if (static_cast<std::size_t>(le - p) > kMaxLineBytes) {
        c.error_line = line;
        c.error = kLineTooLong;
        return;
      }
      if (classify(p, le) == LineKind::entry) {
        if (k >= h_.nnz) {
          c.error_line = line;
          c.error = "more " + std::string(h_.format == Format::array ? "values" : "entries") +
                    " than the " + std::to_string(h_.nnz) + " the size line declares";
          return;
        }
        if (!parse_entry(p, le, k) && !entry_off_fast_path(c, p, le, k, line)) return;
        ++k;
      }
      p = nl ? le + 1 : c.end;
    }
  }

  bool parse_value(const char*& p, const char* e, std::int64_t k) const {
    switch (h_.field) {
      case Field::pattern:
        return true;
      case Field::integer: {
        if (p < e && *p == '+' && (++p == e || *p == '-')) return false;  // "+-5"
        std::int64_t v = 0;
        if (!parse_index(p, e, v) || !token_end(p, e)) return false;
        // A skew-symmetric file stores A(i,j) for -A(j,i): -2^63 has no 64-bit mirror.
        if (v == INT64_MIN && h_.symmetry == Symmetry::skew_symmetric) return false;
        m_.integer[k] = v;
        return true;
      }
      case Field::real: {
        double v = 0;
        if (!parse_double(p, e, v) || !token_end(p, e)) return false;
        m_.real[k] = v;
        return true;
      }
      case Field::complex: {
        double re = 0, im = 0;
        if (!parse_double(p, e, re) || p == e || !is_blank(*p)) return false;
        p = skip_blanks(p, e);
        if (!parse_double(p, e, im) || !token_end(p, e)) return false;
        m_.real[k] = re;
        m_.imag[k] = im;
        return true;
      }
    }
    return false;
  }

  // A coordinate entry's row and column at P (moved past them): in range, off the diagonal of a
  // skew-symmetric matrix, stored at K (0-based).
  [[gnu::always_inline]] bool parse_position(const char*& p, const char* e, std::int64_t k) const {
    std::int64_t r = 0, c = 0;
    if (!parse_index(p, e, r) || p == e || !is_blank(*p)) return false;
    p = skip_blanks(p, e);
    if (!parse_index(p, e, c) || !token_end(p, e)) return false;
    if (r < 1 || r > h_.rows || c < 1 || c > h_.cols) return false;
    if (r == c && h_.symmetry == Symmetry::skew_symmetric) return false;
    m_.row[k] = r - 1;
    m_.col[k] = c - 1;
    return true;
  }

  // Fast path: true when the line is a well-formed entry, stored at K.
  bool parse_entry(const char* p, const char* e, std::int64_t k) const {
    p = skip_blanks(p, e);
    if (h_.format == Format::coordinate) {
      if (!parse_position(p, e, k)) return false;
      if (h_.field != Field::pattern) {
        if (p == e) return false;
        p = skip_blanks(p, e);
      }
    }
    if (!parse_value(p, e, k)) return false;
    return skip_blanks(p, e) == e;
  }

  // A line the fast path refused: a pattern entry with a value, read and counted in C (true),
  // or the error stored in C (false). Out of line, so parse()'s loop stays as it was.
  [[gnu::cold, gnu::noinline]] bool entry_off_fast_path(Chunk& c, const char* p, const char* le,
                                                        std::int64_t k, std::int64_t line) const {
    if (valued_ok_ && parse_valued_pattern_entry(p, le, k)) {
      if (c.valued++ == 0) {
        c.valued_line = line;
        c.valued_entry = k;
      }
      return true;
    }
    c.error_line = line;
    c.error = diagnose(std::string_view(p, static_cast<std::size_t>(le - p)));
    return false;
  }

  // A pattern entry line with one or two numbers after its indices, as SuiteSparse's readers,
  // SciPy and fast_matrix_market read it: the indices stored at K, the numbers dropped. Two
  // numbers are a complex value (a complex file relabelled pattern); three or more, or a
  // token that is not a number, are no value of any field: refused, where those peers skip
  // whatever follows the indices unread.
  bool parse_valued_pattern_entry(const char* p, const char* e, std::int64_t k) const {
    p = skip_blanks(p, e);
    if (!parse_position(p, e, k)) return false;
    int values = 0;
    for (p = skip_blanks(p, e); p < e; p = skip_blanks(p, e)) {
      double v = 0;
      if (++values > 2 || !parse_double(p, e, v) || !token_end(p, e)) return false;
    }
    return values > 0;
  }

  // Slow path: what exactly is wrong with LINE.
  std::string diagnose(std::string_view line) const {
    const auto t = split_tokens(line);
    const bool coo = h_.format == Format::coordinate;
    std::string names = coo ? "row col" : "";
    if (h_.field == Field::complex)
      names += coo ? " real imag" : "real imag";
    else if (h_.field != Field::pattern)
      names += coo ? " value" : "value";
    const std::size_t want = (coo ? 2 : 0) + static_cast<std::size_t>(h_.values_per_entry());
    // A pattern line may carry a value that is ignored (one number, or two for a complex one).
    const bool valued = valued_ok_ && (t.size() == 3 || t.size() == 4);
    if (t.size() != want && !valued) {
      const bool strict = h_.field == Field::pattern && coo && !valued_ok_;
      return "expected " + std::to_string(want) + (want == 1 ? " token" : " tokens") + " (" +
             names + ") on an entry line" +
             (valued_ok_ && t.size() > want ? ", or 3 or 4 with a value that is ignored" : "") +
             ", found " + std::to_string(t.size()) +
             (strict && (t.size() == 3 || t.size() == 4)
                  ? " (strict reading: a pattern file stores no values)"
                  : "");
    }
    std::size_t v0 = 0;
    if (coo) {
      const std::int64_t lim[2] = {h_.rows, h_.cols};
      const char* what[2] = {"row", "column"};
      std::int64_t idx[2] = {0, 0};
      for (int i = 0; i < 2; ++i) {
        if (!parse_int64(t[i], idx[i]) || t[i][0] == '+')
          return std::string("expected an integer ") + what[i] + " index, found " +
                 describe_token(t[i]);
        if (idx[i] < 1 || idx[i] > lim[i])
          return std::string(what[i]) + " index " + std::to_string(idx[i]) + " out of range 1.." +
                 std::to_string(lim[i]);
      }
      if (idx[0] == idx[1] && h_.symmetry == Symmetry::skew_symmetric)
        return "diagonal entry (" + std::to_string(idx[0]) + "," + std::to_string(idx[1]) +
               ") in a skew-symmetric file: its diagonal is zero and must not be stored";
      v0 = 2;
    }
    for (std::size_t i = v0; i < t.size(); ++i) {
      const char* p = t[i].data();
      const char* e = p + t[i].size();
      if (h_.field == Field::integer) {
        std::int64_t v = 0;
        if (!parse_int64(t[i], v))
          return "expected an integer value (integer field), found " + describe_token(t[i]);
        if (v == INT64_MIN && h_.symmetry == Symmetry::skew_symmetric)
          return "value " + std::string(t[i]) +
                 " in a skew-symmetric file: its mirror, the negation, does not fit in 64 bits";
      } else {
        double v = 0;
        if (!parse_double(p, e, v) || p != e)
          return std::string(valued ? "expected a number (a value, ignored in a pattern file)"
                                    : "expected a number") +
                 ", found " + describe_token(t[i]);
      }
    }
    return "malformed entry line";
  }

  MtxMatrix& m_;
  const MtxHeader& h_;
  const std::string& name_;
  int threads_;
  std::size_t chunk_;
  std::int64_t line_;       // number of the next line to process
  std::int64_t count_ = 0;  // entries seen so far
  std::vector<Chunk> chunks_;
  bool valued_ok_;  // a coordinate pattern file read leniently: a value on a line is dropped
  std::int64_t valued_ = 0, valued_line_ = 0, valued_entry_ = 0;
};

static_assert(kMaxHeaderCommentBytes == std::size_t{64} << 20, "the message below names it");

MtxHeader parse_header(HeaderReader& r, const std::string& name) {
  MtxHeader h;
  std::string_view line;
  if (!r.next_line(line, banner_start_refused))
    throw InputError(name, 1, "empty file: expected the banner '%%MatrixMarket matrix ...'");
  parse_banner(line, name, h);
  std::size_t comment_bytes = 0;
  for (;;) {
    if (!r.next_line(line))
      throw InputError(name, r.line_no() + 1, "unexpected end of file: expected the size line");
    const char* p = skip_blanks(line.data(), line.data() + line.size());
    const char* e = line.data() + line.size();
    if (p < e && *p == '%') {
      std::string_view c(p + 1, static_cast<std::size_t>(e - p - 1));
      if (!c.empty() && c.back() == '\r') c.remove_suffix(1);
      // Kept in memory (the tools write them back): bounded, as lines are, whatever the input.
      comment_bytes += c.size();
      if (h.comments.size() == kMaxHeaderCommentLines)
        throw InputError(name, r.line_no(),
                         "more than " + std::to_string(kMaxHeaderCommentLines) +
                             " comment lines before the size line");
      if (comment_bytes > kMaxHeaderCommentBytes)
        throw InputError(name, r.line_no(), "more than 64 MiB of comments before the size line");
      h.comments.emplace_back(c);
      continue;
    }
    if (p == e) continue;  // blank line before the size line
    parse_size_line(line, r.line_no(), name, h);
    return h;
  }
}

MtxMatrix read_from(Source& src, const std::string& name, long long size_hint,
                    const ReadOptions& opt) {
  HeaderReader hr(src, name);
  MtxMatrix m;
  m.header = parse_header(hr, name);
  if (opt.on_header) opt.on_header(m.header, size_hint);
  const MtxHeader& h = m.header;
  int threads = opt.threads > 0 ? opt.threads : omp_get_num_procs();
  BodyParser body(m, name, threads, opt.chunk_bytes, hr.line_no() + 1, opt.strict);

  // Reserve what the file can hold at most, so a lying size line costs nothing.
  const long long min_line = (h.format == Format::coordinate ? 4 : 0) + 2LL * h.values_per_entry();
  const std::int64_t cap = size_hint >= 0 ? size_hint / std::max(min_line, 2LL) + 1 : (1LL << 24);
  body.reserve(std::min<std::int64_t>(h.nnz, cap));

  bool eof = false;
  Window w = hr.take_rest(eof);
  std::size_t target =
      std::clamp<std::size_t>(opt.chunk_bytes * static_cast<std::size_t>(threads) * 4,
                              std::size_t{1} << 16, std::size_t{64} << 20);
  if (size_hint >= 0)
    target = std::min(target, static_cast<std::size_t>(size_hint) + 1);  // small files
  w.reserve(target);
  for (;;) {
    if (!eof) eof = !w.fill(src);
    if (w.size == 0) break;
    std::size_t end = w.size;
    if (!eof) {
      const char* d = w.data.get();
      std::size_t nl = w.size;
      while (nl > 0 && d[nl - 1] != '\n') --nl;
      if (nl == 0) {  // one line longer than the window
        if (w.size > kMaxLineBytes) throw InputError(name, body.next_line(), kLineTooLong);
        w.reserve(w.cap * 2);
        continue;
      }
      end = nl;
    }
    body.process(w.data.get(), end);
    w.drop_front(end);
    if (eof && w.size == 0) break;
  }
  body.finish();
  return m;
}

}  // namespace

MtxMatrix read_mtx(const std::string& path, const ReadOptions& opt) {
  InputStream in(path);
  StreamSource src(in);
  return read_from(src, in.name(), in.size_hint(), opt);
}

MtxMatrix parse_mtx(std::string_view text, const std::string& name, const ReadOptions& opt) {
  MemorySource src(text);
  return read_from(src, name, static_cast<long long>(text.size()), opt);
}

MtxHeader read_mtx_header(const std::string& path) {
  InputStream in(path);
  StreamSource src(in);
  HeaderReader hr(src, in.name());
  return parse_header(hr, in.name());
}

}  // namespace mm
