// Internal to the parallel read (read.cpp): a file opened for positioned reads, the body's
// place, one rank's range of whole lines, and that range parsed by the existing reader.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "mm/mtx.hpp"

namespace mm::dist::detail {

// A file descriptor for pread; InputError naming PATH when it cannot be opened or read.
class File {
 public:
  explicit File(const std::string& path);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  bool regular() const { return regular_; }
  std::int64_t size() const { return size_; }
  bool gzip();  // the gzip magic bytes at the start
  // Reads up to N bytes at OFFSET (fewer only at the end of the file).
  std::size_t read_at(char* buf, std::size_t n, std::int64_t offset);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  std::int64_t size_ = -1;
};

// Where the body of a plain file starts (its byte offset) and the number of its first line,
// by the header's rules: the banner, then comments and blank lines, then the size line.
// (read_mtx_header has checked the header itself.)
std::pair<std::int64_t, std::int64_t> find_body(File& f);

// The header a rank puts before its range: the file's banner and a size line whose nnz is
// left to be written in its reserved room by parse_range (HEAD: the banner line and a
// size-line template; its length is the room reserved before the range's bytes).
std::string part_header(const MtxHeader& h);

// One rank's lines: the bytes of the body lines whose first byte lies in [begin, end), with
// room before them for the part header.
struct Range {
  std::unique_ptr<char[]> buf;
  std::size_t room = 0;             // bytes reserved before the text
  std::size_t len = 0;              // text bytes, at buf + room
  std::int64_t begin = 0, end = 0;  // file offsets of the text
  std::int64_t lines = 0;           // lines (a last one without '\n' counts)
  std::int64_t entries = 0;         // entry lines (neither blank nor comment)
};

// Reads the lines starting in [B, E) of the body [BODY_BEGIN, SIZE) of PATH.
Range read_lines(const std::string& path, std::int64_t b, std::int64_t e, std::int64_t body_begin,
                 std::int64_t size, std::size_t room);

// Parses RANGE with the file's header H through parse_mtx, as lines FIRST_LINE.. of PATH and
// entries FIRST_ENTRY.. of the file. Errors and warnings carry the file's line numbers; an
// entry past the size line's count is refused where the one-process reader refuses it.
MtxMatrix parse_range(Range& range, const std::string& head, const MtxHeader& h,
                      const std::string& path, const ReadOptions& opt, std::int64_t first_line,
                      std::int64_t first_entry);

}  // namespace mm::dist::detail
