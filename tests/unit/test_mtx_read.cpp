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

// SuiteSparse, SciPy and fast_matrix_market read a value on a pattern entry line; so do we,
// dropping it with one warning for the file however many lines carry one.
TEST(MtxRead, PatternLinesWithValuesReadLikeThePlainFile) {
  const std::string plain =
      "%%MatrixMarket matrix coordinate pattern general\n4 5 5\n1 1\n2 5\n% c\n3 3\n4 1\n4 4\n";
  const std::string valued =
      "%%MatrixMarket matrix coordinate pattern general\n4 5 5\n1 1\n2 5 1.5\n% c\n3 3 -7\n"
      "4 1\t2.5e-3  -1 \r\n4 4 +0.0\n";
  const MtxMatrix want = parse_mtx(plain, "plain");
  EXPECT_TRUE(want.read_warnings.empty());
  for (int threads : {1, 3}) {
    for (std::size_t chunk : {std::size_t{1}, std::size_t{5}, std::size_t{1} << 20}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " chunk=" + std::to_string(chunk));
      const MtxMatrix got = parse_mtx(valued, "v.mtx", ReadOptions{threads, chunk});
      test::expect_same(got, want);  // the values ignored: no value arrays at all
      EXPECT_TRUE(got.real.empty() && got.imag.empty() && got.integer.empty());
      ASSERT_EQ(got.read_warnings.size(), 1u);  // once for the file, not once a line
      const ReadWarning& w = got.read_warnings[0];
      EXPECT_EQ(w.kind, "pattern_values");
      EXPECT_EQ(w.count, 4);
      EXPECT_EQ(w.first_line, 4);
      EXPECT_EQ(w.first_entry, 1);
      EXPECT_EQ(w.message,
                "4 entry lines of a pattern file carry a value after the indices, ignored");
    }
  }
}

TEST(MtxRead, ManyValuedPatternLinesGiveOneWarning) {
  std::string text = "%%MatrixMarket matrix coordinate pattern symmetric\n% big\n3000 3000 3000\n";
  for (int i = 1; i <= 3000; ++i)
    text += std::to_string(i) + " " + std::to_string((i + 1) / 2) + (i % 3 ? " 1\n" : "\n");
  const MtxMatrix m = parse_mtx(text, "big", ReadOptions{2, 100});
  ASSERT_EQ(m.read_warnings.size(), 1u);
  EXPECT_EQ(m.read_warnings[0].count, 2000);
  EXPECT_EQ(m.read_warnings[0].first_line, 4);
  EXPECT_EQ(m.row.size(), 3000u);
  EXPECT_EQ(m.row[2999], 2999);
  EXPECT_EQ(m.col[2999], 1499);
}

TEST(MtxRead, StrictRefusesAValueOnAPatternLine) {
  ReadOptions strict;
  strict.strict = true;
  EXPECT_NO_THROW(
      parse_mtx("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", "ok", strict));
  try {
    parse_mtx("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 2 1.0\n", "A.mtx",
              strict);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "A.mtx:4: expected 2 tokens (row col) on an entry line, found 3 (strict reading: "
                 "a pattern file stores no values)");
  }
}

// What is not a value stays refused: a token that is not a number (peers skip it unread), more
// numbers than any field has, and whatever was wrong before (indices, too few tokens).
TEST(MtxRead, PatternLineWithWhatIsNotAValueIsRefused) {
  const std::string head = "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n";
  const std::pair<const char*, const char*> cases[] = {
      {"2 2 abc", "t:3: expected a number (a value, ignored in a pattern file), found 'abc'"},
      {"2 2 1.0x", "t:3: expected a number (a value, ignored in a pattern file), found '1.0x'"},
      {"2 2 1 abc", "t:3: expected a number (a value, ignored in a pattern file), found 'abc'"},
      {"2 2 1 2 3",
       "t:3: expected 2 tokens (row col) on an entry line, or 3 or 4 with a value that is "
       "ignored, found 5"},
      {"4 2 1", "t:3: row index 4 out of range 1..3"},
      {"2 2.0 1", "t:3: expected an integer column index, found '2.0'"},
      {"2", "t:3: expected 2 tokens (row col) on an entry line, found 1"},
  };
  for (const auto& [line, want] : cases) {
    try {
      parse_mtx(head + line + "\n", "t");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(), want) << line;
    }
  }
  // Other fields keep their token counts: a real file with a fourth token is refused.
  EXPECT_THROW(parse_mtx("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1 2\n", "t"),
               InputError);
}

}  // namespace
}  // namespace mm
