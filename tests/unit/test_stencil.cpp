// The heated-room stencil (mmjacobi --poisson2d/3d): the room's geometry and small grids by
// hand, every CPU sweep against ref-stencil, every interior point written; the CUDA sweeps
// against the reference where a GPU exists.
#include <gtest/gtest.h>
#include <omp.h>

#include <random>

#include "gpu.hpp"
#include "jacobi.hpp"
#include "random_matrices.hpp"
#include "stencil_run.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

using test::run_stencil;
using test::stencil_impl;

// ---- the heated-room stencil --------------------------------------------------------------

TEST(Stencil, RoomGeometryByHand) {
  // N = 5, h = 0.5: coordinates -1, -0.5, 0, 0.5, 1; the radiator's edges are included.
  auto r = heated_room(3, 5);
  EXPECT_EQ(r.rx.lo, 0);
  EXPECT_EQ(r.rx.hi, 1);  // x <= -3/8
  EXPECT_EQ(r.ry.lo, 0);
  EXPECT_EQ(r.ry.hi, 1);  // y <= -1/2
  EXPECT_EQ(r.rz.lo, 1);
  EXPECT_EQ(r.rz.hi, 2);  // z in [-2/3, 0]
  EXPECT_DOUBLE_EQ(r.h2f, 0.25 * 200);
  EXPECT_EQ(r.interior(), 27);
  EXPECT_EQ(r.points(), 125);
  r = heated_room(3, 17);  // h = 1/8: x_5 = -3/8 exactly
  EXPECT_EQ(r.rx.hi, 5);
  EXPECT_EQ(r.ry.hi, 4);
  r = heated_room(3, 7);  // h = 1/3: z_1 = -2/3, not exact in binary, still on the edge
  EXPECT_EQ(r.rz.lo, 1);
  EXPECT_EQ(r.rz.hi, 3);
  EXPECT_EQ(r.rx.hi, 1);  // -1/3 > -3/8
  r = heated_room(2, 3);
  EXPECT_EQ(r.interior(), 1);
  EXPECT_EQ(r.rx.hi, 0);  // only the wall x = -1
}

TEST(Stencil, SmallGridsByHand) {
  for (const auto& impl : stencil_impls<double>()) {
    if (!test::runnable(impl.device)) continue;
    JacobiResult r;
    // N = 3: one interior point, its neighbours walls: 5 at 20, the y = -1 one at 0.
    auto u = run_stencil(impl, 3, 3, JacobiStop{100, 0.0, 1}, r);
    EXPECT_DOUBLE_EQ(u[13], 100.0 * (1.0 / 6));
    EXPECT_EQ(r.iterations, 2) << impl.name;  // the second changes nothing
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.norm, 0.0);
    EXPECT_EQ(u[0 * 9 + 0 * 3 + 1], 0.0);   // y = -1 wall (an edge: y = -1 wins)
    EXPECT_EQ(u[1 * 9 + 0 * 3 + 1], 0.0);   // y = -1 wall
    EXPECT_EQ(u[1 * 9 + 2 * 3 + 1], 20.0);  // y = 1 wall
    EXPECT_EQ(u[0 * 9 + 1 * 3 + 1], 20.0);  // z = -1 wall
    u = run_stencil(impl, 2, 3, JacobiStop{1, -1, 1}, r);
    EXPECT_DOUBLE_EQ(u[4], 60.0 * 0.25);
    EXPECT_DOUBLE_EQ(r.norm, 15.0);
    // N = 5, one iteration: (1,1,1) is in the radiator, by the x = -1 and z = -1 walls:
    // (20 + 20 + 0.25*200) / 6; (1,1,3) is above it (z = 0.5), by two walls: 40 / 6.
    u = run_stencil(impl, 3, 5, JacobiStop{1, -1, 1}, r);
    EXPECT_DOUBLE_EQ(u[(1 * 5 + 1) * 5 + 1], 90.0 * (1.0 / 6));
    EXPECT_DOUBLE_EQ(u[(3 * 5 + 1) * 5 + 1], 40.0 * (1.0 / 6));
    EXPECT_EQ(u[(2 * 5 + 2) * 5 + 2], 0.0);
  }
}

template <class T>
class StencilTypes : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(StencilTypes, RealTypes);

// cpu-stencil against ref-stencil: the same iteration counts, grids within rounding.
TYPED_TEST(StencilTypes, CpuMatchesRef) {
  using T = TypeParam;
  const auto& list = stencil_impls<T>();
  const auto& ref = stencil_impl<T>("ref-stencil");
  for (const int dim : {2, 3}) {
    for (const std::int64_t n : {3, 4, 31, 33, 64}) {
      JacobiResult r30;
      run_stencil(ref, dim, n, JacobiStop{30, -1, 1}, r30);
      // A tolerance reached between two checks, before iteration 30.
      for (const JacobiStop stop :
           {JacobiStop{1, -1, 1}, JacobiStop{10, -1, 3}, JacobiStop{60, 1.5 * r30.norm, 1},
            JacobiStop{60, 1.5 * r30.norm, 4}}) {
        JacobiResult want_r;
        const auto want = run_stencil(ref, dim, n, stop, want_r);
        for (const auto& impl : list) {
          if (!test::runnable(impl.device)) continue;
          JacobiResult got_r;
          const auto got = run_stencil(impl, dim, n, stop, got_r);
          const std::string what = impl.name + " " + std::to_string(dim) +
                                   "D N=" + std::to_string(n) + " max_iter " +
                                   std::to_string(stop.max_iter);
          EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
          EXPECT_EQ(got_r.converged, want_r.converged) << what;
          EXPECT_NEAR(got_r.norm, want_r.norm, 1e-5 * want_r.norm) << what;
          test::expect_close(got, want, test::tolerance<T>(8), what);
        }
        if (stop.tol >= 0) {
          EXPECT_TRUE(want_r.converged) << dim << "D N=" << n;
        }
      }
    }
  }
}

// One sweep into a poisoned grid writes every interior point (and no wall).
TYPED_TEST(StencilTypes, SweepWritesEveryInteriorPoint) {
  using T = TypeParam;
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 4, 31, 33}) {
      const HeatedRoom room = heated_room(dim, n);
      std::vector<T> u(static_cast<std::size_t>(room.points())), want(u.size()), got(u.size());
      heated_room_init(room, u.data());
      std::fill(got.begin(), got.end(), test::poison<T>());
      want = u;
      const double cw = stencil_sweep_ref(room, u.data(), want.data(), true);
      const double cg = stencil_sweep_cpu(room, u.data(), got.data(), true);
      EXPECT_NEAR(cg, cw, 1e-6 * cw);
      std::int64_t bad_interior = 0, wall_written = 0;
      for (std::int64_t c = 0; c < room.points(); ++c) {
        const std::int64_t i = c % n, j = c / n % n, k = c / (n * n);
        const bool wall =
            i == 0 || i == n - 1 || j == 0 || j == n - 1 || (dim == 3 && (k == 0 || k == n - 1));
        if (wall)
          wall_written += !std::isnan(got[c]);
        else
          bad_interior += !(std::abs(got[c] - want[c]) <= 1e-5 * 20);  // NaN counts as bad
      }
      EXPECT_EQ(bad_interior, 0) << dim << "D N=" << n;
      EXPECT_EQ(wall_written, 0) << dim << "D N=" << n;
      EXPECT_EQ(stencil_sweep_cpu(room, u.data(), got.data(), false), 0.0);
    }
}

// The cpu sweep's norm is a function of the grid alone: the same bits on 1 or 3 threads, and
// for a slab of planes swept alone from a buffer at any offset (alignment), its plane sums are
// the whole sweep's, which add up to its norm in plane order (what lib/dist's slabs rely on).
TYPED_TEST(StencilTypes, PlaneSumsIndependentOfThreadsAndPlacement) {
  using T = TypeParam;
  std::mt19937_64 rng(5);
  const int threads = omp_get_max_threads();
  for (const int dim : {2, 3})
    for (const std::int64_t n : {4, 13, 37}) {
      const std::string what = std::to_string(dim) + "D N=" + std::to_string(n);
      const HeatedRoom room = heated_room(dim, n);
      std::vector<T> u(static_cast<std::size_t>(room.points())), want(u.size());
      heated_room_init(room, u.data());
      for (auto& v : u) v += T(10) * test::random_value<T>(rng);  // walls too: any values
      omp_set_num_threads(1);
      const double norm = stencil_sweep_cpu(room, u.data(), want.data(), true);
      std::vector<double> planes(static_cast<std::size_t>(n - 2));
      std::vector<T> again(u.size());
      stencil_sweep_cpu_planes(room, u.data(), again.data(), 0, 1, n - 1, planes.data());
      EXPECT_EQ(stencil_sum_planes(planes.data(), n - 2), norm) << what;
      omp_set_num_threads(3);
      std::vector<T> got(u.size());
      EXPECT_EQ(stencil_sweep_cpu(room, u.data(), got.data(), true), norm) << what << " 3 threads";
      omp_set_num_threads(threads);
      EXPECT_EQ(got, want) << what;
      const std::int64_t ps = dim == 3 ? n * n : n;
      for (const std::int64_t k0 : {std::int64_t{1}, n / 2})
        for (const std::int64_t shift : {1, 3, 5}) {  // elements: not a vector's alignment
          const std::int64_t k1 = std::min(k0 + 3, n - 1);
          std::vector<T> in(static_cast<std::size_t>(shift + (k1 - k0 + 2) * ps)), out(in.size());
          std::copy(u.begin() + (k0 - 1) * ps, u.begin() + (k1 + 1) * ps, in.begin() + shift);
          std::vector<double> part(static_cast<std::size_t>(k1 - k0));
          stencil_sweep_cpu_planes(room, in.data() + shift, out.data() + shift, k0 - 1, k0, k1,
                                   part.data());
          for (std::int64_t k = k0; k < k1; ++k) {
            EXPECT_EQ(part[k - k0], planes[k - 1]) << what << " plane " << k << " shift " << shift;
            // The interior of each row as the whole sweep wrote it (walls are not written).
            for (std::int64_t q = 0; q < ps; ++q) {
              const std::int64_t i = q % n, j = dim == 3 ? q / n : k;
              if (i == 0 || i == n - 1 || j == 0 || j == n - 1) continue;
              ASSERT_EQ(out[shift + (k - k0 + 1) * ps + q], want[k * ps + q])
                  << what << " plane " << k << " point " << q;
            }
          }
        }
    }
}

// ---- the CUDA sweeps (skipped, with the reason, where no GPU exists) ------------------------

// Every CUDA stencil implementation against ref-stencil, 2D and 3D: identical iteration
// counts and grids within rounding; grids large enough for several tiles and z chunks
// (3D N=100 and 200 march two and eight planes a chunk); one sweep lands in the buffer
// whose interior starts as NaN, so a point no thread writes fails.
TYPED_TEST(StencilTypes, CudaMatchesRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& ref = stencil_impl<T>("ref-stencil");
  int ran = 0;
  for (const int dim : {2, 3}) {
    for (const std::int64_t n : {3, 4, 5, 31, 33, 64, 100, 200, 1000}) {
      if (dim == 3 && n == 1000) continue;
      JacobiResult r30;
      run_stencil(ref, dim, n, JacobiStop{30, -1, 1}, r30);
      for (const JacobiStop stop :
           {JacobiStop{1, -1, 1}, JacobiStop{2, -1, 1}, JacobiStop{10, -1, 3},
            JacobiStop{60, 1.5 * r30.norm, 1}, JacobiStop{60, 1.5 * r30.norm, 4},
            JacobiStop{60, 1.5 * r30.norm, 3}}) {
        JacobiResult want_r;
        const auto want = run_stencil(ref, dim, n, stop, want_r);
        for (const auto& impl : stencil_impls<T>()) {
          if (impl.device != Device::cuda) continue;
          JacobiResult got_r;
          const auto got = run_stencil(impl, dim, n, stop, got_r);
          const std::string what =
              impl.name + " " + std::to_string(dim) + "D N=" + std::to_string(n) + " max_iter " +
              std::to_string(stop.max_iter) + " check " + std::to_string(stop.check_every);
          EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
          EXPECT_EQ(got_r.converged, want_r.converged) << what;
          EXPECT_NEAR(got_r.norm, want_r.norm, 1e-5 * want_r.norm) << what;
          test::expect_close(got, want, test::tolerance<T>(8), what);
          ++ran;
        }
        if (stop.tol >= 0) {
          EXPECT_TRUE(want_r.converged) << dim << "D N=" << n;
        }
      }
    }
  }
  EXPECT_EQ(ran, 17 * 6 * 8) << "expected cuda-norm, -ry2, -ry4, -col, cuda-timetile, "
                                "cuda-partials, cuda-coalesced and cuda-naive";
}

// The hand-computed small grids, exactly, on each CUDA stencil (the sums in the reference's
// order round alike), and a timed run after a plain one.
TEST(Stencil, CudaSmallGridsByHand) {
  MM_REQUIRE_GPU();
  for (const auto& impl : stencil_impls<double>()) {
    if (impl.device != Device::cuda) continue;
    JacobiResult r;
    auto u = run_stencil(impl, 3, 3, JacobiStop{100, 0.0, 1}, r);
    EXPECT_EQ(u[13], 100.0 * (1.0 / 6)) << impl.name;
    EXPECT_EQ(r.iterations, 2) << impl.name;
    EXPECT_TRUE(r.converged) << impl.name;
    EXPECT_EQ(r.norm, 0.0) << impl.name;
    const HeatedRoom room = heated_room(3, 5);
    std::vector<double> g(static_cast<std::size_t>(room.points()), test::poison<double>());
    StencilProblem<double> p{room, g.data(), JacobiStop{1, -1, 1}, &r, {}};
    auto runner = impl.make(p);
    runner->upload();
    runner->run();
    runner->timed_run();
    runner->download();
    EXPECT_EQ(g[(1 * 5 + 1) * 5 + 1], 90.0 * (1.0 / 6)) << impl.name;
    EXPECT_EQ(g[(3 * 5 + 1) * 5 + 1], 40.0 * (1.0 / 6)) << impl.name;
    EXPECT_EQ(g[(2 * 5 + 2) * 5 + 2], 0.0) << impl.name;
    EXPECT_EQ(g[(2 * 5 + 0) * 5 + 2], 0.0) << impl.name;   // y = -1 wall
    EXPECT_EQ(g[(2 * 5 + 4) * 5 + 2], 20.0) << impl.name;  // y = 1 wall
    EXPECT_EQ(r.iterations, 1) << impl.name;
  }
}

// A room whose two grids exceed the GPU's memory (4000^3 doubles: 2 x 512 GB) is refused when
// the runner is made, before anything is allocated on either side (no host grid is given),
// with a DeviceError (exit 4) naming the bytes asked and free.
TEST(Stencil, CudaRoomLargerThanTheDeviceIsRefused) {
  MM_REQUIRE_GPU();
  const HeatedRoom room = heated_room(3, 4000);
  int refused = 0;
  for (const auto& impl : stencil_impls<double>()) {
    if (impl.device != Device::cuda) continue;
    JacobiResult r;
    StencilProblem<double> p{room, nullptr, JacobiStop{1, -1, 1}, &r, {}};
    try {
      auto runner = impl.make(p);
      ADD_FAILURE() << impl.name << ": a 1.024 TB room was accepted";
    } catch (const DeviceError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("out of device memory: asked 1024000000000 bytes"), std::string::npos)
          << impl.name << ": " << what;
      EXPECT_NE(what.find(" free of "), std::string::npos) << impl.name << ": " << what;
      ++refused;
    }
  }
  EXPECT_GT(refused, 0) << "no CUDA stencil implementation";
}

}  // namespace
}  // namespace mm
