// Reader: every feature of the format, on small hand-written files.
#include <gtest/gtest.h>

#include "mm/error.hpp"
#include "mm/mtx.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

TEST(MtxRead, CoordinateRealGeneral) {
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n% c1\n2 3 2\n1 1 1.5\n2 3 -2e3\n", "t");
  EXPECT_EQ(m.header.rows, 2);
  EXPECT_EQ(m.header.cols, 3);
  EXPECT_EQ(m.header.nnz, 2);
  EXPECT_EQ(m.header.comments, std::vector<std::string>{" c1"});
  EXPECT_EQ(m.row, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(m.col, (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(m.real, (std::vector<double>{1.5, -2000.0}));
}

TEST(MtxRead, BannerWordsCaseInsensitiveAndDouble) {
  auto m = parse_mtx("%%matrixmarket MATRIX Coordinate DOUBLE General\n1 1 1\n1 1 3\n", "t");
  EXPECT_EQ(m.header.field, Field::real);
  EXPECT_EQ(m.real, std::vector<double>{3.0});
}

TEST(MtxRead, CrlfTabsBlankLinesAndExtraSpaces) {
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate integer general\r\n%x\r\n\r\n  2\t2   2 \r\n\r\n 1\t2  "
      "-7\r\n\n2 1 +4\t\r\n",
      "t");
  EXPECT_EQ(m.integer, (std::vector<std::int64_t>{-7, 4}));
  EXPECT_EQ(m.row, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(m.col, (std::vector<std::int64_t>{1, 0}));
}

TEST(MtxRead, NoFinalNewline) {
  auto m = parse_mtx("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n3 2", "t");
  EXPECT_EQ(m.row, (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(m.col, (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(m.real.empty());
}

TEST(MtxRead, ArrayComplex) {
  auto m = parse_mtx("%%MatrixMarket matrix array complex general\n2 1\n1 2\n-3 .5\n", "t");
  EXPECT_EQ(m.header.nnz, 2);
  EXPECT_TRUE(m.row.empty());
  EXPECT_EQ(m.real, (std::vector<double>{1, -3}));
  EXPECT_EQ(m.imag, (std::vector<double>{2, 0.5}));
}

TEST(MtxRead, SixtyFourBitSizes) {
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n5000000000 6000000000 1\n4999999999 "
      "6000000000 1\n",
      "t");
  EXPECT_EQ(m.header.rows, 5000000000LL);
  EXPECT_EQ(m.row[0], 4999999998LL);
  EXPECT_EQ(m.col[0], 5999999999LL);
}

TEST(MtxRead, ErrorsNameFileAndLine) {
  try {
    parse_mtx("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 1\n", "A.mtx");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "A.mtx:4: row index 3 out of range 1..2");
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
}

}  // namespace
}  // namespace mm
