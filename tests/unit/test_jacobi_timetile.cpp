// The time-tiled heated-room sweep (cuda-timetile, mmjacobi --time-tile K): its passes and
// launch shapes (host code, tested everywhere), and on a GPU its grids, iteration counts and
// changes against cuda-norm's (bit for bit) and ref-stencil's for K = 1..4 (8 in single) on
// awkward sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/timetile_plan.hpp"
#include "device.hpp"
#include "gpu.hpp"
#include "jacobi.hpp"
#include "random_matrices.hpp"
#include "stencil_run.hpp"

namespace mm {
namespace {

using test::stencil_impl;

// ---- passes and plans (host code) ------------------------------------------------------------

TEST(TimeTile, PassesEndAtKSweepsAndAtChecks) {
  // max_iter 10, check every 4, K = 4: passes of 4, 4, 2 (the last iteration is checked).
  const JacobiStop s{10, -1, 4};
  EXPECT_EQ(stencil_pass_sweeps(s, 0, 4), 4);
  EXPECT_EQ(stencil_pass_sweeps(s, 4, 4), 4);
  EXPECT_EQ(stencil_pass_sweeps(s, 8, 4), 2);
  // Check every 3 with K = 4 (mmjacobi refuses it; the runner still stops at each check).
  const JacobiStop t{10, -1, 3};
  EXPECT_EQ(stencil_pass_sweeps(t, 0, 4), 3);
  EXPECT_EQ(stencil_pass_sweeps(t, 3, 4), 3);
  EXPECT_EQ(stencil_pass_sweeps(t, 9, 4), 1);
  // Check every 8 with K = 2: four passes of 2 a check.
  const JacobiStop u{16, -1, 8};
  EXPECT_EQ(stencil_pass_sweeps(u, 0, 2), 2);
  EXPECT_EQ(stencil_pass_sweeps(u, 6, 2), 2);
  EXPECT_EQ(stencil_pass_sweeps(u, 14, 2), 2);
}

TEST(TimeTile, PassesCountedForTheRecord) {
  // 10 sweeps, check every 4, K = 4: 3 passes (4 + 4 + 2); with plain checks each of the 3
  // checked passes ends with a plain sweep: 3 tiled (3 + 3 + 1 sweeps) and 3 plain.
  StencilPasses p = stencil_time_tile_passes(JacobiStop{10, -1, 4}, 10, 4, false);
  EXPECT_EQ(p.tiled, 3);
  EXPECT_EQ(p.plain, 0);
  p = stencil_time_tile_passes(JacobiStop{10, -1, 4}, 10, 4, true);
  EXPECT_EQ(p.tiled, 3);
  EXPECT_EQ(p.plain, 3);
  // Check every 8 with K = 2, stopped by the tolerance at 16: 8 passes, 2 of them checked.
  p = stencil_time_tile_passes(JacobiStop{100, 1e-3, 8}, 16, 2, true);
  EXPECT_EQ(p.tiled, 8);
  EXPECT_EQ(p.plain, 2);
  // K = 1 with plain checks: every sweep a plain one.
  p = stencil_time_tile_passes(JacobiStop{5, -1, 1}, 5, 1, true);
  EXPECT_EQ(p.tiled, 0);
  EXPECT_EQ(p.plain, 5);
  const HeatedRoom room = heated_room(3, 10);  // 512 interior points
  EXPECT_EQ(stencil_time_tile_bytes<double>(room, StencilPasses{3, 1}), 4.0 * 512 * 16);
  EXPECT_EQ(stencil_time_tile_bytes<float>(room, StencilPasses{3, 0}), 3.0 * 512 * 8);
}

// The loop of the GPU runs (jacobi_lagged_passes) against jacobi_iterate, on a model of a device:
// two buffers, each holding an iteration's grid, a pass in place or not, iteration K's squared
// change CHANGE[K] in the slot its pass names. The same iterations, norm and decision; the result
// buffer holding the stopping iteration's grid (never overwritten by a pass queued after it);
// each change read only where it can stop the run, and (but the last) only once the next pass is
// queued; never more than one pass queued past the stop.
TEST(TimeTile, LaggedPassesStopAsTheOneProcessLoop) {
  std::vector<double> change(80);
  for (std::size_t k = 0; k < change.size(); ++k) change[k] = 1e4 / static_cast<double>(k * k + 1);
  const double at12 = std::sqrt(change[12]), at30 = std::sqrt(change[30]);
  const std::vector<JacobiStop> stops = {
      {1, -1, 1},     {7, -1, 1},    {40, -1, 6},   {1, at12, 1},  {30, at12, 1},
      {30, at12, 4},  {30, at12, 3}, {30, at30, 1}, {30, at30, 6}, {31, at30, 2},
      {11, 1e-12, 4}, {40, 1e9, 1},  {40, 1e9, 8},  {13, -1, 4},   {70, at30, 12}};
  for (const JacobiStop& stop : stops)
    for (const int k : {1, 2, 3, 4})
      for (const int place : {0, 1, 2}) {  // never in place; checked multi-sweep passes; all
        const std::string what = "max " + std::to_string(stop.max_iter) + " tol " +
                                 std::to_string(stop.tol) + " every " +
                                 std::to_string(stop.check_every) + " K " + std::to_string(k) +
                                 " place " + std::to_string(place);
        std::int64_t checks = 0;
        std::int64_t done = 0;
        const JacobiResult want = jacobi_iterate(stop, [&](bool check) {
          ++done;
          checks += check;
          return check ? change[static_cast<std::size_t>(done)] : 0.0;
        });
        std::int64_t holds[2] = {0, -1};  // the iteration each buffer's grid is
        std::int64_t in_slot[2] = {-1, -1}, queued = 0, checked = 0, reads = 0, read_last = 0;
        std::int64_t early = 0;  // a change read before the pass after it was queued
        int result = -1;
        const JacobiResult got = jacobi_lagged_passes(
            stop, k,
            [&](const JacobiPass& p) {
              return place == 2 || (place == 1 && p.check && p.sweeps > 1);
            },
            [&](int src, const JacobiPass& p, int slot) {
              EXPECT_EQ(holds[src], queued) << what;  // the pass reads the latest grid
              if (early > 0) {
                EXPECT_TRUE(p.in_place) << what << " after " << early;
              }
              early = 0;
              EXPECT_EQ(p.sweeps, stencil_pass_sweeps(stop, queued, k)) << what;
              EXPECT_EQ(p.check, jacobi_checks(stop, p.last)) << what;
              EXPECT_EQ(slot, p.check ? static_cast<int>(checked & 1) : -1) << what;
              checked += p.check;
              queued = p.last;
              holds[p.in_place ? src : 1 - src] = queued;
              if (slot >= 0) in_slot[slot] = queued;
            },
            [&](int slot) {
              ++reads;
              const std::int64_t it = in_slot[slot];
              // Read once the pass after it is queued, or at the last; else just before the
              // pass after it, which must then be in place (checked as that one is queued).
              EXPECT_LE(it, queued) << what;
              if (it == queued && it < stop.max_iter) early = it;
              EXPECT_GT(it, read_last) << what;
              read_last = it;
              return change[static_cast<std::size_t>(it)];
            },
            result);
        EXPECT_EQ(got.iterations, want.iterations) << what;
        EXPECT_EQ(got.norm, want.norm) << what;
        EXPECT_EQ(got.converged, want.converged) << what;
        ASSERT_TRUE(result == 0 || result == 1) << what;
        EXPECT_EQ(holds[result], want.iterations) << what;
        EXPECT_LE(queued, want.iterations + k) << what;
        EXPECT_EQ(reads, stop.tol < 0 ? 1 : checks) << what;
      }
}

// A NaN change stops nothing (NaN <= tol is false), in the GPU loop as in jacobi_iterate: the run
// goes on to the next check, whose change stops it.
TEST(TimeTile, LaggedPassesGoOnPastANaNChange) {
  for (const std::int64_t at : {1, 3})
    for (const int k : {1, 2}) {
      std::vector<double> change(20, 4.0);
      change[static_cast<std::size_t>(at * k)] = std::nan("");
      const JacobiStop stop{10, 1e9, k};
      std::int64_t done = 0;
      const JacobiResult want = jacobi_iterate(stop, [&](bool check) {
        ++done;
        return check ? change[static_cast<std::size_t>(done)] : 0.0;
      });
      std::int64_t in_slot[2] = {0, 0};
      int result = -1;
      const JacobiResult got = jacobi_lagged_passes(
          stop, k, [](const JacobiPass&) { return false; },
          [&](int, const JacobiPass& p, int slot) {
            if (slot >= 0) in_slot[slot] = p.last;
          },
          [&](int slot) { return change[static_cast<std::size_t>(in_slot[slot])]; }, result);
      EXPECT_EQ(want.iterations, at == 1 ? 2 * k : k);
      EXPECT_EQ(got.iterations, want.iterations) << at << " " << k;
      EXPECT_EQ(got.norm, 2.0) << at << " " << k;
      EXPECT_TRUE(got.converged) << at << " " << k;
    }
}

// The default K: 4 in double; in single 4 where memory is rich (the H200), else 3 (the H100, and
// any machine without a GPU).
TEST(TimeTile, DefaultLevelsByPrecisionAndDevice) {
  EXPECT_EQ(stencil_time_tile_default(8), 4);
  EXPECT_EQ(stencil_time_tile_default(4), gpu_memory_rich() ? 4 : 3);
  if (cuda_devices().count == 0) {
    EXPECT_EQ(stencil_time_tile_default(4), 3);
  }
}

TEST(TimeTile, LevelsAndRowsFitTheRegistersAndSharedMemory) {
  EXPECT_EQ(stencil_time_tile_max(8), 4);
  EXPECT_EQ(stencil_time_tile_max(4), 8);
  EXPECT_GE(stencil_time_tile_default(8), 1);
  EXPECT_LE(stencil_time_tile_default(8), 4);
  EXPECT_GE(stencil_time_tile_default(4), 1);
  EXPECT_LE(stencil_time_tile_default(4), 8);
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
}

// ---- on the GPU ------------------------------------------------------------------------------

// GOT (cuda-timetile's grid and result) against WANT (cuda-norm's): the grid, the iteration
// count and whether it converged bit for bit; the change exactly where both sum the same
// squares in the same order (EXACT_NORM), else within the rounding of the sum.
template <class T>
void expect_as_cuda_norm(const std::vector<T>& got, const JacobiResult& got_r,
                         const std::vector<T>& want, const JacobiResult& want_r, bool exact_norm,
                         const std::string& what) {
  EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
  EXPECT_EQ(got_r.converged, want_r.converged) << what;
  if (exact_norm) {
    EXPECT_EQ(got_r.norm, want_r.norm) << what;
  } else {
    EXPECT_NEAR(got_r.norm, want_r.norm, 1e-10 * want_r.norm) << what;
  }
  test::expect_same_bits(got, want, what);  // last: it stops at the first element that differs
}

// cuda-timetile (TUNE, K sweeps a pass; 0: its default) and cuda-norm on the same room and
// stop, compared as above.
template <class T>
void expect_timetile_as_cuda_norm(int dim, std::int64_t n, const JacobiStop& stop,
                                  const JacobiTuning& tune, int k, bool exact_norm) {
  JacobiResult want_r, got_r;
  const auto want = test::run_stencil(stencil_impl<T>("cuda-norm"), dim, n, stop, want_r);
  const auto got =
      test::run_stencil(stencil_impl<T>("cuda-timetile"), dim, n, stop, got_r, tune, k);
  expect_as_cuda_norm(got, got_r, want, want_r, exact_norm,
                      std::to_string(dim) + "D N=" + std::to_string(n) + " K=" + std::to_string(k));
}

template <class T>
class TimeTileTypes : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TimeTileTypes, RealTypes);

// K = 1..4 (and 6, 8 in single) on awkward sizes (one tile and several along x and y, several
// chunks of planes, a chunk of one plane), fixed counts and tolerances, checks every K and
// every other count: the grid and the iteration count bit for bit cuda-norm's, the change
// cuda-norm's bit for bit with norm=plain and within rounding fused; ref-stencil's grid within
// rounding.
TYPED_TEST(TimeTileTypes, MatchesCudaNormBitForBit) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& tiled = stencil_impl<T>("cuda-timetile");
  const auto& plain = stencil_impl<T>("cuda-norm");
  const auto& ref = stencil_impl<T>("ref-stencil");
  std::vector<int> ks{1, 2, 3, 4};
  if (sizeof(T) == 4) ks.insert(ks.end(), {6, 8});
  int ran = 0;
  for (const std::int64_t n : {3, 4, 5, 17, 33, 64, 65, 120, 121, 130}) {
    JacobiResult r12;
    test::run_stencil(plain, 3, n, JacobiStop{12, -1, 1}, r12);
    for (const int k : ks) {
      for (const JacobiStop stop :
           {JacobiStop{k, -1, k}, JacobiStop{3 * k + 1, -1, k}, JacobiStop{7, -1, 3},
            JacobiStop{200, 1.2 * r12.norm, k}, JacobiStop{200, 1.2 * r12.norm, 2 * k}}) {
        JacobiResult want_r;
        const auto want = test::run_stencil(plain, 3, n, stop, want_r);
        // The last two: the even split where K = 4 (shares reaching over into the next column).
        for (const JacobiTuning tune :
             {JacobiTuning{0, 0, 0}, JacobiTuning{0, 0, 2}, JacobiTuning{0, 1, 1},
              JacobiTuning{0, 5, 2}, JacobiTuning{0, 0, 1, 0, 0, 0, 2},
              JacobiTuning{0, 0, 2, 0, 0, 0, 2}}) {
          JacobiResult got_r;
          const auto got = test::run_stencil(tiled, 3, n, stop, got_r, tune, k);
          const std::string what = "N=" + std::to_string(n) + " K=" + std::to_string(k) +
                                   " max_iter " + std::to_string(stop.max_iter) + " check " +
                                   std::to_string(stop.check_every) + " tol " +
                                   std::to_string(stop.tol) + " tuning " + tune.to_json().dump();
          // Fused: the same squares summed in another order (rounding of the sum only).
          expect_as_cuda_norm(got, got_r, want, want_r, tune.norm == 2, what);
          ++ran;
        }
        if (stop.tol >= 0) {
          EXPECT_TRUE(want_r.converged) << "N=" << n;
        }
        if (k == 4 && stop.max_iter == 13) {
          JacobiResult ref_r;
          const auto exact = test::run_stencil(ref, 3, n, stop, ref_r);
          test::expect_close(want, exact, test::tolerance<T>(8), "ref N=" + std::to_string(n));
          EXPECT_NEAR(ref_r.norm, want_r.norm, 1e-5 * ref_r.norm) << n;
        }
      }
    }
  }
  EXPECT_EQ(ran, 10 * static_cast<int>(ks.size()) * 5 * 6);
}

// A small room at every level, under the chunks and the even split: each of the sweep's
// kernels run a pass or two on one tile and on two tiles each way. Small enough for
// compute-sanitizer's racecheck (scripts/gpu-sanitize.sh), which spends minutes on one case of
// the tests above.
TYPED_TEST(TimeTileTypes, SmallRoomsEveryLevel) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<int> ks{1, 2, 3, 4};
  if (sizeof(T) == 4) ks.insert(ks.end(), {6, 8});
  for (const int k : ks)
    for (const std::int64_t n : {17, 66})
      for (const JacobiTuning& tune : {JacobiTuning{}, JacobiTuning{0, 0, 0, 0, 0, 0, 2}})
        expect_timetile_as_cuda_norm<T>(3, n, JacobiStop{2 * k + 1, -1, k}, tune, k, false);
}

// One tile, one pass, at the precision's default K (the benchmarks' sweep) against ref-stencil
// on the host: no other CUDA kernel runs, so that compute-sanitizer's racecheck checks the
// sweep's shared planes alone in seconds (scripts/gpu-sanitize.sh; SmallRoomsEveryLevel, every
// level, took it 271 s on the H200).
TYPED_TEST(TimeTileTypes, OneTileOnePassMatchesRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const int k = stencil_time_tile_default(sizeof(T));
  const JacobiStop stop{k, -1, k};
  JacobiResult got_r, want_r;
  const auto want = test::run_stencil(stencil_impl<T>("ref-stencil"), 3, 17, stop, want_r);
  const auto got =
      test::run_stencil(stencil_impl<T>("cuda-timetile"), 3, 17, stop, got_r, JacobiTuning{}, k);
  test::expect_close(got, want, test::tolerance<T>(8), "N=17 K=" + std::to_string(k));
  EXPECT_EQ(got_r.iterations, k);
  EXPECT_NEAR(got_r.norm, want_r.norm, 1e-4 * want_r.norm);
  EXPECT_GT(want_r.norm, 0);
}

// Larger rooms, several tiles each way and the default chunks: N = 200 and 257 (not a
// multiple of the vector width), K sweeps from the precision's default, the change every K.
TYPED_TEST(TimeTileTypes, LargerRoomsMatchCudaNorm) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const int k = stencil_time_tile_default(sizeof(T));
  for (const std::int64_t n : {200, 257}) {
    expect_timetile_as_cuda_norm<T>(3, n, JacobiStop{4 * k, -1, k}, JacobiTuning{}, 0, false);
    // The even split (K = 4): 132 or so shares of 20-40 planes, most in two columns.
    expect_timetile_as_cuda_norm<T>(3, n, JacobiStop{8, -1, 4}, JacobiTuning{0, 0, 0, 0, 0, 0, 2},
                                    4, false);
  }
}

// The plain sweeps of norm=plain where their ring of stages takes more than the 48 KB of
// shared memory a kernel gets unless allowed more (N = 512 in double on the H100: 49176 bytes,
// 16 warps): cuda-timetile launches the kernels cuda-norm's plan allowed (one copy of each,
// kernels/cuda/stencil_rows.hpp; a launch from a second copy was refused). Marching up and down
// (order alternate where the plan takes it): cuda-norm's grid and change bit for bit.
TYPED_TEST(TimeTileTypes, PlainSweepsWithLargeRingsLaunch) {
  MM_REQUIRE_GPU();
  expect_timetile_as_cuda_norm<TypeParam>(3, 512, JacobiStop{8, -1, 2}, JacobiTuning{0, 0, 2}, 2,
                                          true);
}

// The 2D room: cuda-norm's sweep (no time tiling), so cuda-norm's grid and change bit for bit.
TYPED_TEST(TimeTileTypes, TwoDimensionsAreCudaNorms) {
  MM_REQUIRE_GPU();
  for (const std::int64_t n : {5, 33, 1000})
    expect_timetile_as_cuda_norm<TypeParam>(2, n, JacobiStop{9, -1, 3}, JacobiTuning{}, 0, true);
}

}  // namespace
}  // namespace mm
