// The parallel read's pieces: positioned reads, the body's place, one rank's whole lines, and
// their parse by the existing reader with the file's line numbers restored.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "dist/read_detail.hpp"
#include "mm/error.hpp"
#include "mm/mtx_header.hpp"

namespace mm::dist::detail {

namespace {

// A rank reads past its range to finish its last line; a line longer than this is refused
// (the reader refuses far shorter ones) rather than read whole into one rank's memory.
constexpr std::size_t kMaxTail = std::size_t{16} << 20;
constexpr std::size_t kBlock = std::size_t{1} << 16;

// As the reader classifies a body line (mtx_read.cpp): blank, comment or entry.
bool is_entry_line(const char* p, const char* e) {
  while (p < e && is_blank(*p)) ++p;
  return p < e && *p != '%';
}

}  // namespace

File::File(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      close(fd_);
      fd_ = -1;
      throw InputError(path, 0, "is a directory, expected a Matrix Market file");
    }
    regular_ = S_ISREG(st.st_mode);
    if (regular_) size_ = static_cast<std::int64_t>(st.st_size);
  }
}

File::~File() {
  if (fd_ >= 0) close(fd_);
}

bool File::gzip() {
  unsigned char m[2] = {0, 0};
  return read_at(reinterpret_cast<char*>(m), 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

std::size_t File::read_at(char* buf, std::size_t n, std::int64_t offset) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got =
        pread(fd_, buf + done, n - done, static_cast<off_t>(offset) + static_cast<off_t>(done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(path_, 0, std::string("read error: ") + std::strerror(errno));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::pair<std::int64_t, std::int64_t> find_body(File& f) {
  std::string buf;  // the file from its first byte: offsets in BUF are the file's
  std::size_t at = 0;
  std::int64_t line = 0;
  bool eof = false;
  for (;;) {
    const std::size_t nl = buf.find('\n', at);
    if (nl == std::string::npos && !eof) {
      if (buf.size() - at > kMaxTail) throw InputError(f.path(), line + 1, "header line too long");
      const std::size_t old = buf.size();
      buf.resize(old + kBlock);
      const std::size_t got = f.read_at(buf.data() + old, kBlock, static_cast<std::int64_t>(old));
      buf.resize(old + got);
      eof = got == 0;
      continue;
    }
    const std::size_t end = nl == std::string::npos ? buf.size() : nl;
    if (at == end && nl == std::string::npos) break;  // the end of the file
    ++line;
    // Line 1 is the banner; then the first line neither blank nor a comment is the size line.
    if (line > 1 && is_entry_line(buf.data() + at, buf.data() + end))
      return {static_cast<std::int64_t>(nl == std::string::npos ? end : nl + 1), line + 1};
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  throw InputError(f.path(), line + 1, "unexpected end of file: expected the size line");
}

std::string part_header(const MtxHeader& h) {
  // Room for the banner and the longest size line this file's part can need.
  return h.banner() + "\n" + std::to_string(h.rows) + " " + std::to_string(h.cols) + " " +
         std::string(20, '9') + "\n";
}

Range read_lines(const std::string& path, std::int64_t b, std::int64_t e, std::int64_t body_begin,
                 std::int64_t size, std::size_t room) {
  File f(path);
  Range r;
  r.room = room;
  r.begin = r.end = b;
  if (f.size() != size)
    throw InputError(
        path, 0,
        "changed while being read (its size is no longer " + std::to_string(size) + " bytes)");
  // Lines are a rank's when their first byte lies in [b, e): skip the end of a line begun
  // before b, read on past e to the end of the last line begun before e.
  std::int64_t start = b;
  if (b > body_begin && b < e) {
    char prev = 0;
    f.read_at(&prev, 1, b - 1);
    if (prev != '\n') {
      std::string block(kBlock, '\0');
      for (start = b; start < e;) {
        const std::size_t want =
            static_cast<std::size_t>(std::min<std::int64_t>(kBlock, e - start));
        const std::size_t got = f.read_at(block.data(), want, start);
        const void* nl = std::memchr(block.data(), '\n', got);
        if (nl) {
          start += static_cast<const char*>(nl) - block.data() + 1;
          break;
        }
        start += static_cast<std::int64_t>(got);
        if (got < want) break;
      }
    }
  }
  if (start >= e) {  // no line starts in my range
    r.buf = std::make_unique<char[]>(room);
    return r;
  }
  std::size_t cap = static_cast<std::size_t>(e - start) + room + kBlock;
  r.buf = std::make_unique_for_overwrite<char[]>(cap);
  std::size_t len = f.read_at(r.buf.get() + room, static_cast<std::size_t>(e - start), start);
  // Finish the last line.
  while (len > 0 && r.buf[room + len - 1] != '\n' &&
         start + static_cast<std::int64_t>(len) < size) {
    if (len - static_cast<std::size_t>(e - start) > kMaxTail)
      throw InputError(path, 0, "a line longer than 16 MiB at byte " + std::to_string(e));
    if (room + len + kBlock > cap) {
      auto grown = std::make_unique_for_overwrite<char[]>(cap * 2);
      std::memcpy(grown.get(), r.buf.get(), room + len);
      r.buf = std::move(grown);
      cap *= 2;
    }
    const std::size_t got =
        f.read_at(r.buf.get() + room + len, kBlock, start + static_cast<std::int64_t>(len));
    const void* nl = std::memchr(r.buf.get() + room + len, '\n', got);
    len +=
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - (r.buf.get() + room + len)) + 1
           : got;
    if (got == 0) break;
  }
  r.len = len;
  r.begin = start;
  r.end = start + static_cast<std::int64_t>(len);
  for (const char* p = r.buf.get() + room; p < r.buf.get() + room + len;) {
    const char* end = r.buf.get() + room + len;
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* le = nl ? static_cast<const char*>(nl) : end;
    ++r.lines;
    r.entries += is_entry_line(p, le);
    p = nl ? le + 1 : end;
  }
  return r;
}

namespace {

// "NAME:LINE: what" with LINE moved by SHIFT; other messages unchanged.
std::string shift_line(const std::string& msg, const std::string& name, std::int64_t shift) {
  if (msg.compare(0, name.size() + 1, name + ":") != 0) return msg;
  const char* b = msg.data() + name.size() + 1;
  const char* e = msg.data() + msg.size();
  std::int64_t line = 0;
  const auto [p, ec] = std::from_chars(b, e, line);
  if (ec != std::errc() || p == b || p == e || *p != ':') return msg;
  return name + ":" + std::to_string(line + shift) + std::string(p, e);
}

}  // namespace

MtxMatrix parse_range(Range& range, const std::string& head, const MtxHeader& h,
                      const std::string& path, const ReadOptions& opt, std::int64_t first_line,
                      std::int64_t first_entry) {
  // The entry past the size line's count, if it is in my range: its line.
  std::int64_t excess_line = 0;
  if (first_entry + range.entries > h.nnz) {
    std::int64_t k = first_entry, line = first_line;
    const char* end = range.buf.get() + range.room + range.len;
    for (const char* p = range.buf.get() + range.room; p < end; ++line) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      const char* le = nl ? static_cast<const char*>(nl) : end;
      if (is_entry_line(p, le) && k++ == h.nnz) {
        excess_line = line;
        break;
      }
      p = nl ? le + 1 : end;
    }
  }
  const std::string excess =
      "more entries than the " + std::to_string(h.nnz) + " the size line declares";

  MtxMatrix m;
  m.header = h;
  m.header.comments.clear();
  m.header.nnz = 0;
  if (range.entries > 0) {
    // My header, right before my lines: line 1 the banner, line 2 the size line, so my first
    // line is line 3 of this text.
    const std::string mine = h.banner() + "\n" + std::to_string(h.rows) + " " +
                             std::to_string(h.cols) + " " + std::to_string(range.entries) + "\n";
    if (mine.size() > range.room || head.size() != range.room)
      throw std::logic_error("parse_range: no room for the part header");
    char* text = range.buf.get() + range.room - mine.size();
    std::memcpy(text, mine.data(), mine.size());
    const std::int64_t shift = first_line - 3;
    try {
      m = parse_mtx(std::string_view(text, mine.size() + range.len), path, opt);
    } catch (const InputError& e) {
      const std::string msg = shift_line(e.what(), path, shift);
      std::int64_t line = 0;
      const std::string prefix = path + ":";
      if (msg.compare(0, prefix.size(), prefix) == 0)
        std::from_chars(msg.data() + prefix.size(), msg.data() + msg.size(), line);
      if (excess_line > 0 && (line <= 0 || excess_line < line))
        throw InputError(path, excess_line, excess);
      throw InputError(msg);
    }
    for (ReadWarning& w : m.read_warnings) {
      w.first_line += shift;
      w.first_entry += first_entry;
    }
  }
  if (excess_line > 0) throw InputError(path, excess_line, excess);
  return m;
}

}  // namespace mm::dist::detail
