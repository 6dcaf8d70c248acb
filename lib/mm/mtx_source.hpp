// The reader's byte sources (a stream, a string in memory), its growable window of whole
// lines, and the header's line-by-line reader: the input side of mtx_read.cpp, apart from the
// body parser.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/mtx.hpp"

namespace mm::detail {

constexpr std::size_t kReadBlock = 1 << 16;
// The error for a line over kMaxLineBytes (mtx.hpp), header or body alike.
constexpr const char* kLineTooLong = "line longer than 1 MiB";
static_assert(kMaxLineBytes == std::size_t{1} << 20, "kLineTooLong names the limit");

// Where bytes come from: a stream or a string already in memory.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::size_t read(char* buf, std::size_t n) = 0;
};

class StreamSource final : public Source {
 public:
  explicit StreamSource(InputStream& in) : in_(in) {}
  std::size_t read(char* buf, std::size_t n) override { return in_.read(buf, n); }

 private:
  InputStream& in_;
};

class MemorySource final : public Source {
 public:
  explicit MemorySource(std::string_view s) : s_(s) {}
  std::size_t read(char* buf, std::size_t n) override {
    n = std::min(n, s_.size() - pos_);
    std::memcpy(buf, s_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

// A growable byte window: bytes [0, size) are valid.
struct Window {
  std::unique_ptr<char[]> data;
  std::size_t size = 0, cap = 0;

  void reserve(std::size_t n) {
    if (n <= cap) return;
    auto d = std::make_unique_for_overwrite<char[]>(n);  // no zero fill
    if (size) std::memcpy(d.get(), data.get(), size);
    data = std::move(d);
    cap = n;
  }
  // Reads until full or the source ends; returns false at the end of the source.
  bool fill(Source& src) {
    while (size < cap) {
      const std::size_t n = src.read(data.get() + size, cap - size);
      if (n == 0) return false;
      size += n;
    }
    return true;
  }
  void drop_front(std::size_t n) {
    std::memmove(data.get(), data.get() + n, size - n);
    size -= n;
  }
};

// Header lines, one at a time; what is left after the size line starts the body. The window
// grows to hold one line, so to kMaxLineBytes and a read block beyond at most: a longer line is
// refused as soon as that many bytes have arrived without its end.
class HeaderReader {
 public:
  HeaderReader(Source& src, const std::string& name) : src_(src), name_(name) {
    w_.reserve(kReadBlock);
  }
  std::int64_t line_no() const { return line_no_; }

  // The next line without its '\n'; false at the end of the input. EARLY, when given, judges
  // the bytes of a line whose end has not arrived yet: when it says they are refused already,
  // they are handed out as the line (for the caller to refuse with its usual message).
  bool next_line(std::string_view& line, bool (*early)(std::string_view) = nullptr) {
    for (;;) {
      const char* b = w_.data.get() + pos_;
      const std::size_t avail = w_.size - pos_;
      const void* nl = std::memchr(b, '\n', avail);
      const std::size_t len =
          nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - b) : avail;
      if (len > kMaxLineBytes) throw InputError(name_, line_no_ + 1, kLineTooLong);
      if (nl || eof_ || (early && avail > 0 && early(std::string_view(b, avail)))) {
        if (!nl && avail == 0) return false;  // the end of the input
        line = std::string_view(b, len);
        pos_ += nl ? len + 1 : len;
        ++line_no_;
        return true;
      }
      w_.drop_front(pos_);
      pos_ = 0;
      if (w_.size == w_.cap) w_.reserve(w_.cap * 2);
      eof_ = !w_.fill(src_);
    }
  }
  // Hands over the unread bytes.
  Window take_rest(bool& eof) {
    w_.drop_front(pos_);
    pos_ = 0;
    eof = eof_;
    return std::move(w_);
  }

 private:
  Source& src_;
  const std::string& name_;
  Window w_;
  std::size_t pos_ = 0;
  std::int64_t line_no_ = 0;
  bool eof_ = false;
};

}  // namespace mm::detail
