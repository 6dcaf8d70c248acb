// mmcheck spy: known patterns rasterised to known pixels; sizes within the limit; PNG round trip.
#include <gtest/gtest.h>
#include <png.h>

#include <stdexcept>
#include <string>

#include "analysis/png.hpp"
#include "analysis/spy.hpp"
#include "mm/mtx.hpp"

namespace mm::spy {
namespace {

constexpr std::uint8_t kWhite = 255, kBlack = 0, kFrame = 150;

MtxMatrix coo(std::int64_t rows, std::int64_t cols, Symmetry sym = Symmetry::general) {
  MtxMatrix m;
  m.header.field = Field::pattern;
  m.header.symmetry = sym;
  m.header.rows = rows;
  m.header.cols = cols;
  return m;
}
void add(MtxMatrix& m, std::int64_t i, std::int64_t j) {
  m.row.push_back(i);
  m.col.push_back(j);
  m.header.nnz = static_cast<std::int64_t>(m.row.size());
}

Options no_caption(int size, Shade shade = Shade::log) {
  Options o;
  o.size = size;
  o.caption = false;
  o.shade = shade;
  return o;
}

// The pixel of the plot at (x, y) (plot coordinates).
std::uint8_t plot_px(const Spy& s, int x, int y) {
  return s.image.at(s.plot_x + x, s.plot_y + y);
}

void expect_frame(const Spy& s) {
  for (int x = -1; x <= s.plot_w; ++x) {
    EXPECT_EQ(s.image.at(s.plot_x + x, s.plot_y - 1), kFrame) << x;
    EXPECT_EQ(s.image.at(s.plot_x + x, s.plot_y + s.plot_h), kFrame) << x;
  }
  for (int y = -1; y <= s.plot_h; ++y) {
    EXPECT_EQ(s.image.at(s.plot_x - 1, s.plot_y + y), kFrame) << y;
    EXPECT_EQ(s.image.at(s.plot_x + s.plot_w, s.plot_y + y), kFrame) << y;
  }
}

TEST(Spy, SmallIdentityGetsWholePixelsPerEntry) {
  MtxMatrix m = coo(5, 5);
  for (int i = 0; i < 5; ++i) add(m, i, i);
  const Spy s = draw(m, no_caption(52));  // 50 x 50 inside the frame: 10 pixels an entry
  EXPECT_EQ(s.cell, 10);
  EXPECT_EQ(s.image.width, 52);
  EXPECT_EQ(s.image.height, 52);
  EXPECT_EQ(s.plot_w, 50);
  EXPECT_EQ(s.plot_h, 50);
  EXPECT_EQ(s.entries, 5);
  expect_frame(s);
  for (int y = 0; y < 50; ++y)
    for (int x = 0; x < 50; ++x)
      ASSERT_EQ(plot_px(s, x, y), x / 10 == y / 10 ? kBlack : kWhite) << x << "," << y;
}

TEST(Spy, LargeIdentityIsShadedByBlocks) {
  MtxMatrix m = coo(3000, 3000);
  for (int i = 0; i < 3000; ++i) add(m, i, i);
  for (Shade shade : {Shade::log, Shade::fraction}) {
    const Spy s = draw(m, no_caption(1002, shade));  // 1000 pixels a side: 3 x 3 entries each
    EXPECT_EQ(s.cell, 0);
    EXPECT_EQ(s.plot_w, 1000);
    EXPECT_EQ(s.plot_h, 1000);
    // Every diagonal block holds 3 entries, the most of any: black on the log scale; a third
    // of its 9 positions: 0.25 + 0.75 / 3 = 0.5 dark on the fraction scale.
    const std::uint8_t diag = shade == Shade::log ? kBlack : 128;
    for (int y = 0; y < 1000; ++y)
      for (int x = 0; x < 1000; ++x)
        ASSERT_EQ(plot_px(s, x, y), x == y ? diag : kWhite) << x << "," << y;
  }
}

TEST(Spy, DenseBlockAndLogShades) {
  MtxMatrix m = coo(2000, 2000);
  for (int i = 0; i < 1000; ++i)
    for (int j = 0; j < 1000; ++j) add(m, i, j);
  add(m, 1500, 1500);                                  // one entry alone in its 4 x 4 block
  for (int i = 0; i < 4; ++i) add(m, 1600 + i, 1200);  // four in one block
  const Spy s = draw(m, no_caption(502));              // 500 pixels a side: 4 x 4 entries each
  ASSERT_EQ(s.plot_w, 500);
  EXPECT_EQ(s.entries, 1000005);
  for (int y = 0; y < 500; ++y)
    for (int x = 0; x < 500; ++x) {
      std::uint8_t want = x < 250 && y < 250 ? kBlack : kWhite;  // full blocks: 16 entries
      if (x == 375 && y == 375) want = 191;  // 1 of at most 16: a quarter dark, 255 * 0.75
      if (x == 300 && y == 400) want = 96;   // 4: log 4 / log 16 = 1/2, 0.625 dark
      ASSERT_EQ(plot_px(s, x, y), want) << x << "," << y;
    }
  // On the fraction scale: full blocks black too; 1 of 16 positions 0.25 + 0.75 / 16 dark,
  // 4 of 16 0.25 + 0.75 / 4.
  const Spy f = draw(m, no_caption(502, Shade::fraction));
  EXPECT_EQ(plot_px(f, 10, 10), kBlack);
  EXPECT_EQ(plot_px(f, 375, 375), 179);
  EXPECT_EQ(plot_px(f, 300, 400), 143);
}

TEST(Spy, EmptyMatrixIsAWhitePlot) {
  const Spy s = draw(coo(3, 4), no_caption(102));
  EXPECT_EQ(s.cell, 25);
  EXPECT_EQ(s.plot_w, 100);
  EXPECT_EQ(s.plot_h, 75);
  EXPECT_EQ(s.entries, 0);
  expect_frame(s);
  for (int y = 0; y < s.plot_h; ++y)
    for (int x = 0; x < s.plot_w; ++x) ASSERT_EQ(plot_px(s, x, y), kWhite);
}

TEST(Spy, ZeroByZeroIsTheCaptionAlone) {
  const Spy s = draw(coo(0, 0));
  EXPECT_EQ(s.plot_w, 0);
  EXPECT_EQ(s.plot_h, 0);
  ASSERT_GT(s.image.width, 0);
  ASSERT_GT(s.image.height, 0);
  EXPECT_LE(s.image.height, 40);  // one line of text
  int ink = 0;
  for (auto p : s.image.pixels) ink += p == kBlack;
  EXPECT_GT(ink, 50);  // "0 x 0   nnz = 0"
  const Spy bare = draw(coo(0, 5), no_caption(100));
  EXPECT_EQ(bare.image.width, 1);
  EXPECT_EQ(bare.image.height, 1);
}

TEST(Spy, SymmetricKindsAreDrawnExpanded) {
  MtxMatrix m = coo(3, 3, Symmetry::symmetric);
  add(m, 0, 0);
  add(m, 2, 1);                           // and (1, 2) by symmetry
  const Spy s = draw(m, no_caption(32));  // 30 pixels: 10 an entry
  EXPECT_EQ(s.entries, 3);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const bool on = (i == 0 && j == 0) || (i == 2 && j == 1) || (i == 1 && j == 2);
      EXPECT_EQ(plot_px(s, j * 10 + 5, i * 10 + 5), on ? kBlack : kWhite) << i << "," << j;
    }
}

TEST(Spy, ArrayFilesByTheirNonzeroValues) {
  // 3 x 3 symmetric array, lower triangle column by column: (1,1)=1 (2,1)=0 (3,1)=2 (2,2)=0
  // (3,2)=3 (3,3)=0.
  const MtxMatrix m =
      parse_mtx("%%MatrixMarket matrix array real symmetric\n3 3\n1\n0\n2\n0\n3\n0\n", "a");
  const Spy s = draw(m, no_caption(32));
  EXPECT_EQ(s.entries, 5);  // (1,1), (3,1), (1,3), (3,2), (2,3)
  const bool want[3][3] = {{true, false, true}, {false, false, true}, {true, true, false}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(plot_px(s, j * 10 + 5, i * 10 + 5), want[i][j] ? kBlack : kWhite) << i << "," << j;
}

TEST(Spy, AspectRatioKeptAndSizeNeverAbove) {
  const std::pair<std::int64_t, std::int64_t> shapes[] = {
      {1, 1},       {1, 10000}, {10000, 1}, {1000, 250}, {250, 1000}, {977, 977},
      {5000, 5000}, {479, 479}, {27, 51},   {3, 4},      {100000, 7}, {7, 100000}};
  for (int size : {32, 100, 1000, 1500}) {
    for (const auto& [r, c] : shapes) {
      SCOPED_TRACE(std::to_string(r) + " x " + std::to_string(c) + " size " + std::to_string(size));
      MtxMatrix m = coo(r, c);
      add(m, r - 1, c - 1);
      Options o;
      o.size = size;
      const Spy s = draw(m, o);
      EXPECT_LE(s.image.width, size);
      EXPECT_LE(s.image.height, size);
      ASSERT_GE(s.plot_w, 1);
      ASSERT_GE(s.plot_h, 1);
      // rows : cols within the rounding of one pixel on the shorter side.
      const double want = static_cast<double>(r) / static_cast<double>(c);
      const double got = static_cast<double>(s.plot_h) / s.plot_w;
      if (s.cell > 0) {
        EXPECT_DOUBLE_EQ(got, want);
      } else {
        const int shorter = std::min(s.plot_w, s.plot_h);
        if (shorter > 1) {
          EXPECT_NEAR(got, want, want / shorter + 1e-12);
        }
        // A matrix larger than the plot fills the size along its longer side.
        EXPECT_EQ(std::max(s.image.width, s.image.height), size);
      }
      EXPECT_EQ(plot_px(s, s.plot_w - 1, s.plot_h - 1), kBlack);  // the last entry's pixel
    }
  }
}

// Memory proportional to the picture: a trillion rows cost nothing.
TEST(Spy, HugeDimensionsSmallMemory) {
  MtxMatrix m = coo(1000000000000, 1000000000000);
  add(m, 0, 0);
  add(m, 999999999999, 999999999999);
  add(m, 500000000000, 0);
  const Spy s = draw(m);
  EXPECT_EQ(s.image.height, 1000);
  EXPECT_EQ(plot_px(s, 0, 0), kBlack);
  EXPECT_EQ(plot_px(s, s.plot_w - 1, s.plot_h - 1), kBlack);
  EXPECT_EQ(plot_px(s, 0, s.plot_h / 2), kBlack);
  EXPECT_EQ(plot_px(s, 1, 1), kWhite);
}

TEST(Spy, CaptionBelowThePlotInkOnlyThere) {
  MtxMatrix m = coo(40, 40);
  const Spy s = draw(m, Options{});  // empty: the only ink is the caption's
  EXPECT_EQ(s.cell, 24);             // (1000 - 2 - 22, the caption) / 40, whole pixels
  int ink_rows_lo = s.image.height, ink_rows_hi = -1;
  for (int y = 0; y < s.image.height; ++y)
    for (int x = 0; x < s.image.width; ++x)
      if (s.image.at(x, y) == kBlack) {
        ink_rows_lo = std::min(ink_rows_lo, y);
        ink_rows_hi = std::max(ink_rows_hi, y);
      }
  EXPECT_GT(ink_rows_lo, s.plot_y + s.plot_h);   // below the frame
  EXPECT_EQ(ink_rows_hi - ink_rows_lo + 1, 14);  // one line of 7-pixel glyphs at scale 2
  EXPECT_LT(ink_rows_hi, s.image.height);
}

TEST(Spy, SizeOutsideTheLimitsIsRefused) {
  Options o;
  o.size = kMinSize - 1;
  EXPECT_THROW(draw(coo(2, 2), o), std::invalid_argument);
  o.size = kMaxSize + 1;
  EXPECT_THROW(draw(coo(2, 2), o), std::invalid_argument);
}

// The encoder's bytes decode (libpng's reader) to the same pixels.
TEST(Png, RoundTrip) {
  MtxMatrix m = coo(300, 200);
  for (int i = 0; i < 200; ++i) add(m, i, i);
  const Spy s = draw(m, Options{});
  const std::string bytes = encode_png(s.image);
  ASSERT_GT(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  png_image p{};
  p.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_memory(&p, bytes.data(), bytes.size())) << p.message;
  EXPECT_EQ(static_cast<int>(p.width), s.image.width);
  EXPECT_EQ(static_cast<int>(p.height), s.image.height);
  p.format = PNG_FORMAT_GRAY;
  std::vector<std::uint8_t> px(PNG_IMAGE_SIZE(p));
  ASSERT_TRUE(png_image_finish_read(&p, nullptr, px.data(), 0, nullptr)) << p.message;
  EXPECT_EQ(px, s.image.pixels);
  EXPECT_THROW(encode_png(GrayImage{}), std::logic_error);
}

}  // namespace
}  // namespace mm::spy
