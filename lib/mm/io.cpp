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
  gzbuffer(impl_->gz, 1 << 20);
}

InputStream::~InputStream() = default;

std::size_t InputStream::read(char* buf, std::size_t n) {
  std::size_t total = 0;
  while (total < n) {
    const unsigned ask = static_cast<unsigned>(std::min<std::size_t>(n - total, 1u << 30));
    const int got = gzread(impl_->gz, buf + total, ask);
    if (got < 0) {
      int err = 0;
      const char* msg = gzerror(impl_->gz, &err);
      throw InputError(name_, 0, std::string("read error: ") + (msg ? msg : "unknown"));
    }
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

struct OutputStream::Impl {
  int fd = -1;
  bool is_stdout = false;
  gzFile gz = nullptr;
  std::string temp;
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
};

OutputStream::OutputStream(const std::string& path) : impl_(std::make_unique<Impl>()), path_(path) {
  if (path == "-" || path.empty()) {
    path_ = "<stdout>";
    impl_->fd = STDOUT_FILENO;
    impl_->is_stdout = true;
  } else {
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty()) throw UsageError("output path '" + path + "' names a directory");
    std::string tmpl = (slash == std::string::npos ? "" : dir) + "." + base + ".mmtmp.XXXXXX";
    impl_->fd = mkostemp(tmpl.data(), O_CLOEXEC);
    if (impl_->fd < 0)
      throw DeviceError("cannot create a file beside " + path + ": " + errno_text());
    impl_->temp = tmpl;
    impl_->slot = register_temp(tmpl);
    if (ends_with(path, ".gz")) {
      const int gfd = dup(impl_->fd);
      impl_->gz = gfd >= 0 ? gzdopen(gfd, "wb1") : nullptr;
      if (!impl_->gz) throw DeviceError("cannot start gzip output for " + path);
      gzbuffer(impl_->gz, 1 << 20);
    }
  }
  impl_->buf.reserve(1 << 20);
}

OutputStream::~OutputStream() {
  if (impl_->committed || impl_->is_stdout) return;
  if (impl_->gz) gzclose(impl_->gz);
  if (impl_->fd >= 0) close(impl_->fd);
  if (!impl_->temp.empty()) unlink(impl_->temp.c_str());
  unregister_temp(impl_->slot);
}

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
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(impl_->fd, 0666 & ~mask) != 0)
    throw DeviceError("cannot write " + path_ + ": " + errno_text());
  const int fd = impl_->fd;
  impl_->fd = -1;
  if (close(fd) != 0) throw DeviceError("cannot write " + path_ + ": " + errno_text());
  if (rename(impl_->temp.c_str(), path_.c_str()) != 0)
    throw DeviceError("cannot rename output to " + path_ + ": " + errno_text());
  unregister_temp(impl_->slot);
  impl_->committed = true;
}

}  // namespace mm
