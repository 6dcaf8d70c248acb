// I/O benchmark of the Matrix Market reader and writer: MB/s, thread scaling, peak memory.
#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "mm/mtx.hpp"
#include "mm/timing.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace {

constexpr std::size_t kIoBlock = 1 << 20;  // block size of the plain read()/write() ceilings

struct Options {
  std::string dir = "/tmp";
  std::int64_t nnz = 8'500'000;
  std::int64_t dim = 1'000'000;
  std::uint64_t seed = 20240611;
  int repeat = 3;
  int baseline_repeat = 1;
  int threads = 0;  // 0: all cores
  bool gzip = false;
  bool keep = false;
  std::string jsonl = "-";
  std::string commit;
};

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "mtx_io_bench: " << what << "\n";
  std::exit(1);
}
std::string errno_text() {
  return std::strerror(errno);
}

// splitmix64: small, deterministic, good enough to scatter indices and mantissas.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform_pm1() { return static_cast<double>(next() >> 11) * 0x1p-52 - 1.0; }  // [-1, 1)
};

mm::MtxMatrix generate(const Options& o) {
  mm::MtxMatrix m;
  m.header.rows = m.header.cols = o.dim;
  m.header.nnz = o.nnz;
  m.header.comments = {" mtx_io_bench: random coordinate real general, seed " +
                       std::to_string(o.seed)};
  const auto n = static_cast<std::size_t>(o.nnz);
  m.row.resize(n);
  m.col.resize(n);
  m.real.resize(n);
  Rng rng{o.seed};
  const auto d = static_cast<std::uint64_t>(o.dim);
  for (std::size_t k = 0; k < n; ++k) {
    m.row[k] = static_cast<std::int64_t>(rng.next() % d);
    m.col[k] = static_cast<std::int64_t>(rng.next() % d);
    m.real[k] = rng.uniform_pm1();
  }
  return m;
}

bool same_entries(const mm::MtxMatrix& a, const mm::MtxMatrix& b) {
  return a.header.nnz == b.header.nnz && a.row == b.row && a.col == b.col && a.real == b.real;
}

long long file_size(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) fail("cannot stat " + path + ": " + errno_text());
  return static_cast<long long>(st.st_size);
}

// ---------------------------------------------------------------- ceilings and baseline

// The I/O ceiling: read() the whole file through one reused block, touching nothing else.
void plain_read(const std::string& path, std::vector<char>& buf) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open " + path + ": " + errno_text());
  for (;;) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read " + path + ": " + errno_text());
    if (n == 0) break;
  }
  close(fd);
}

// The write ceiling: write() bytes already formatted, in blocks, then close.
void plain_write(const std::string& path, const std::string& bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create " + path + ": " + errno_text());
  for (std::size_t off = 0; off < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + off, std::min(kIoBlock, bytes.size() - off));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write " + path + ": " + errno_text());
    off += static_cast<std::size_t>(n);
  }
  if (close(fd) != 0) fail("close " + path + ": " + errno_text());
}

std::string slurp(const std::string& path) {
  std::string s(static_cast<std::size_t>(file_size(path)), '\0');
  std::ifstream f(path, std::ios::binary);
  if (!f.read(s.data(), static_cast<std::streamsize>(s.size()))) fail("cannot read " + path);
  return s;
}

// The classic NIST mmio.c style: stdio, one fscanf("%d %d %lg") per entry, arrays sized
// from the size line. Coordinate real general only; just enough checking for a baseline.
mm::MtxMatrix naive_read(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "r"), &std::fclose);
  if (!f) fail("cannot open " + path);
  char line[1025];
  if (!std::fgets(line, sizeof line, f.get()) ||
      std::strncmp(line, "%%MatrixMarket matrix coordinate real general", 45) != 0)
    fail("naive reader: " + path + " is not coordinate real general");
  do {
    if (!std::fgets(line, sizeof line, f.get())) fail("naive reader: no size line");
  } while (line[0] == '%');
  long long rows = 0, cols = 0, nnz = 0;
  if (std::sscanf(line, "%lld %lld %lld", &rows, &cols, &nnz) != 3)
    fail("naive reader: bad size line");
  mm::MtxMatrix m;
  m.header.rows = rows;
  m.header.cols = cols;
  m.header.nnz = nnz;
  m.row.resize(static_cast<std::size_t>(nnz));
  m.col.resize(static_cast<std::size_t>(nnz));
  m.real.resize(static_cast<std::size_t>(nnz));
  for (long long k = 0; k < nnz; ++k) {
    int i = 0, j = 0;
    double v = 0;
    if (std::fscanf(f.get(), "%d %d %lg", &i, &j, &v) != 3) fail("naive reader: bad entry");
    m.row[static_cast<std::size_t>(k)] = i - 1;
    m.col[static_cast<std::size_t>(k)] = j - 1;
    m.real[static_cast<std::size_t>(k)] = v;
  }
  return m;
}

// ---------------------------------------------------------------- peak memory in a child

std::int64_t proc_status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t klen = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, klen, key) == 0) return std::stoll(line.substr(klen + 1));
  return -1;
}

// Child side: RSS before, read, peak RSS after; one JSON object on standard output.
int child_read(const std::string& path, const std::string& impl, int threads) {
  {  // reset the high-water mark to the current RSS (Linux >= 4.0); harmless if refused
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
  }
  const std::int64_t before = proc_status_kb("VmRSS:") * 1024;
  mm::Stopwatch w;
  const mm::MtxMatrix m =
      impl == "naive" ? naive_read(path) : mm::read_mtx(path, mm::ReadOptions{threads});
  const double secs = w.seconds();
  const std::int64_t peak = proc_status_kb("VmHWM:") * 1024;
  std::cout << json{{"rss_before_bytes", before},
                    {"peak_rss_bytes", peak},
                    {"nnz", m.header.nnz},
                    {"seconds", secs}}
                   .dump()
            << "\n";
  return 0;
}

// Parent side: runs this program again (a fresh address space) and parses its answer.
json measure_in_child(const std::string& path, const std::string& impl, int threads) {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) fail("readlink /proc/self/exe: " + errno_text());
  exe[n] = '\0';
  int fds[2];
  if (pipe(fds) != 0) fail("pipe: " + errno_text());
  const std::string t = std::to_string(threads);
  const pid_t pid = fork();
  if (pid < 0) fail("fork: " + errno_text());
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    const char* argv[] = {exe,          "--child-read", path.c_str(), "--child-impl",
                          impl.c_str(), "--threads",    t.c_str(),    nullptr};
    execv(exe, const_cast<char* const*>(argv));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t r; (r = read(fds[0], buf, sizeof buf)) != 0;) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail("read from child: " + errno_text());
    out.append(buf, static_cast<std::size_t>(r));
  }
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("memory child failed for " + impl);
  return json::parse(out);
}

// ---------------------------------------------------------------- the run

struct Row {
  std::string op, impl;
  int threads;
  mm::PhaseStats s;
  double mbps;
};

// Median of REPEAT timed calls after WARMUP untimed ones; F returns its own timed seconds,
// so that checking and freeing results stays outside the measurement.
mm::PhaseStats measure(int warmup, int repeat, const std::function<double()>& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) t.push_back(f());
  return mm::summarize(std::move(t));
}

class Bench {
 public:
  Bench(const Options& o, long long bytes, std::int64_t nnz, std::ostream& out)
      : o_(o), bytes_(bytes), nnz_(nnz), out_(out) {}

  void record(const std::string& op, const std::string& impl, int threads, int warmup,
              const mm::PhaseStats& s, json extra = json::object()) {
    const double mbps = static_cast<double>(bytes_) / 1e6 / s.median;
    json j{{"bench", "mtx_io"},
           {"op", op},
           {"impl", impl},
           {"threads", threads},
           {"device", mm::cpu_model()},
           {"cores", omp_get_num_procs()},
           {"commit", o_.commit},
           {"file_bytes", bytes_},
           {"nnz", nnz_},
           {"page_cache", "warm"},
           {"warmup", warmup},
           {"repeats", s.repeats},
           {"seconds", {{"min", s.min}, {"median", s.median}, {"max", s.max}}},
           {"mb_per_s", mbps},
           {"formula", "mb_per_s = file_bytes / 1e6 / median seconds"}};
    j.update(extra);
    out_ << j.dump() << std::endl;
    rows_.push_back({op, impl, threads, s, mbps});
  }
  void record_memory(const std::string& impl, int threads, const json& c) {
    const auto coo = nnz_ * 24;
    const std::int64_t extra =
        c["peak_rss_bytes"].get<std::int64_t>() - c["rss_before_bytes"].get<std::int64_t>() - coo;
    json j{{"bench", "mtx_io"},
           {"op", "read_memory"},
           {"impl", impl},
           {"threads", threads},
           {"device", mm::cpu_model()},
           {"commit", o_.commit},
           {"file_bytes", bytes_},
           {"nnz", nnz_},
           {"coo_bytes", coo},
           {"extra_bytes", extra},
           {"extra_over_coo", static_cast<double>(extra) / static_cast<double>(coo)},
           {"formula",
            "extra = peak VmHWM - VmRSS before reading - coo_bytes; coo_bytes = nnz*(8+8+8)"}};
    j.update(c);
    out_ << j.dump() << std::endl;
    mem_.push_back(j);
  }
  double mbps(const std::string& op, const std::string& impl, int threads) const {
    for (const auto& r : rows_)
      if (r.op == op && r.impl == impl && r.threads == threads) return r.mbps;
    return 0;
  }
  void table(std::ostream& os, int nthreads) const;

 private:
  const Options& o_;
  long long bytes_;
  std::int64_t nnz_;
  std::ostream& out_;
  std::vector<Row> rows_;
  std::vector<json> mem_;
};

using mm::bench::fixed;

void Bench::table(std::ostream& os, int nthreads) const {
  os << "file: " << bytes_ << " bytes, " << nnz_
     << " entries (coordinate real general); page cache warm; MB = 1e6 bytes; "
        "MB/s = file bytes / median seconds\n\n";
  os << "| op | impl | threads | median s | min s | max s | runs | MB/s |\n";
  os << "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows_)
    os << "| " << r.op << " | " << r.impl << " | " << r.threads << " | " << fixed(r.s.median, 3)
       << " | " << fixed(r.s.min, 3) << " | " << fixed(r.s.max, 3) << " | " << r.s.repeats << " | "
       << fixed(r.mbps, 1) << " |\n";
  os << "\n| ratio | value |\n|---|---:|\n";
  auto ratio = [&](const std::string& what, double a, double b) {
    if (a > 0 && b > 0) os << "| " << what << " | " << fixed(a / b, 3) << " |\n";
  };
  const double r1 = mbps("read", "mm::read_mtx", 1), rn = mbps("read", "mm::read_mtx", nthreads);
  const double w1 = mbps("write", "mm::write_mtx", 1),
               wn = mbps("write", "mm::write_mtx", nthreads);
  const double ceil_r = mbps("read", "plain read()", 1), ceil_w = mbps("write", "plain write()", 1);
  const double naive = mbps("read", "naive fscanf", 1);
  ratio("read 1 thread / plain read()", r1, ceil_r);
  ratio("read " + std::to_string(nthreads) + " threads / plain read()", rn, ceil_r);
  ratio("read 1 thread / naive fscanf reader", r1, naive);
  ratio("read " + std::to_string(nthreads) + " threads / naive fscanf reader", rn, naive);
  ratio("read scaling " + std::to_string(nthreads) + " threads / 1 thread", rn, r1);
  ratio("write 1 thread / plain write()", w1, ceil_w);
  ratio("write " + std::to_string(nthreads) + " threads / plain write()", wn, ceil_w);
  ratio("write scaling " + std::to_string(nthreads) + " threads / 1 thread", wn, w1);
  ratio("gzip read / plain-text read, " + std::to_string(nthreads) + " threads",
        mbps("read", "mm::read_mtx gzip", nthreads), rn);
  if (!mem_.empty()) {
    os << "\nPeak memory while reading (fresh child process each; extra = peak RSS - RSS "
          "before - COO bytes; COO bytes = nnz*24):\n\n";
    os << "| impl | threads | COO MB | peak - before MB | extra MB | extra / COO |\n";
    os << "|---|---:|---:|---:|---:|---:|\n";
    for (const auto& j : mem_) {
      const double coo = j["coo_bytes"].get<double>() / 1e6;
      const double used =
          (j["peak_rss_bytes"].get<double>() - j["rss_before_bytes"].get<double>()) / 1e6;
      os << "| " << j["impl"].get<std::string>() << " | " << j["threads"].get<int>() << " | "
         << fixed(coo, 1) << " | " << fixed(used, 1) << " | " << fixed(used - coo, 1) << " | "
         << fixed(j["extra_over_coo"].get<double>(), 3) << " |\n";
    }
  }
}

void run(const Options& o) {
  const int nthreads = o.threads > 0 ? o.threads : omp_get_num_procs();
  std::vector<int> tcounts{1};
  if (nthreads > 1) tcounts.push_back(nthreads);
  const std::string path = o.dir + "/mtx_io_bench.mtx";
  const std::string wpath = o.dir + "/mtx_io_bench_w.mtx";
  const std::string gzpath = o.dir + "/mtx_io_bench.mtx.gz";
  auto note = [](const std::string& s) { std::cerr << "mtx_io_bench: " << s << std::endl; };

  mm::Stopwatch gw;
  const mm::MtxMatrix m = generate(o);
  note("generated " + std::to_string(o.nnz) + " entries in " + fixed(gw.seconds(), 2) + " s");
  mm::write_mtx(path, m, mm::WriteOptions{nthreads});  // the file read below; untimed
  const long long bytes = file_size(path);
  note("wrote " + path + ": " + std::to_string(bytes) + " bytes");

  std::ofstream jfile;
  if (o.jsonl != "-") {
    jfile.open(o.jsonl, std::ios::app);
    if (!jfile) fail("cannot open " + o.jsonl);
  }
  Bench b(o, bytes, o.nnz, o.jsonl == "-" ? std::cout : jfile);

  // Writes: to a second file, removed before each run so freeing the old one is not timed.
  for (int t : tcounts) {
    note("write, " + std::to_string(t) + " thread(s)");
    b.record("write", "mm::write_mtx", t, 1, measure(1, o.repeat, [&] {
               unlink(wpath.c_str());
               mm::Stopwatch w;
               mm::write_mtx(wpath, m, mm::WriteOptions{t});
               return w.seconds();
             }));
  }
  {
    note("write ceiling: plain write()");
    const std::string text = slurp(path);
    b.record("write", "plain write()", 1, 1, measure(1, o.repeat, [&] {
               unlink(wpath.c_str());
               mm::Stopwatch w;
               plain_write(wpath, text);
               return w.seconds();
             }));
    unlink(wpath.c_str());
  }

  note("read ceiling: plain read()");
  std::vector<char> block(kIoBlock);
  b.record("read", "plain read()", 1, 1,
           measure(1, o.repeat,
                   [&] {
                     mm::Stopwatch w;
                     plain_read(path, block);
                     return w.seconds();
                   }),
           {{"block_bytes", kIoBlock}});

  auto time_read = [&](const std::function<mm::MtxMatrix()>& read) {
    return [&, read] {
      mm::Stopwatch w;
      const mm::MtxMatrix r = read();
      const double s = w.seconds();
      if (!same_entries(r, m)) fail("read back differs from what was written");
      return s;
    };
  };
  for (int t : tcounts) {
    note("read, " + std::to_string(t) + " thread(s)");
    b.record(
        "read", "mm::read_mtx", t, 1,
        measure(1, o.repeat, time_read([&, t] { return mm::read_mtx(path, mm::ReadOptions{t}); })));
  }
  if (o.baseline_repeat > 0) {
    note("baseline: naive fscanf reader");
    b.record("read", "naive fscanf", 1, 0,
             measure(0, o.baseline_repeat, time_read([&] { return naive_read(path); })));
  }
  if (o.gzip) {
    note("gzip: write once, then read");
    mm::Stopwatch w;
    mm::write_mtx(gzpath, m, mm::WriteOptions{nthreads});
    const double ws = w.seconds();
    const long long gzbytes = file_size(gzpath);
    b.record("write", "mm::write_mtx gzip", nthreads, 0, mm::summarize({ws}),
             {{"gz_bytes", gzbytes}, {"note", "MB/s counts uncompressed bytes"}});
    for (int t : tcounts)
      b.record("read", "mm::read_mtx gzip", t, 0,
               measure(0, o.repeat,
                       time_read([&, t] { return mm::read_mtx(gzpath, mm::ReadOptions{t}); })),
               {{"gz_bytes", gzbytes}, {"note", "MB/s counts uncompressed bytes"}});
    unlink(gzpath.c_str());
  }

  for (int t : tcounts) {
    note("peak memory of mm::read_mtx, " + std::to_string(t) + " thread(s)");
    b.record_memory("mm::read_mtx", t, measure_in_child(path, "mm", t));
  }
  if (o.baseline_repeat > 0) {
    note("peak memory of the naive reader");
    b.record_memory("naive fscanf", 1, measure_in_child(path, "naive", 1));
  }
  if (!o.keep) unlink(path.c_str());
  b.table(std::cout, nthreads);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string child_path, child_impl = "mm";
  po::options_description desc(
      "mtx_io_bench: read and write MB/s of the Matrix Market reader and writer\nOptions");
  desc.add_options()("help,h", "this help")("dir", po::value(&o.dir)->default_value(o.dir),
                                            "scratch folder for the generated files")(
      "nnz", po::value(&o.nnz)->default_value(o.nnz), "entries of the generated matrix")(
      "dim", po::value(&o.dim)->default_value(o.dim), "rows = columns of the generated matrix")(
      "seed", po::value(&o.seed)->default_value(o.seed), "generator seed")(
      "repeat", po::value(&o.repeat)->default_value(o.repeat), "timed runs (median reported)")(
      "baseline-repeat", po::value(&o.baseline_repeat)->default_value(o.baseline_repeat),
      "timed runs of the slow naive reader (0: skip it)")(
      "threads", po::value(&o.threads)->default_value(0), "the 'all threads' count (0: all cores)")(
      "gzip", po::bool_switch(&o.gzip), "also write and read a .gz file")(
      "keep", po::bool_switch(&o.keep), "keep the generated plain file (DIR/mtx_io_bench.mtx)")(
      "jsonl", po::value(&o.jsonl)->default_value(o.jsonl),
      "append JSON lines here ('-': standard output)")("commit", po::value(&o.commit),
                                                       "commit id stored in each record")(
      "child-read", po::value(&child_path), "internal: measure one read's peak memory")(
      "child-impl", po::value(&child_impl), "internal: mm or naive");
  po::variables_map vm;
  if (!mm::bench::parse_options(argc, argv, desc, vm, "mtx_io_bench")) return 2;
  try {
    if (vm.count("help")) {
      std::cout << desc << "\n";
      return 0;
    }
    if (!child_path.empty()) return child_read(child_path, child_impl, o.threads);
    if (o.nnz < 1 || o.dim < 1 || o.repeat < 1) fail("--nnz, --dim and --repeat must be >= 1");
    run(o);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  return 0;
}
