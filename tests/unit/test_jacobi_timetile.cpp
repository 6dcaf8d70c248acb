// The time-tiled heated-room sweep (cuda-timetile, mmjacobi --time-tile K): its passes and
// default levels (host code, tested everywhere; its launch shapes: test_timetile_plan.cpp),
// and on a GPU its grids, iteration counts and changes against cuda-norm's (bit for bit) and
// ref-stencil's for K = 1..4 (8 in single) on awkward sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "device.hpp"
#include "gpu.hpp"
#include "jacobi.hpp"
#include "random_matrices.hpp"
#include "stencil_run.hpp"

namespace mm {
namespace {

using test::stencil_impl;

// ---- passes (host code) ------------------------------------------------------------------

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

// The default K: 4 in both precisions, on every GPU (the H100 and the H200 measured) and on a
// machine without one.
TEST(TimeTile, DefaultLevels) {
  EXPECT_EQ(stencil_time_tile_default(), 4);
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

// One tile, one pass, at the default K (the benchmarks' sweep) against ref-stencil
// on the host: no other CUDA kernel runs, so that compute-sanitizer's racecheck checks the
// sweep's shared planes alone in seconds (scripts/gpu-sanitize.sh; SmallRoomsEveryLevel, every
// level, took it 271 s on the H200).
TYPED_TEST(TimeTileTypes, OneTileOnePassMatchesRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const int k = stencil_time_tile_default();
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
// multiple of the vector width), K sweeps from the default, the change every K.
TYPED_TEST(TimeTileTypes, LargerRoomsMatchCudaNorm) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const int k = stencil_time_tile_default();
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
