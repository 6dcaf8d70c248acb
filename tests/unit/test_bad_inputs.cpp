// Bad inputs: each tests/bad fixture refused at its line (strict or not); each tests/warn
// fixture read with one warning, refused when strict; the corpus reads alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mm/error.hpp"
#include "mm/mtx.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

std::string bad_dir() {
  return test::source_dir() + "/tests/bad";
}

struct Expected {
  std::string file;  // name inside tests/bad
  std::int64_t line = 0;
  std::string fragment;
};

// tests/bad/EXPECTED: FILE<TAB>LINE<TAB>SUBSTRING per line; '#' lines are comments.
std::vector<Expected> expected() {
  std::ifstream in(bad_dir() + "/EXPECTED");
  EXPECT_TRUE(in) << "cannot open " << bad_dir() << "/EXPECTED";
  std::vector<Expected> v;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto t1 = line.find('\t');
    const auto t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) {
      ADD_FAILURE() << "malformed EXPECTED line: " << line;
      continue;
    }
    v.push_back(
        {line.substr(0, t1), std::stoll(line.substr(t1 + 1, t2 - t1 - 1)), line.substr(t2 + 1)});
  }
  return v;
}

// How an error names PATH and LINE: "PATH:LINE: ", or "PATH: " for line 0 (a read error).
std::string where(const std::string& path, std::int64_t line) {
  return line > 0 ? path + ":" + std::to_string(line) + ": " : path + ": ";
}

// The error message of reading PATH, or "" when it reads without error.
std::string error_of(const std::string& path, const ReadOptions& opt) {
  try {
    read_mtx(path, opt);
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input) << path;
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": not an InputError: " << e.what();
    return std::string("not an InputError: ") + e.what();
  }
  return "";
}

TEST(BadInputs, ThereAreFixturesForEveryRule) {
  // 6 files from the shared corpus plus at least 30 of our own.
  EXPECT_GE(expected().size(), 36u);
}

TEST(BadInputs, EveryFixtureIsListedInExpected) {
  std::set<std::string> listed;
  for (const auto& e : expected()) {
    EXPECT_TRUE(listed.insert(e.file).second) << e.file << " listed twice";
    EXPECT_TRUE(std::filesystem::is_regular_file(bad_dir() + "/" + e.file))
        << e.file << " listed but missing";
  }
  for (const auto& d : std::filesystem::directory_iterator(bad_dir())) {
    const std::string name = d.path().filename().string();
    if (name == "EXPECTED") continue;
    EXPECT_TRUE(listed.count(name))
        << "tests/bad/" << name << " is not listed in tests/bad/EXPECTED";
  }
}

TEST(BadInputs, EveryFixtureIsRefusedAtItsLine) {
  for (const auto& e : expected()) {
    const std::string path = bad_dir() + "/" + e.file;
    const std::string msg = error_of(path, ReadOptions{1, std::size_t{1} << 20});
    if (msg.empty()) {
      ADD_FAILURE() << e.file << " was accepted";
      continue;
    }
    const std::string head = where(path, e.line);
    EXPECT_EQ(msg.substr(0, head.size()), head) << e.file << ": " << msg;
    EXPECT_NE(msg.find(e.fragment), std::string::npos)
        << e.file << ": '" << msg << "' lacks '" << e.fragment << "'";
  }
}

TEST(BadInputs, SameErrorForEveryThreadCountAndChunkSize) {
  for (const auto& e : expected()) {
    const std::string path = bad_dir() + "/" + e.file;
    const std::string want = error_of(path, ReadOptions{1, std::size_t{1} << 20});
    for (int threads = 1; threads <= 4; ++threads) {
      for (std::size_t chunk :
           {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{1} << 20}) {
        EXPECT_EQ(error_of(path, ReadOptions{threads, chunk}), want)
            << e.file << " threads=" << threads << " chunk=" << chunk;
      }
    }
  }
}

TEST(BadInputs, EveryFixtureIsRefusedWhenStrictToo) {
  for (const auto& e : expected()) {
    const std::string path = bad_dir() + "/" + e.file;
    ReadOptions strict{1, std::size_t{1} << 20};
    strict.strict = true;
    const std::string msg = error_of(path, strict);
    EXPECT_EQ(msg.substr(0, where(path, e.line).size()), where(path, e.line))
        << e.file << ": " << msg;
  }
}

// tests/warn: files peers read that we read with one warning, refused when strict.
struct Warned {
  std::string file;
  std::int64_t line = 0, count = 0;
  std::string strict_fragment;
};

std::vector<Warned> warned() {
  const std::string dir = test::source_dir() + "/tests/warn";
  std::ifstream in(dir + "/EXPECTED");
  EXPECT_TRUE(in) << "cannot open " << dir << "/EXPECTED";
  std::vector<Warned> v;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
    if (f.size() != 4) {
      ADD_FAILURE() << "malformed tests/warn/EXPECTED line: " << line;
      continue;
    }
    v.push_back({dir + "/" + f[0], std::stoll(f[1]), std::stoll(f[2]), f[3]});
  }
  return v;
}

TEST(WarnInputs, EveryFixtureIsListed) {
  std::set<std::string> listed;
  for (const auto& w : warned()) listed.insert(w.file);
  EXPECT_GE(listed.size(), 2u);
  for (const auto& d : std::filesystem::directory_iterator(test::source_dir() + "/tests/warn")) {
    if (d.path().filename() == "EXPECTED") continue;
    EXPECT_TRUE(listed.count(d.path().string())) << d.path() << " not in tests/warn/EXPECTED";
  }
}

TEST(WarnInputs, ReadWithOneWarningForEveryThreadCountAndChunkSize) {
  for (const auto& w : warned()) {
    for (int threads : {1, 2, 4}) {
      for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{1} << 20}) {
        SCOPED_TRACE(w.file + " threads=" + std::to_string(threads) +
                     " chunk=" + std::to_string(chunk));
        MtxMatrix m;
        ASSERT_NO_THROW(m = read_mtx(w.file, ReadOptions{threads, chunk}));
        ASSERT_EQ(m.read_warnings.size(), 1u);
        EXPECT_EQ(m.read_warnings[0].kind, "pattern_values");
        EXPECT_EQ(m.read_warnings[0].first_line, w.line);
        EXPECT_EQ(m.read_warnings[0].count, w.count);
        EXPECT_EQ(m.row.size(), static_cast<std::size_t>(m.header.nnz));
      }
    }
  }
}

TEST(WarnInputs, RefusedAtTheFirstLineWhenStrict) {
  for (const auto& w : warned()) {
    ReadOptions strict{2, 7};
    strict.strict = true;
    const std::string msg = error_of(w.file, strict);
    const std::string head = w.file + ":" + std::to_string(w.line) + ": ";
    EXPECT_EQ(msg.substr(0, head.size()), head) << msg;
    EXPECT_NE(msg.find(w.strict_fragment), std::string::npos) << msg;
  }
}

// A bad line anywhere in a file bigger than the reader's 64 KiB window, near the window
// edges included, is named by its line number.
TEST(BadInputs, BadLineAnywhereInALongFile) {
  const int kEntries = 12000;  // ~200 KB of text: three or more windows
  std::string head = "%%MatrixMarket matrix coordinate real general\n% long\n100 100 " +
                     std::to_string(kEntries) + "\n";
  std::vector<std::string> lines;
  for (int k = 0; k < kEntries; ++k)
    lines.push_back(std::to_string(k % 100 + 1) + " " + std::to_string(k * 7 % 100 + 1) +
                    " 0.125000000");
  // Entry lines start at line 4; pick lines around where 64 KiB boundaries fall, and the ends.
  std::vector<int> bad_lines = {4, 5, kEntries + 3};
  std::size_t bytes = head.size();
  int line_no = 4;
  for (const auto& l : lines) {
    const std::size_t next = bytes + l.size() + 1;
    if (bytes / 65536 != next / 65536) {
      bad_lines.push_back(line_no - 1);
      bad_lines.push_back(line_no);
      bad_lines.push_back(line_no + 1);
    }
    bytes = next;
    ++line_no;
  }
  ASSERT_GE(bad_lines.size(), 9u);
  for (int bad : bad_lines) {
    std::string text = head;
    for (int k = 0; k < kEntries; ++k)
      text += (k + 4 == bad ? std::string("1 1 oops") : lines[k]) + "\n";
    for (int threads : {1, 3}) {
      for (std::size_t chunk : {std::size_t{1}, std::size_t{64}, std::size_t{1} << 20}) {
        try {
          parse_mtx(text, "long.mtx", ReadOptions{threads, chunk});
          ADD_FAILURE() << "accepted, bad line " << bad;
        } catch (const InputError& e) {
          EXPECT_STREQ(
              e.what(),
              ("long.mtx:" + std::to_string(bad) + ": expected a number, found 'oops'").c_str())
              << "threads=" << threads << " chunk=" << chunk;
        }
      }
    }
  }
}

// Shape of each corpus file as its size line gives it (array nnz: stored values).
struct Shape {
  std::int64_t rows, cols, nnz;
};
const std::map<std::string, Shape>& corpus_shapes() {
  static const std::map<std::string, Shape> m = {
      {"494_bus.mtx", {494, 494, 1080}},
      {"LFAT5.mtx", {14, 14, 30}},
      {"Pd.mtx", {8081, 8081, 13036}},
      {"bayer10.mtx", {13436, 13436, 94926}},
      {"bcsstk13.mtx", {2003, 2003, 42943}},
      {"c.mtx", {3, 3, 5}},
      {"cage5.mtx", {37, 37, 233}},
      {"comments_west0067.mtx", {67, 67, 295}},
      {"complex.mtx", {3, 3, 9}},
      {"cryg2500.mtx", {2500, 2500, 12349}},
      {"dwt_992.mtx", {992, 992, 8868}},
      {"empty.mtx", {3, 4, 0}},
      {"full.mtx", {3, 3, 9}},
      {"full_symmetric.mtx", {4, 4, 10}},
      {"impcol_a.mtx", {207, 207, 572}},
      {"jagmesh7.mtx", {1138, 1138, 4294}},
      {"karate.mtx", {34, 34, 78}},
      {"lp_afiro.mtx", {27, 51, 102}},
      {"pts5ldd03.mtx", {161, 161, 745}},
      {"skew_fp64.mtx", {6, 6, 10}},
      {"skew_int8.mtx", {6, 6, 10}},
      {"test_FW_1000.mtx", {1000, 1000, 3996}},
      {"west0067.mtx", {67, 67, 294}},
      {"west0479.mtx", {479, 479, 1910}},
      {"young1c.mtx", {841, 841, 4089}},
      {"zenios.mtx", {2873, 2873, 15032}},
  };
  return m;
}

TEST(CorpusRead, EveryFileReadsWithItsDeclaredShape) {
  const auto files = test::corpus_files();
  EXPECT_EQ(files.size(), corpus_shapes().size());
  for (const auto& path : files) {
    const std::string name = std::filesystem::path(path).filename().string();
    MtxMatrix m;
    ASSERT_NO_THROW(m = read_mtx(path, ReadOptions{1, std::size_t{1} << 20})) << path;
    const auto it = corpus_shapes().find(name);
    ASSERT_NE(it, corpus_shapes().end()) << "no shape recorded for " << name;
    EXPECT_EQ(m.header.rows, it->second.rows) << name;
    EXPECT_EQ(m.header.cols, it->second.cols) << name;
    EXPECT_EQ(m.header.nnz, it->second.nnz) << name;
    const auto n = static_cast<std::size_t>(m.header.nnz);
    const bool coo = m.header.format == Format::coordinate;
    EXPECT_EQ(m.row.size(), coo ? n : 0) << name;
    EXPECT_EQ(m.col.size(), coo ? n : 0) << name;
    for (std::size_t k = 0; k < m.row.size(); ++k) {
      ASSERT_TRUE(m.row[k] >= 0 && m.row[k] < m.header.rows) << name << " entry " << k;
      ASSERT_TRUE(m.col[k] >= 0 && m.col[k] < m.header.cols) << name << " entry " << k;
    }
  }
}

TEST(CorpusRead, SameMatrixForEveryThreadCountAndChunkSize) {
  for (const auto& path : test::corpus_files()) {
    const MtxMatrix want = read_mtx(path, ReadOptions{1, std::size_t{1} << 20});
    for (int threads = 1; threads <= 4; ++threads) {
      for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{4096},
                                std::size_t{1} << 20}) {
        SCOPED_TRACE(path + " threads=" + std::to_string(threads) +
                     " chunk=" + std::to_string(chunk));
        MtxMatrix got;
        ASSERT_NO_THROW(got = read_mtx(path, ReadOptions{threads, chunk}));
        test::expect_same(got, want);
      }
    }
  }
}

// A few values read from the files by hand, so the reader is checked against the text.
TEST(CorpusRead, KnownValues) {
  const MtxMatrix c = read_mtx(test::corpus_dir() + "/c.mtx");
  EXPECT_EQ(c.header.field, Field::complex);
  EXPECT_EQ(c.header.symmetry, Symmetry::hermitian);
  EXPECT_EQ(c.row, (std::vector<std::int64_t>{0, 2, 1, 2, 2}));
  EXPECT_EQ(c.col, (std::vector<std::int64_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(c.real, (std::vector<double>{1, 2, 1, 3, 42}));
  EXPECT_EQ(c.imag, (std::vector<double>{0, -1, 0, 0, 0}));
  const MtxMatrix f = read_mtx(test::corpus_dir() + "/full.mtx");
  EXPECT_EQ(f.header.format, Format::array);
  EXPECT_EQ(f.real, (std::vector<double>{.646, .709, .754, .276, .679, .655, .162, .118, .498}));
  const MtxMatrix s = read_mtx(test::corpus_dir() + "/skew_int8.mtx");
  EXPECT_EQ(s.header.symmetry, Symmetry::skew_symmetric);
  EXPECT_EQ(s.integer, (std::vector<std::int64_t>{-12, 30, -37, 72, 78, -77, 0, 70, 125, -18}));
  const MtxMatrix e = read_mtx(test::corpus_dir() + "/empty.mtx");
  EXPECT_TRUE(e.row.empty() && e.col.empty() && e.real.empty());
}

}  // namespace
}  // namespace mm
