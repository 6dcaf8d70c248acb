// Writer: every corpus file written and read back bit-exactly, in plain text and gzip.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "mm/error.hpp"
#include "mm/io.hpp"
#include "mm/mtx.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

std::string read_all_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "mmtest.XXXXXX").string();
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp");
    path_ = t;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(path_), {}));
  }

 private:
  std::filesystem::path path_;
};

TEST(MtxRoundTrip, EveryCorpusFileBitExact) {
  TempDir dir;
  const auto files = test::corpus_files();
  ASSERT_GE(files.size(), 20u);
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const MtxMatrix a = read_mtx(f);
    for (const char* ext : {".mtx", ".mtx.gz"}) {
      const std::string out = dir / ("rt" + std::string(ext));
      write_mtx(out, a);
      const MtxMatrix b = read_mtx(out);
      test::expect_same(a, b);
      // Writing what was read gives the same bytes again: the form is canonical.
      const std::string again = dir / ("rt2" + std::string(ext));
      write_mtx(again, b);
      EXPECT_EQ(read_all(out), read_all(again));
    }
  }
}

TEST(MtxRoundTrip, ExtremeDoublesSurvive) {
  MtxMatrix m;
  m.header.format = Format::array;
  m.header.rows = 9;
  m.header.cols = 1;
  m.header.nnz = 9;
  m.real = {0.1,
            -0.0,
            5e-324,
            1.7976931348623157e308,
            std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity(),
            1.0 / 3.0,
            123456789012345678.0,
            2.2250738585072014e-308};
  TempDir dir;
  write_mtx(dir / "x.mtx", m);
  const MtxMatrix b = read_mtx(dir / "x.mtx");
  test::expect_same(m, b);
  EXPECT_TRUE(std::signbit(b.real[1]));
}

TEST(MtxRoundTrip, SymmetryAndFieldKept) {
  const MtxMatrix a = read_mtx(test::corpus_dir() + "/skew_int8.mtx");
  TempDir dir;
  write_mtx(dir / "s.mtx", a);
  const std::string text = read_all(dir / "s.mtx");
  EXPECT_EQ(text.rfind("%%MatrixMarket matrix coordinate integer skew-symmetric\n", 0), 0u);
  EXPECT_NE(text.find("\n6 6 10\n4 1 -12\n"), std::string::npos);
}

TEST(OutputStream, UncommittedLeavesNothingAndTargetUntouched) {
  TempDir dir;
  const std::string target = dir / "out.mtx";
  {
    OutputStream o(target);
    o.write("first");
    o.commit();
  }
  {
    OutputStream o(target);
    o.write("second, never committed");
  }
  EXPECT_EQ(read_all(target), "first");
  EXPECT_EQ(dir.entries(), 1u);  // no temporary file left
}

TEST(OutputStream, GzipIsCompressedAndReadBack) {
  TempDir dir;
  const std::string target = dir / "out.mtx.gz";
  std::string big(1 << 20, 'a');
  {
    OutputStream o(target);
    o.write(big);
    o.commit();
  }
  EXPECT_LT(std::filesystem::file_size(target), big.size() / 10);
  EXPECT_EQ(read_all(target), big);
}

// zlib's gzread returns what it decoded from gzip data cut short and then a plain end: the
// reader must refuse such a file wherever it is cut (in the gzip header, the data, the trailer).
TEST(InputStream, TruncatedGzipIsBadInputWhereverItIsCut) {
  TempDir dir;
  const std::string whole = dir / "whole.mtx.gz";
  {
    OutputStream o(whole);
    o.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 2.5\n3 2 1.23456789\n");
    o.commit();
  }
  const std::string bytes = read_all_bytes(whole);
  ASSERT_GT(bytes.size(), 20u);
  for (std::size_t keep = 2; keep < bytes.size(); ++keep) {
    SCOPED_TRACE(keep);
    const std::string cut = dir / "cut.mtx.gz";
    {
      std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(keep));
    }
    EXPECT_THROW(read_mtx(cut), InputError);
  }
}

TEST(InputStream, MissingFileIsBadInput) {
  try {
    InputStream in("/nonexistent/x.mtx");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.mtx: cannot open"), std::string::npos);
  }
}

}  // namespace
}  // namespace mm
