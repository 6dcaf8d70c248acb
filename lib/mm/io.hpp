// Byte streams: input from a path, "-" or gzip; output written atomically.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace mm {

// Reads a file, standard input ("-"), or gzip data from either (by its magic bytes).
class InputStream {
 public:
  explicit InputStream(const std::string& path);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Reads up to N bytes; returns 0 at the end. Throws InputError on a read error.
  std::size_t read(char* buf, std::size_t n);
  const std::string& name() const { return name_; }
  // Size in bytes when it is a plain regular file, else -1.
  long long size_hint() const { return size_hint_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string name_;
  long long size_hint_ = -1;
};

// Output to PATH, written into an unnamed file in its directory (O_TMPFILE) that commit()
// links into place, so that even kill -9 leaves neither a partial target nor a stray file;
// where the filesystem lacks O_TMPFILE, into a named temporary file beside it, renamed on
// commit(). "-" is standard output; a ".gz" path is compressed. Destroyed without commit()
// (an exception, a failure), the target is untouched and nothing is left behind.
class OutputStream {
 public:
  explicit OutputStream(const std::string& path);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  void write(std::string_view bytes);
  void commit();  // flush, close with every error checked, rename
  const std::string& name() const { return path_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Ignores SIGPIPE (a closed pipe then ends the tool quietly) and removes live named
// temporary output files on SIGINT, SIGTERM and SIGHUP.
void install_signal_cleanup();

// Reads a whole stream into a string (for small inputs and tests).
std::string read_all(const std::string& path);

}  // namespace mm
