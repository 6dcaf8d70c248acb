// Byte streams: plain, standard-input and gzip input; atomic, gzip-capable output.
#include "mm/io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>
#include <string>

#include "mm/error.hpp"

namespace mm {

namespace {

std::string errno_text() {
  return std::strerror(errno);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Temporary output files alive now, so a signal handler can remove them. Plain
// arrays: the handler may only call async-signal-safe functions.
constexpr int kMaxTemps = 16;
std::array<std::array<char, PATH_MAX>, kMaxTemps> g_temp_paths;
std::array<std::atomic<bool>, kMaxTemps> g_temp_live{};

int register_temp(const std::string& path) {
  for (int i = 0; i < kMaxTemps; ++i) {
    if (!g_temp_live[i].load()) {
      std::snprintf(g_temp_paths[i].data(), PATH_MAX, "%s", path.c_str());
      g_temp_live[i].store(true);
      return i;
    }
  }
  return -1;  // more than we track: still removed on normal failure paths
}

void unregister_temp(int slot) {
  if (slot >= 0) g_temp_live[slot].store(false);
}

extern "C" void remove_temps_and_reraise(int sig) {
  for (int i = 0; i < kMaxTemps; ++i)
    if (g_temp_live[i].load()) unlink(g_temp_paths[i].data());
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_signal_cleanup() {
  // A closed pipe shows up as EPIPE from write(), which ends the tool quietly; a file
  // over the size limit as EFBIG, reported like a full disk, with the temporary removed.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, remove_temps_and_reraise);
}

// ---------------------------------------------------------------- input

struct InputStream::Impl {
  gzFile gz = nullptr;
  ~Impl() {
    if (gz) gzclose(gz);
  }
};

InputStream::InputStream(const std::string& path) : impl_(std::make_unique<Impl>()), name_(path) {
  int fd = 0;
  if (path == "-") {
    name_ = "<stdin>";
    fd = dup(STDIN_FILENO);
  } else {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) throw InputError(name_, 0, "cannot open: " + errno_text());
  struct stat st {};
  if (fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      close(fd);
      throw InputError(name_, 0, "is a directory, expected a Matrix Market file");
    }
    if (S_ISREG(st.st_mode)) size_hint_ = static_cast<long long>(st.st_size);
  }
  // zlib reads plain data unchanged ("transparent" mode) and gzip by its magic bytes.
  impl_->gz = gzdopen(fd, "rb");
  if (!impl_->gz) {
    close(fd);
    throw InputError(name_, 0, "cannot open: out of memory");
  }
  // zlib fills its input buffer before inflating: from a pipe, a buffer of the pipe's size lets
  // the reader judge the first bytes without waiting for a megabyte of compressed input.
  gzbuffer(impl_->gz, size_hint_ >= 0 ? 1 << 20 : 1 << 16);
}

InputStream::~InputStream() = default;

std::size_t InputStream::read(char* buf, std::size_t n) {
  std::size_t total = 0;
  while (total < n) {
    const unsigned ask = static_cast<unsigned>(std::min<std::size_t>(n - total, 1u << 30));
    const int got = gzread(impl_->gz, buf + total, ask);
    int err = Z_OK;
    const char* msg = gzerror(impl_->gz, &err);
    if (got < 0) throw InputError(name_, 0, std::string("read error: ") + (msg ? msg : "unknown"));
    // gzread hands out what it decoded from gzip data cut short and then reports a plain
    // end, leaving only Z_BUF_ERROR behind: a truncated .gz (a partial download) would read as
    // a whole file, its last value possibly cut mid-number (found by fuzz_mtx_stream).
    if (err == Z_BUF_ERROR)
      throw InputError(name_, 0, "read error: unexpected end of file: the gzip data is cut short");
    if (got == 0) break;
    total += static_cast<std::size_t>(got);
  }
  if (total > 0 && size_hint_ >= 0 && !gzdirect(impl_->gz)) size_hint_ = -1;  // compressed
  return total;
}

std::string read_all(const std::string& path) {
  InputStream in(path);
  std::string s;
  std::size_t n = 0;
  do {
    s.resize(s.size() + (1 << 20));
    n = in.read(s.data() + s.size() - (1 << 20), 1 << 20);
    s.resize(s.size() - (1 << 20) + n);
  } while (n > 0);
  return s;
}

// ---------------------------------------------------------------- output
//
// How a file target is written (issue 14: nothing left behind, even by kill -9):
// - The data goes into an unnamed file, open(DIR, O_TMPFILE) in the target's directory: a
//   process killed at any point while writing leaves nothing, since the kernel frees an
//   unnamed inode with its last descriptor.
// - commit() gives it a name only when it is complete. linkat(fd, "", ..., AT_EMPTY_PATH)
//   would need CAP_DAC_READ_SEARCH, so it links /proc/self/fd/N (AT_SYMLINK_FOLLOW), which
//   any user may. A link never replaces a name: a new target is linked straight to its name
//   (atomic, no window at all); an existing one is linked to a temporary name beside it and
//   renamed over the target. Between that link and the rename (two system calls) a kill -9
//   would leave the complete file under the temporary name; SIGINT, SIGTERM and SIGHUP there
//   remove it (it is registered like the fallback's temporary). Linux has no call that links
//   an unnamed file over an existing name, so this window cannot be closed.
// - Where the filesystem lacks O_TMPFILE (EOPNOTSUPP; EISDIR from kernels before 3.11;
//   EINVAL) or /proc is not mounted, the fallback is a named temporary file (mkostemp)
//   renamed on commit, as before: a kill -9 mid-write leaves that temporary behind.
// Either way the file gets the mode of a newly created one (0666 less the umask), whatever
// the mode of a target it replaces.

namespace {

std::string proc_fd_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

// Whether /proc/self/fd/FD names FD's file, so that commit() can link it.
bool proc_fd_links(int fd) {
  struct stat a;
  struct stat b;
  return fstat(fd, &a) == 0 && stat(proc_fd_path(fd).c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

// DIR + ".BASE.mmtmp.XXXXXX" with six random letters (the fallback's mkostemp pattern).
std::string temp_name(const std::string& dir, const std::string& base) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string s = dir + "." + base + ".mmtmp.";
  for (int i = 0; i < 6; ++i) s += kLetters[rd() % (sizeof(kLetters) - 1)];
  return s;
}

}  // namespace

struct OutputStream::Impl {
  int fd = -1;
  bool is_stdout = false;
  bool unnamed = false;  // O_TMPFILE: no name until commit() links it
  bool direct = false;   // an existing device, FIFO or socket (/dev/null): written in place
  gzFile gz = nullptr;
  std::string dir, base;  // the target's directory ("" for the current one) and file name
  std::string temp;       // a named temporary: the fallback's, or the link before the rename
  int slot = -1;
  std::string buf;
  bool committed = false;

  void raw_write(const char* p, std::size_t n, const std::string& name) {
    if (gz) {
      while (n > 0) {
        const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30));
        if (gzwrite(gz, p, chunk) != static_cast<int>(chunk)) {
          int err = 0;
          const char* msg = gzerror(gz, &err);
          throw DeviceError("cannot write " + name + ": " +
                            (err == Z_ERRNO ? errno_text() : std::string(msg ? msg : "")));
        }
        p += chunk;
        n -= chunk;
      }
      return;
    }
    while (n > 0) {
      const ssize_t w = ::write(fd, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EPIPE && is_stdout) throw BrokenPipe();
        throw DeviceError("cannot write " + name + ": " + errno_text());
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  void flush(const std::string& name) {
    if (!buf.empty()) raw_write(buf.data(), buf.size(), name);
    buf.clear();
  }

  // Opens the unnamed file, or the fallback's named one.
  void create(const std::string& path) {
    fd = open(dir.empty() ? "." : dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0 && proc_fd_links(fd)) {
      unnamed = true;
      return;
    }
    const bool unsupported = fd >= 0 || errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL;
    if (fd >= 0) close(fd);
    if (!unsupported)
      throw DeviceError("cannot create a file beside " + path + ": " + errno_text());
    std::string tmpl = dir + "." + base + ".mmtmp.XXXXXX";
    fd = mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0) throw DeviceError("cannot create a file beside " + path + ": " + errno_text());
    temp = tmpl;
    slot = register_temp(tmpl);
  }

  // Names the complete unnamed file PATH (see the top of this section).
  void link_into_place(const std::string& path) {
    const std::string src = proc_fd_path(fd);
    if (linkat(AT_FDCWD, src.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
    if (errno != EEXIST) throw DeviceError("cannot link output to " + path + ": " + errno_text());
    for (int tries = 0;; ++tries) {
      temp = temp_name(dir, base);
      slot = register_temp(temp);  // before the link: a signal right after it removes it
      if (linkat(AT_FDCWD, src.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
      const int err = errno;
      unregister_temp(slot);
      slot = -1;
      temp.clear();
      if (err != EEXIST || tries == 100)
        throw DeviceError("cannot create a file beside " + path + ": " + std::strerror(err));
    }
    rename_temp(path);
  }

  void rename_temp(const std::string& path) {
    const bool ok = rename(temp.c_str(), path.c_str()) == 0;
    const std::string err = ok ? "" : errno_text();
    if (!ok) unlink(temp.c_str());
    temp.clear();
    unregister_temp(slot);
    slot = -1;
    if (!ok) throw DeviceError("cannot rename output to " + path + ": " + err);
  }

  // Not committed (an exception, a failure, a constructor that threw): the target stays
  // untouched and nothing is left (an unnamed file is gone with its descriptor).
  ~Impl() {
    if (committed || is_stdout) return;
    if (direct) {
      if (gz) gzclose(gz);
      if (fd >= 0) close(fd);
      return;
    }
    if (gz) gzclose(gz);
    if (fd >= 0) close(fd);
    if (!temp.empty()) unlink(temp.c_str());
    unregister_temp(slot);
  }
};

OutputStream::OutputStream(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  if (path == "-" || path.empty()) {
    path_ = "<stdout>";
    impl_->fd = STDOUT_FILENO;
    impl_->is_stdout = true;
  } else {
    const auto slash = path.find_last_of('/');
    impl_->dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    impl_->base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (impl_->base.empty()) throw UsageError("output path '" + path + "' names a directory");
    // A device or FIFO is written in place (a temporary renamed over /dev/null would replace
    // the device with a plain file); there is nothing atomic to keep.
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      impl_->fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (impl_->fd < 0) throw DeviceError("cannot open output " + path + ": " + errno_text());
      impl_->direct = true;
    } else {
      impl_->create(path);
    }
    if (ends_with(path, ".gz")) {
      const int gfd = dup(impl_->fd);
      impl_->gz = gfd >= 0 ? gzdopen(gfd, "wb1") : nullptr;
      if (!impl_->gz) {
        if (gfd >= 0) close(gfd);
        throw DeviceError("cannot start gzip output for " + path);
      }
      gzbuffer(impl_->gz, 1 << 20);
    }
  }
  impl_->buf.reserve(1 << 20);
}

OutputStream::~OutputStream() = default;

void OutputStream::write(std::string_view bytes) {
  if (impl_->buf.size() + bytes.size() > (1u << 20)) {
    impl_->flush(path_);
    if (bytes.size() >= (1u << 20)) {
      impl_->raw_write(bytes.data(), bytes.size(), path_);
      return;
    }
  }
  impl_->buf.append(bytes);
}

void OutputStream::commit() {
  impl_->flush(path_);
  if (impl_->is_stdout) {
    impl_->committed = true;
    return;
  }
  if (impl_->gz) {
    const int rc = gzclose(impl_->gz);
    impl_->gz = nullptr;
    if (rc != Z_OK) throw DeviceError("cannot finish gzip output " + path_);
  }
  if (impl_->direct) {
    const int fd = impl_->fd;
    impl_->fd = -1;
    impl_->committed = true;
    if (close(fd) != 0) throw DeviceError("cannot write " + path_ + ": " + errno_text());
    return;
  }
  // Every close() flushes (a network filesystem reports delayed write errors there): the data
  // is checked before the file gets its name.
  if (impl_->unnamed) {
    const int d = dup(impl_->fd);
    if (d < 0 || close(d) != 0) throw DeviceError("cannot write " + path_ + ": " + errno_text());
    impl_->link_into_place(path_);  // FD stays open for it
    impl_->committed = true;
    close(impl_->fd);  // checked above through the duplicate; the name, once given, stays
    impl_->fd = -1;
    return;
  }
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(impl_->fd, 0666 & ~mask) != 0)
    throw DeviceError("cannot write " + path_ + ": " + errno_text());
  const int fd = impl_->fd;
  impl_->fd = -1;
  if (close(fd) != 0) throw DeviceError("cannot write " + path_ + ": " + errno_text());
  impl_->rename_temp(path_);
  impl_->committed = true;
}

}  // namespace mm
