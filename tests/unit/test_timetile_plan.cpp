// The time-tiled sweep's launch shapes (kernels/cuda/timetile_plan.hpp, host code, tested
// everywhere): the tiles' shape against the registers and shared memory, where they start and
// what they write along x and y, and how the blocks share the columns' planes.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/timetile_plan.hpp"
#include "jacobi.hpp"
#include "mm/error.hpp"

namespace mm {
namespace {

TEST(TimeTile, LevelsAndRowsFitTheRegistersAndSharedMemory) {
  EXPECT_EQ(stencil_time_tile_max(8), 4);
  EXPECT_EQ(stencil_time_tile_max(4), 8);
  EXPECT_GE(stencil_time_tile_default(), 1);
  EXPECT_LE(stencil_time_tile_default(), 4);  // double's most, and so single's too
  for (const std::size_t bytes : {std::size_t{4}, std::size_t{8}})
    for (int l = 1; l <= timetile::max_levels(bytes); ++l)
      for (const bool even : {false, true}) {
        const timetile::Shape s = timetile::shape(bytes, l, even);
        const std::string what = std::to_string(bytes) + " " + std::to_string(l) + " " +
                                 std::to_string(static_cast<int>(even));
        EXPECT_TRUE(s.points == 1 || s.points == 2) << what;
        // W = 2 at the same levels whatever N; 4 to 8 points a thread, 512 threads a block of
        // 64 x H points.
        EXPECT_EQ(s.points, timetile::shape(bytes, l, !even).points) << what;
        EXPECT_GE(s.points * s.rows, 4) << what;
        EXPECT_LE(s.points * s.rows, 8) << what;
        EXPECT_EQ(s.threads_x() * s.threads_y(), timetile::kThreads) << what;
        EXPECT_EQ(s.tile_y(), timetile::kThreads / timetile::kTileX * s.points * s.rows) << what;
        // The tile writes at least 16 of its rows.
        EXPECT_GE(s.tile_y() - 2 * l, 16) << what;
        // An H100's or H200's 227 KB of shared memory a block, with room for the reduction's.
        EXPECT_LE(timetile::shared_bytes(bytes, l, even), std::size_t{226} * 1024) << what;
        // Pairs start on even x (aligned in memory where N is even): every tile's first point
        // is a multiple of the points it writes.
        if (s.points == 2) {
          for (std::int64_t b = 0; b < 5; ++b)
            EXPECT_EQ(timetile::x_axis(bytes, l).start(b) % 2, 0) << what;
        }
      }
  // Double at 2 levels: one point a thread, 64 x 64 tiles, 60 x 60 written, two buffers of two
  // 66 x 66 planes; at 4 levels two points a thread, 64 x 48 tiles with N even (two buffers of
  // four 68 x 50 planes), 64 x 32 with N odd.
  EXPECT_EQ(timetile::shape(8, 2, true).points, 1);
  EXPECT_EQ(timetile::shape(8, 2, true).rows, 8);
  EXPECT_EQ(timetile::shared_bytes(8, 2, false), std::size_t{2 * 2 * 66 * 66 * 8});
  EXPECT_EQ(timetile::shape(8, 4, true).points, 2);
  EXPECT_EQ(timetile::shape(8, 4, true).rows, 3);
  EXPECT_EQ(timetile::shape(8, 4, false).rows, 2);
  EXPECT_EQ(timetile::shared_bytes(8, 4, true), std::size_t{2 * 4 * 50 * 68 * 8});
  EXPECT_EQ(timetile::shared_bytes(8, 4, false), std::size_t{2 * 4 * 34 * 68 * 8});
  // Single at 4 levels: two points a thread in 4 rows (64 x 64 tiles).
  EXPECT_EQ(timetile::shape(4, 4, true).points, 2);
  EXPECT_EQ(timetile::shape(4, 4, false).tile_y(), 64);
}

// Every plane of every column marched by exactly one block, as the kernel at 4 levels walks
// the Split (for_each_share), under the chunks and the even split alike; the blocks' grid.
void expect_split_covers(const timetile::TileLaunch& l, std::int64_t m, const std::string& what) {
  const std::int64_t columns = l.gx * l.gy;
  std::vector<int> seen(static_cast<std::size_t>(columns * m), 0);
  std::int64_t segments = 0, most = 0;
  for (std::int64_t b = 0; b < l.blocks(); ++b) {
    std::int64_t steps = 0;  // the block's, as march_column makes them
    timetile::for_each_share(l.split, b, m, [&](std::int64_t c, std::int64_t z0, std::int64_t z1) {
      ASSERT_GE(c, 0) << what;
      ASSERT_LT(c, columns) << what;
      ASSERT_GE(z0, 1) << what;
      ASSERT_LT(z0, z1) << what;
      ASSERT_LE(z1, m + 1) << what;
      for (std::int64_t z = z0; z < z1; ++z) ++seen[static_cast<std::size_t>(c * m + z - 1)];
      ++segments;
      steps += timetile::segment_steps(z0, z1, l.levels);
    });
    most = std::max(most, steps);
  }
  for (std::size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i], 1) << what << " column " << i / m << " plane " << 1 + i % m;
  if (l.even()) {
    EXPECT_EQ(l.gz, 0) << what;
    EXPECT_LE(most, timetile::even_steps(l.chunk(), l.levels)) << what;
  } else {
    EXPECT_EQ(segments, columns * l.gz) << what;  // one chunk a block
    EXPECT_EQ(l.blocks(), columns * l.gz) << what;
  }
}

TEST(TimeTile, EvenSplitSharesThePlanes) {
  for (const std::size_t bytes : {std::size_t{8}, std::size_t{4}})
    for (const std::int64_t n : {3, 4, 5, 17, 64, 130, 200, 256, 257, 384, 768})
      for (const std::int64_t resident : {1, 7, 132})
        for (const int split : {0, 1, 2}) {
          const std::string what = std::to_string(bytes) + " bytes N=" + std::to_string(n) +
                                   " resident " + std::to_string(resident) + " split " +
                                   std::to_string(split);
          const timetile::TileLaunch l =
              timetile::plan(heated_room(3, n), bytes, 4, 0, resident, split);
          const std::int64_t m = n - 2, columns = l.gx * l.gy;
          const bool fewer =
              timetile::even_steps(timetile::even_share(columns, resident, m, 4), 4) <
              timetile::chunk_steps(columns, resident, m, 4,
                                    timetile::chunks(columns, resident, m, 4, 0));
          EXPECT_EQ(l.even(), split == 2 || (split == 0 && fewer)) << what;
          if (l.even()) {
            EXPECT_LE(l.blocks(), resident) << what;
          }
          expect_split_covers(l, n - 2, what);
        }
  // The code's choice: the even split where it makes fewer steps. Double at N = 384, 132 blocks
  // at once: 7 x 10 tiles, the chunks 7 of 55 planes (490 blocks, 4 waves of 63 steps); even, 132
  // shares of 206 slots of the 70 columns' 382 + 5, at most 206 + 8 steps.
  timetile::TileLaunch l = timetile::plan(heated_room(3, 384), 8, 4, 0, 132);
  EXPECT_TRUE(l.even());
  EXPECT_EQ(l.split.stride, 382 + 5);
  EXPECT_EQ(l.chunk(), 206);
  EXPECT_EQ(l.blocks(), 132);
  EXPECT_EQ(timetile::chunk_steps(70, 132, 382, 4, 7), 4 * (55 + 8));
  EXPECT_EQ(timetile::even_steps(l.chunk(), 4), 206 + 8);
  // N = 256: 5 x 7 tiles of 254 planes; 69 slots a block and at most 77 steps, where equal
  // shares of the planes alone (68) made up to 81 in the blocks reaching into a second column.
  l = timetile::plan(heated_room(3, 256), 8, 4, 0, 132);
  EXPECT_TRUE(l.even());
  EXPECT_EQ(l.gx * l.gy, 35);
  EXPECT_EQ(l.chunk(), 69);
  expect_split_covers(l, 254, "N = 256");
  // At N = 512, 9 x 13 tiles: with 132 blocks at once, one chunk a column (117 blocks, 510 + 8
  // steps) leaves 15 multiprocessors idle, and the even split makes 457 + 8 steps; with 117 at
  // once the chunks take one wave, fewer steps than the shares' 515 + 8: the chunks.
  l = timetile::plan(heated_room(3, 512), 8, 4, 0, 132);
  EXPECT_TRUE(l.even());
  EXPECT_EQ(l.chunk(), 457);
  l = timetile::plan(heated_room(3, 512), 8, 4, 0, 117);
  EXPECT_FALSE(l.even());
  EXPECT_EQ(l.gz, 1);
  // Chunks requested, or fewer levels: the chunks.
  EXPECT_FALSE(timetile::plan(heated_room(3, 384), 8, 4, 7, 132).even());
  EXPECT_EQ(timetile::plan(heated_room(3, 384), 8, 4, 7, 132).gz, 7);
  EXPECT_TRUE(timetile::plan(heated_room(3, 384), 8, 4, 7, 132, 2).even());
  EXPECT_FALSE(timetile::plan(heated_room(3, 384), 8, 3, 0, 132, 2).even());
  EXPECT_FALSE(timetile::plan(heated_room(3, 384), 4, 2, 0, 132, 2).even());
}

TEST(TimeTile, PlanCoversTheRoom) {
  // N = 512 in double at 2 levels, 132 blocks at once: 9 x 9 tiles of 60 x 60 points; the
  // fewest steps: 8 chunks of 64 planes (648 blocks, 5 waves of 68 steps).
  timetile::TileLaunch l = timetile::plan(heated_room(3, 512), 8, 2, 0, 132);
  EXPECT_EQ(l.out_x, 60);
  EXPECT_EQ(l.out_y, 60);
  EXPECT_EQ(l.gx, 9);
  EXPECT_EQ(l.gy, 9);
  EXPECT_EQ(l.gz, 8);
  EXPECT_EQ(l.chunk(), 64);
  EXPECT_EQ(l.gz, timetile::chunks(81, 132, 510, 2, 0));
  EXPECT_EQ(l.chunk(), (510 + l.gz - 1) / l.gz);
  EXPECT_GE(l.gz * l.chunk(), 510);
  EXPECT_LT((l.gz - 1) * l.chunk(), 510);
  EXPECT_NEAR(l.read_per_written(), 64.0 * 64 / (60 * 60), 1e-12);
  // Requested chunks, at most the planes; the rule's choice minimises waves * steps.
  EXPECT_EQ(timetile::plan(heated_room(3, 512), 8, 2, 7, 132).gz, 7);
  EXPECT_EQ(timetile::plan(heated_room(3, 12), 8, 2, 100, 132).gz, 10);
  for (std::int64_t c = 1; c <= 510; ++c) {
    const std::int64_t best = timetile::chunks(81, 132, 510, 2, 0);
    const auto steps = [](std::int64_t k) {
      return (81 * k + 131) / 132 * ((510 + k - 1) / k + 4);
    };
    EXPECT_LE(steps(best), steps(c)) << c;
  }
  // Single precision at 8 levels (one point a thread): 48 x (H - 16) written of 64 x H.
  l = timetile::plan(heated_room(3, 384), 4, 8, 0, 132);
  EXPECT_EQ(l.points, timetile::shape(4, 8, true).points);
  EXPECT_EQ(l.rows, timetile::shape(4, 8, true).rows);
  EXPECT_EQ(l.out_x, 48);
  EXPECT_EQ(l.out_y, timetile::shape(4, 8, true).tile_y() - 16);
  // Double at 4 levels, two points a thread: with N = 512 64 x 48 tiles write 56 x 40 (the first
  // and the last up to the wall), 9 x 13 tiles: 59 + 7 x 56 + 59 = 510 along x. With N = 511
  // 64 x 32 tiles write 56 x 24, 21 rows of them.
  l = timetile::plan(heated_room(3, 512), 8, 4, 0, 132);
  EXPECT_EQ(l.points, 2);
  EXPECT_EQ(l.rows, 3);
  EXPECT_EQ(l.out_x, 56);
  EXPECT_EQ(l.out_y, 40);
  EXPECT_EQ(l.gx, 9);
  EXPECT_EQ(l.gy, 13);
  EXPECT_EQ(l.shared, timetile::shared_bytes(8, 4, true));
  EXPECT_NEAR(l.read_per_written(), 64.0 * 48 / (56 * 40), 1e-12);
  l = timetile::plan(heated_room(3, 511), 8, 4, 0, 132);
  EXPECT_EQ(l.rows, 2);
  EXPECT_EQ(l.out_y, 24);
  EXPECT_EQ(l.gy, 21);
  EXPECT_EQ(l.shared, timetile::shared_bytes(8, 4, false));
  // Single at 4 levels: 10 x 9 (its tiles along x start at -4: timetile::x_first).
  l = timetile::plan(heated_room(3, 512), 4, 4, 0, 132);
  EXPECT_EQ(l.gx, 10);
  EXPECT_EQ(l.gy, 9);
  // N = 768 in double: 19 rows of 48 (43 + 17 x 40 + 43 = 766), not 20.
  EXPECT_EQ(timetile::plan(heated_room(3, 768), 8, 4, 0, 132).gy, 19);
  // The smallest rooms: one tile, one plane a chunk at most.
  l = timetile::plan(heated_room(3, 3), 8, 4, 0, 132);
  EXPECT_EQ(l.gx, 1);
  EXPECT_EQ(l.gy, 1);
  EXPECT_EQ(l.gz, 1);
  EXPECT_THROW(timetile::plan(heated_room(3, 64), 8, 5, 0, 132), std::logic_error);
  EXPECT_THROW(timetile::plan(heated_room(2, 64), 8, 2, 0, 132), std::logic_error);
  // At 1 and 2 levels the sweep indexes in 32 bits: N up to 46340 (its plane offsets, y N + x,
  // fit an int); at 3 and more in 64.
  const std::int64_t side = timetile::kMaxIndex32Side;
  EXPECT_LE(side * side + side, std::int64_t{INT32_MAX});
  EXPECT_GT((side + 1) * (side + 1), std::int64_t{INT32_MAX});
  EXPECT_NO_THROW(timetile::plan(heated_room(3, side), 8, 2, 0, 132));
  EXPECT_THROW(timetile::plan(heated_room(3, side + 1), 8, 2, 0, 132), DeviceError);
  EXPECT_THROW(timetile::plan(heated_room(3, side + 1), 4, 1, 0, 132), DeviceError);
  EXPECT_NO_THROW(timetile::plan(heated_room(3, side + 1), 8, 3, 0, 132));
}

// Along each axis the tiles' written points cover 1..N-2 once; each is held right after L levels
// (its neighbours within L, up to the walls, lie in the tile); the last tile is the first to
// hold the wall N - 1, so none is spare.
void expect_axis_covers(const timetile::Axis& a, std::int64_t n, const std::string& what) {
  const std::int64_t tiles = a.tiles(n);
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  for (std::int64_t b = 0; b < tiles; ++b) {
    const std::int64_t first = a.start(b);
    EXPECT_EQ(first + a.side >= n, b == tiles - 1) << what << " tile " << b;
    const std::int64_t from = first + a.written_from(b), to = first + a.written_to(b, n);
    for (std::int64_t i = std::max<std::int64_t>(from, 1); i < std::min(to, n - 1); ++i) {
      ++seen[static_cast<std::size_t>(i)];
      ASSERT_GE(std::max<std::int64_t>(i - a.levels, 0), first) << what << " x " << i;
      ASSERT_LT(std::min(i + a.levels, n - 1), first + a.side) << what << " x " << i;
    }
  }
  for (std::int64_t i = 1; i + 1 < n; ++i)
    ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << what << " x " << i;
}

TEST(TimeTile, TilesEndAtTheWalls) {
  for (const int side : {32, 48, 64})
    for (int l = 1; l <= 8 && side - 2 * l >= 16; ++l)
      for (const int first : {0, -1, -2, -l})
        for (std::int64_t n = 3; n <= 400; ++n)
          expect_axis_covers({side, l, first}, n,
                             "side " + std::to_string(side) + " L " + std::to_string(l) +
                                 " first " + std::to_string(first) + " N " + std::to_string(n));
  // The tiles along x of the kernels: where a tile's written points are whole sectors, from the
  // largest start <= 0 that puts every tile's on the 32-byte sectors; elsewhere tile 0 writes
  // from x = 1 (pairs: its start even).
  for (const std::size_t bytes : {std::size_t{4}, std::size_t{8}})
    for (int l = 1; l <= timetile::max_levels(bytes); ++l) {
      const timetile::Axis a = timetile::x_axis(bytes, l);
      const bool pairs = timetile::shape(bytes, l, true).points == 2;
      const std::string what = std::to_string(bytes) + " bytes L " + std::to_string(l);
      EXPECT_EQ(a.side, timetile::kTileX) << what;
      EXPECT_EQ(a.out(), timetile::Shape::out_x(l)) << what;
      EXPECT_LE(a.first, 0) << what;
      if (pairs) {
        EXPECT_EQ(a.first % 2, 0) << what;
      }
      const auto sector = [&](std::int64_t x) { return x * static_cast<std::int64_t>(bytes) % 32; };
      if (sector(a.out()) == 0) {
        for (std::int64_t b = 1; b < 4; ++b) EXPECT_EQ(sector(a.start(b) + l), 0) << what;
        EXPECT_NE(sector(a.first + 2 + l) == 0 && (a.first + 2) % 2 == 0 && a.first + 2 <= 0, true)
            << what << ": not the largest";
      } else {
        EXPECT_EQ(a.first + l, pairs && l % 2 == 0 ? 0 : 1) << what;
      }
      for (const std::int64_t n : {3, 64, 65, 129, 256, 384, 512, 768})
        expect_axis_covers(a, n, what + " N " + std::to_string(n));
    }
  EXPECT_EQ(timetile::x_axis(8, 4).first, 0);
  EXPECT_EQ(timetile::x_axis(4, 4).first, -4);
  EXPECT_EQ(timetile::x_axis(8, 2).first, -2);
  EXPECT_EQ(timetile::x_axis(4, 8).first, 0);
  EXPECT_EQ(timetile::x_axis(8, 3).first, -2);
  EXPECT_EQ(timetile::x_axis(4, 3).first, -2);
  EXPECT_EQ(timetile::x_axis(4, 2).first, -2);
  EXPECT_EQ(timetile::x_axis(4, 6).first, -5);
  // 4 levels, 64 points from the wall: one tile up to N = 64, two up to 120, three up to 176.
  const timetile::Axis wall{64, 4, 0};
  EXPECT_EQ(wall.tiles(64), 1);
  EXPECT_EQ(wall.tiles(65), 2);
  EXPECT_EQ(wall.tiles(120), 2);
  EXPECT_EQ(wall.tiles(121), 3);
  EXPECT_EQ(wall.tiles(256), 5);
  EXPECT_EQ(wall.tiles(512), 9);
  // From -4, as single's x: 10 at N = 512.
  EXPECT_EQ(timetile::Axis({64, 4, -4}).tiles(512), 10);
  // Along y single at 4 levels starts at 1 - L where that takes no more tiles (not at 512);
  // double and the other levels at the wall.
  const timetile::Shape single4 = timetile::shape(4, 4, true);
  for (const std::int64_t n : {17, 121, 256, 384, 768})
    EXPECT_EQ(timetile::y_axis(4, single4, 4, n).first, -3) << n;
  // 64 and 120: 1 and 2 tiles from 0, 2 and 3 from -3; 512: 9 against 10.
  for (const std::int64_t n : {64, 120, 512})
    EXPECT_EQ(timetile::y_axis(4, single4, 4, n).first, 0) << n;
  EXPECT_EQ(timetile::y_axis(8, timetile::shape(8, 4, true), 4, 256).first, 0);
  EXPECT_EQ(timetile::y_axis(4, timetile::shape(4, 3, true), 3, 256).first, 0);
  for (const std::int64_t n : {3, 64, 65, 121, 256, 384, 511, 512, 768})
    for (const std::size_t bytes : {std::size_t{4}, std::size_t{8}})
      for (int l = 1; l <= timetile::max_levels(bytes); ++l) {
        const timetile::Axis a =
            timetile::y_axis(bytes, timetile::shape(bytes, l, n % 2 == 0), l, n);
        expect_axis_covers(a, n, "y " + std::to_string(bytes) + " L " + std::to_string(l));
        EXPECT_EQ(a.tiles(n), timetile::Axis({a.side, l, 0}).tiles(n));
      }
}

}  // namespace
}  // namespace mm
