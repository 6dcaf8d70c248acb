// The distributed read against the one-process reader: the same entries in the same order on
// the corpus and on awkward layouts, the same error messages on every bad fixture; generated
// x slices against mmgen's vector; per-rank output names.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "analysis/generate.hpp"
#include "dist/agree.hpp"
#include "dist/read.hpp"
#include "dist/vector.hpp"
#include "dist_test.hpp"
#include "mm/error.hpp"

namespace mm::test {
namespace {

namespace fs = std::filesystem;

// The repository: MM_ROOT when set (binaries carried to another machine, as the other unit
// tests take it), else where this was built from.
fs::path source_dir() {
  const char* root = std::getenv("MM_ROOT");
  return fs::path(root && *root ? root : MM_SOURCE_DIR);
}
using dist::Op;

// Every rank's part gathered on rank 0, in rank order.
template <class V>
V gathered(const V& v) {
  return comm().gatherv(v.data(), v.size(), 0);
}

template <class V>
bool same_bits(const V& a, const V& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

// The parts of a distributed read, put together, are the one-process reader's entries.
void expect_same_read(const std::string& path, const ReadOptions& opt, bool parallel) {
  const dist::DistRead d = dist::read_distributed(comm(), path, opt);
  EXPECT_EQ(d.parallel, parallel) << path << ": " << d.how;
  const MtxMatrix& p = d.part;
  const auto row = gathered(p.row), col = gathered(p.col), integer = gathered(p.integer);
  const auto re = gathered(p.real), im = gathered(p.imag);
  const std::int64_t n = comm().allreduce(p.header.nnz, Op::sum);
  if (!comm().root()) return;
  const MtxMatrix m = read_mtx(path, opt);
  EXPECT_EQ(d.header.banner(), m.header.banner()) << path;
  EXPECT_EQ(d.header.rows, m.header.rows) << path;
  EXPECT_EQ(d.header.cols, m.header.cols) << path;
  EXPECT_EQ(d.header.nnz, m.header.nnz) << path;
  EXPECT_EQ(n, m.header.nnz) << path;
  EXPECT_EQ(row, m.row) << path;
  EXPECT_EQ(col, m.col) << path;
  EXPECT_EQ(integer, m.integer) << path;
  EXPECT_TRUE(same_bits(re, m.real)) << path;  // NaN too
  EXPECT_TRUE(same_bits(im, m.imag)) << path;
  ASSERT_EQ(d.warnings.size(), m.read_warnings.size()) << path;
  for (std::size_t k = 0; k < d.warnings.size(); ++k) {
    EXPECT_EQ(d.warnings[k].message, m.read_warnings[k].message) << path;
    EXPECT_EQ(d.warnings[k].first_line, m.read_warnings[k].first_line) << path;
    EXPECT_EQ(d.warnings[k].first_entry, m.read_warnings[k].first_entry) << path;
  }
}

// A folder every rank sees (rank 0 names it), removed at the end.
class SharedDir {
 public:
  SharedDir() {
    const long pid = comm().bcast(static_cast<long>(getpid()), 0);
    path_ = fs::temp_directory_path() / ("mmdist_test_" + std::to_string(pid));
    if (comm().root()) fs::create_directories(path_);
    comm().barrier();
  }
  ~SharedDir() {
    comm().barrier();
    if (comm().root()) fs::remove_all(path_);
  }
  // Rank 0 writes TEXT to NAME; every rank gets its path.
  std::string file(const std::string& name, const std::string& text) const {
    const std::string p = (path_ / name).string();
    if (comm().root()) std::ofstream(p, std::ios::binary) << text;
    comm().barrier();
    return p;
  }

 private:
  fs::path path_;
};

TEST(DistRead, CorpusEqualsOneProcessReader) {
  for (const auto& e : fs::directory_iterator(source_dir() / "datasets/corpus")) {
    const std::string path = e.path().string();
    const MtxHeader h = read_mtx_header(path);
    expect_same_read(path, ReadOptions{}, h.format == Format::coordinate);
    if (fs::file_size(e.path()) < 100000)  // tiny chunks: lines cut everywhere, but slow
      expect_same_read(path, ReadOptions{2, 7}, h.format == Format::coordinate);
  }
}

TEST(DistRead, AwkwardLayouts) {
  const SharedDir dir;
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  // Comments and blank lines in the body, CRLF, leading blanks, no final newline, one line
  // longer than a rank's share of the bytes (some ranks then start no line at all).
  const std::string body =
      "% a comment before the size line\n\n5 4 7\n1 1 1.5\n% a comment in the body\n\n"
      "2 2 -2\r\n  3 3 3e-3\n\t4 4 4\n5 1 " +
      std::string(300, '0') + "5\n1 4 0.25\n5 4 -1";
  expect_same_read(dir.file("layout.mtx", banner + body), ReadOptions{}, true);
  expect_same_read(dir.file("layout_nl.mtx", banner + body + "\n"), ReadOptions{1, 3}, true);
  // Pattern entries with values (a warning with the file's first line and count).
  expect_same_read(dir.file("valued.mtx",
                            "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 5\n1 1\n"
                            "2 1 5\n3 3\n4 2 1 2\n4 4 7\n"),
                   ReadOptions{}, true);
  // No entries, and fewer lines than ranks.
  expect_same_read(dir.file("none.mtx", banner + "3 3 0\n"), ReadOptions{}, true);
  expect_same_read(dir.file("one.mtx", banner + "3 3 1\n2 3 9"), ReadOptions{}, true);
  expect_same_read(dir.file("array.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n"),
                   ReadOptions{}, false);
}

// The message a failed distributed read ends with, on every rank ("" when it did not fail).
std::string dist_read_error(const std::string& path, const ReadOptions& opt) {
  std::string msg;
  bool reported = false;
  try {
    (void)dist::read_distributed(comm(), path, opt);
  } catch (const dist::Failure& f) {
    msg = "exit " + std::to_string(f.code);
    if (f.report) {
      reported = true;
      try {
        std::rethrow_exception(f.report);
      } catch (const std::exception& e) {
        msg = e.what();
      }
    }
  }
  const int who = comm().allreduce(reported ? comm().rank() : comm().size(), Op::min);
  const int reporters = comm().allreduce(reported ? 1 : 0, Op::sum);
  EXPECT_LE(reporters, 1) << path;  // one message at most
  return who < comm().size() ? comm().bcast(msg, who) : msg;
}

TEST(DistRead, BadFixturesFailAsTheOneProcessReader) {
  int checked = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "tests/bad")) {
    const std::string path = e.path().string();
    if (path.ends_with("EXPECTED")) continue;
    std::string want = "(read)";
    try {
      (void)read_mtx(path);
    } catch (const InputError& err) {
      want = err.what();
    }
    EXPECT_EQ(dist_read_error(path, ReadOptions{}), want) << path;
    EXPECT_EQ(dist_read_error(path, ReadOptions{2, 5}), want) << path;
    ++checked;
  }
  EXPECT_GT(checked, 50);
  EXPECT_EQ(dist_read_error("/nonexistent/A.mtx", ReadOptions{}),
            "/nonexistent/A.mtx: cannot open: No such file or directory");
}

TEST(DistRead, CountsAgainstTheSizeLine) {
  const SharedDir dir;
  const std::string b = "%%MatrixMarket matrix coordinate real general\n";
  std::string many = b + "% c\n40 40 30\n", few = many;
  for (int i = 1; i <= 40; ++i) many += std::to_string(i) + " " + std::to_string(i) + " 1\n";
  for (int i = 1; i <= 20; ++i) few += std::to_string(i) + " " + std::to_string(i) + " 1\n";
  std::string both = many;  // an excess entry after a malformed one: the malformed one wins
  both.replace(both.find("\n25 25 1\n") + 1, 7, "25 x 1\n");
  for (const auto& [name, text] :
       {std::pair{"many.mtx", many}, std::pair{"few.mtx", few}, std::pair{"both.mtx", both}}) {
    const std::string path = dir.file(name, text);
    std::string want;
    try {
      (void)read_mtx(path);
    } catch (const InputError& err) {
      want = err.what();
    }
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(dist_read_error(path, ReadOptions{}), want);
  }
}

TEST(DistVector, GeneratedSliceIsMmgensVector) {
  for (const std::string kind : {"ones", "random", "range"}) {
    GenOptions o;
    o.kind = "vector";
    o.n = 1000;
    o.seed = 7;
    o.vector_kind = kind;
    const MtxMatrix v = generate(o);
    for (auto [b, e] : {std::pair<std::int64_t, std::int64_t>{0, 1000}, {333, 334}, {990, 1000}}) {
      const auto s = dist::generated_slice<double>(kind, 7, b, e);
      ASSERT_EQ(static_cast<std::int64_t>(s.size()), e - b);
      for (std::int64_t i = b; i < e; ++i) EXPECT_EQ(s[i - b], v.real[i]) << kind << " " << i;
    }
    const auto f = dist::generated_slice<std::complex<float>>(kind, 7, 10, 11);
    EXPECT_EQ(f[0], std::complex<float>(static_cast<float>(v.real[10]), 0.0f));
  }
}

TEST(DistVector, PerRankNames) {
  EXPECT_EQ(dist::per_rank_path("out/y.mtx", 3), "out/y.rank3.mtx");
  EXPECT_EQ(dist::per_rank_path("y.mtx.gz", 0), "y.rank0.mtx.gz");
  EXPECT_EQ(dist::per_rank_path("y", 12), "y.rank12.mtx");
  EXPECT_EQ(dist::index_path("out/y.mtx"), "out/y.index.json");
  EXPECT_EQ(dist::index_path("y.mtx.gz"), "y.index.json");
  EXPECT_EQ(dist::index_path("y"), "y.index.json");
}

}  // namespace
}  // namespace mm::test
