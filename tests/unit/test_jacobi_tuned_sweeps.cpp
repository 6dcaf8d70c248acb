// The CUDA marching sweeps under each Jacobi tuning, on a GPU: every tuning against the
// reference, the ways of loading and of ordering the march bit for bit alike, every run as one
// graph bit for bit its sweeps launched one by one, and the values each run reports it used. The
// tunings' parsing and plans (host code): test_jacobi_tuning.cpp.
#include <gtest/gtest.h>

#include "cuda/stencil_plan.hpp"
#include "gpu.hpp"
#include "jacobi.hpp"
#include "random_matrices.hpp"
#include "stencil_defaults.hpp"
#include "stencil_run.hpp"

namespace mm {
namespace {

using test::plain_ahead_name;
using test::stencil_impl;

// IMPL's grid after STOP from the initial one, with TUNING; USED gets what it reports.
template <class T>
std::vector<T> run_tuned(const Impl<StencilMake<T>>& impl, int dim, std::int64_t n,
                         const JacobiStop& stop, const JacobiTuning& tuning, JacobiResult& res,
                         nlohmann::json& used) {
  const HeatedRoom room = heated_room(dim, n);
  std::vector<T> u(static_cast<std::size_t>(room.points()), test::poison<T>());
  StencilProblem<T> p{room, u.data(), stop, &res, tuning};
  auto r = impl.make(p);
  const Measured m = measure(*r, 0, 2);
  used = m.tuning;
  return u;
}

template <class T>
class TunedStencil : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TunedStencil, RealTypes);

// Every marching sweep under every tuning against ref-stencil, 2D and 3D, reporting the
// warps (3D) and chunks it used; cuda-timetile (3D) its chunks and norm, none in 2D (cuda-norm's
// sweep under the default tuning); the other CUDA sweeps none; every one its launch (a graph:
// the run has no tolerance).
TYPED_TEST(TunedStencil, MarchingSweepsMatchRefUnderEveryTuning) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& ref = stencil_impl<T>("ref-stencil");
  int ran = 0;
  for (const int dim : {2, 3}) {
    for (const std::int64_t n : {5, 33, 130, 200}) {
      const JacobiStop stop{7, -1, 2};
      JacobiResult want_r;
      nlohmann::json none;
      const auto want = run_tuned(ref, dim, n, stop, {}, want_r, none);
      EXPECT_EQ(none, nlohmann::json::object());
      for (const auto& impl : stencil_impls<T>()) {
        if (impl.device != Device::cuda) continue;
        const bool marching = impl.name.rfind("cuda-norm", 0) == 0;
        const bool tiled = impl.name == "cuda-timetile" && dim == 3;
        for (const JacobiTuning t :
             {JacobiTuning{}, JacobiTuning{16, 0}, JacobiTuning{8, 1}, JacobiTuning{16, 5},
              JacobiTuning{0, 65535}, JacobiTuning{0, 0, 0, 1}, JacobiTuning{16, 3, 0, 1},
              JacobiTuning{32, 0, 0, 3}, JacobiTuning{0, 0, 0, 0, 0, 2},
              JacobiTuning{16, 3, 0, 3, 0, 2}}) {
          JacobiResult got_r;
          nlohmann::json used;
          const auto got = run_tuned(impl, dim, n, stop, t, got_r, used);
          const std::string what = impl.name + " " + std::to_string(dim) +
                                   "D N=" + std::to_string(n) + " tuning " + t.to_json().dump() +
                                   " used " + used.dump();
          EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
          EXPECT_NEAR(got_r.norm, want_r.norm, 1e-5 * want_r.norm) << what;
          test::expect_close(got, want, test::tolerance<T>(8), what);
          EXPECT_EQ(used.value("launch", ""), "graph") << what;
          used.erase("launch");
          if (tiled) {
            EXPECT_EQ(used.value("norm", ""), "fused") << what;
            EXPECT_FALSE(used.contains("warps")) << what;
            // The even split (4 levels, the code's choice here) has no chunks.
            ASSERT_TRUE(used.contains("chunks") || used.value("split", "") == "even") << what;
            if (t.chunks > 0) {
              EXPECT_EQ(used["chunks"].get<std::int64_t>(), std::min<std::int64_t>(t.chunks, n - 2))
                  << what;
            }
            continue;
          }
          if (!marching) {
            EXPECT_EQ(used, nlohmann::json::object()) << what;
            continue;
          }
          ASSERT_TRUE(used.contains("chunks")) << what;
          const std::int64_t chunks = used["chunks"].get<std::int64_t>();
          EXPECT_GE(chunks, 1) << what;
          EXPECT_LE(chunks, n - 2) << what;
          if (t.chunks > 0) {
            EXPECT_EQ(chunks, std::min<std::int64_t>(t.chunks, n - 2)) << what;
          }
          EXPECT_EQ(used.contains("warps"), dim == 3) << what;
          // The direction: cuda-norm's 3D sweep only (its -ry2, -ry4, -col variants march up);
          // the code's choice is up or alternate by the kernels' registers (plan_march_rows).
          const std::string order = used.value("order", "");
          if (dim == 2 || impl.name != "cuda-norm") {
            EXPECT_EQ(order, "") << what;
          } else if (t.order) {
            EXPECT_EQ(order, t.order == 2 ? "alternate" : "up") << what;
          } else {
            // zigzag where its chunks are short on a memory-rich GPU (zigzag_wins).
            EXPECT_TRUE(order == "up" || order == "alternate" ||
                        (order == "zigzag" && gpu_memory_rich()))
                << what;
          }
          if (dim == 3) {
            const int warps = used["warps"].get<int>();
            EXPECT_LE(warps, t.warps ? t.warps : 32) << what;
            EXPECT_GE(warps, 6) << what;  // 3 warps along x at most here
          }
          ++ran;
        }
      }
    }
  }
  EXPECT_EQ(ran, 2 * 4 * 4 * 10) << "expected cuda-norm, -ry2, -ry4 and -col";
}

// cuda-norm's three ways of loading (ahead=off, regs, tma) compute the same points from the
// same values in the same blocks: the grid and the change bit for bit, at sizes whose vectors
// are 1, 2 and 4 values wide (tma takes 16-byte vectors: regs where the rows have none), with the
// chunks given (the rule's depend on each kernel's occupancy), among them chunks of one plane
// (the shortest march: no step ahead), and tma with rings of 3, 4 and 12 stages; marching up
// every sweep or down on even ones (order=alternate), the same grid either way.
TYPED_TEST(TunedStencil, WaysOfLoadingGiveTheSameGridAndChange) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& norm = stencil_impl<T>("cuda-norm");
  for (const std::int64_t n : {5, 33, 64, 130, 203, 256}) {
    const bool sixteen = n % static_cast<std::int64_t>(16 / sizeof(T)) == 0;
    for (const int chunks : {3, 65535}) {
      for (const int warps : {8, 16}) {
        const JacobiStop stop{9, -1, 2};
        JacobiResult up_r;
        nlohmann::json up_used;
        const auto up = run_tuned(norm, 3, n, stop, {warps, chunks, 0, 1, 0, 1}, up_r, up_used);
        for (const int order : {1, 2}) {
          JacobiResult off_r;
          nlohmann::json off_used;
          const auto off =
              run_tuned(norm, 3, n, stop, {warps, chunks, 0, 1, 0, order}, off_r, off_used);
          EXPECT_EQ(off_used.value("ahead", ""), "off");
          // Marching down on even sweeps: the same grid; the change summed in another order.
          EXPECT_EQ(off, up) << "N=" << n << " order " << order;
          EXPECT_NEAR(off_r.norm, up_r.norm, 1e-12 * up_r.norm) << "N=" << n;
          for (const auto& [ahead, stages] :
               {std::pair{2, 0}, std::pair{3, 0}, std::pair{3, 3}, std::pair{3, 12}}) {
            JacobiResult r;
            nlohmann::json used;
            const auto got =
                run_tuned(norm, 3, n, stop, {warps, chunks, 0, ahead, stages, order}, r, used);
            const std::string what = "N=" + std::to_string(n) + " used " + used.dump();
            const bool tma = ahead == 3 && sixteen;
            EXPECT_EQ(used.value("ahead", ""), tma          ? "tma"
                                               : ahead == 2 ? "regs"
                                                            : plain_ahead_name())
                << what;
            EXPECT_EQ(used.value("stages", 0), tma ? (stages ? stages : 3) : 0) << what;
            EXPECT_EQ(used["chunks"], off_used["chunks"]) << what;
            EXPECT_EQ(used["warps"], off_used["warps"]) << what;
            EXPECT_EQ(r.iterations, off_r.iterations) << what;
            EXPECT_EQ(used.value("order", ""), order == 2 ? "alternate" : "up") << what;
            EXPECT_EQ(r.norm, off_r.norm) << what;  // bit for bit
            EXPECT_EQ(got, off) << what;
          }
          // The tma sweep's stage loads under either L2 policy: the same grid and change.
          for (const int l2 : {1, 2}) {
            JacobiResult r;
            nlohmann::json used;
            const auto got =
                run_tuned(norm, 3, n, stop, {warps, chunks, 0, 3, 0, order, 0, l2}, r, used);
            const std::string what = "N=" + std::to_string(n) + " used " + used.dump();
            EXPECT_EQ(used.value("l2", ""), !sixteen ? "" : l2 == 2 ? "last" : "normal") << what;
            EXPECT_EQ(r.norm, off_r.norm) << what;
            EXPECT_EQ(got, off) << what;
          }
        }
      }
    }
  }
}

// order=zigzag: the tma sweep's odd chunks of a column march the other way (and every chunk
// turns on the even sweeps, as with alternate): the grid bit for bit the same as marching up,
// the change within rounding (a chunk marching down sums in another order), at chunks of one
// plane, of a few, and whole columns, odd and even counts of chunks; where the rows have no
// 16-byte vectors (no tma) the order falls back to alternate.
TYPED_TEST(TunedStencil, ZigzagChunksGiveTheSameGrid) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& norm = stencil_impl<T>("cuda-norm");
  int ran = 0;
  for (const std::int64_t n : {8, 33, 64, 130, 256}) {
    const bool sixteen = n % static_cast<std::int64_t>(16 / sizeof(T)) == 0;
    for (const int chunks : {65535, 2, 3, 5}) {
      for (const int warps : {8, 16}) {
        const JacobiStop stop{7, -1, 2};
        JacobiResult up_r;
        nlohmann::json up_used;
        const auto up = run_tuned(norm, 3, n, stop, {warps, chunks, 0, 3, 0, 1}, up_r, up_used);
        JacobiResult r;
        nlohmann::json used;
        const auto got = run_tuned(norm, 3, n, stop, {warps, chunks, 0, 3, 0, 3}, r, used);
        const std::string what = "N=" + std::to_string(n) + " used " + used.dump();
        EXPECT_EQ(used.value("order", ""), sixteen ? "zigzag" : "alternate") << what;
        EXPECT_EQ(used["chunks"], up_used["chunks"]) << what;
        EXPECT_EQ(r.iterations, up_r.iterations) << what;
        EXPECT_NEAR(r.norm, up_r.norm, 1e-12 * up_r.norm) << what;
        EXPECT_EQ(got, up) << what;  // bit for bit
        ++ran;
      }
    }
  }
  EXPECT_EQ(ran, 5 * 4 * 2);
}

// The code's order (no --tune order): zigzag where memory is rich and its chunks are short
// (zigzag_wins: N = 256 on the H200, 5 chunks a column in double, 8 in single), else alternate
// or up; the grid bit for bit that of --tune order=up.
TYPED_TEST(TunedStencil, ZigzagIsTheDefaultWhereItsChunksAreShort) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& norm = stencil_impl<T>("cuda-norm");
  for (const std::int64_t n : {256, 384, 512}) {
    const JacobiStop stop{4, -1, 2};
    JacobiResult r, up_r;
    nlohmann::json used, up_used;
    const auto got = run_tuned(norm, 3, n, stop, {}, r, used);
    const auto up = run_tuned(norm, 3, n, stop, {0, 0, 0, 0, 0, 1}, up_r, up_used);
    const std::string what = "N=" + std::to_string(n) + " used " + used.dump();
    const std::int64_t chunks = used["chunks"].get<std::int64_t>();
    const bool zigzag = used.value("order", "") == "zigzag";
    EXPECT_EQ(zigzag, gpu_memory_rich() && n == 256) << what;
    if (zigzag) {
      EXPECT_GT(chunks, 1) << what;
      EXPECT_LE((n - 2 + chunks - 1) / chunks, stencil::kZigzagMostPlanes) << what;
    }
    EXPECT_EQ(got, up) << what;  // bit for bit
    EXPECT_NEAR(r.norm, up_r.norm, 1e-12 * up_r.norm) << what;
  }
}

// --tune plan=search: cuda-norm's plan found by timing its candidates at upload. The grid bit for
// bit the rule's plan's (the sweeps the search ran outside the runs leave nothing behind: grid 1
// poisoned again, every point of the result written by the runs), the change within rounding
// (another plan's chunks and order sum it in another order), the iterations alike, with and
// without a tolerance, 2D and 3D; the record names the search, the plans it timed (several: the
// rooms allow more than one chunk) and its cost, and the plan kept within the candidates'
// bounds; a key given (chunks) is kept.
TYPED_TEST(TunedStencil, PlanSearchKeepsTheGridAndRecordsThePlan) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto& norm = stencil_impl<T>("cuda-norm");
  int ran = 0;
  for (const int dim : {2, 3}) {
    for (const std::int64_t n : {33, 130, 256}) {
      for (const JacobiStop stop : {JacobiStop{7, -1, 2}, JacobiStop{1, -1, 1}}) {
        for (const int chunks : {0, 2}) {
          JacobiTuning rule_t, search_t;
          rule_t.chunks = search_t.chunks = chunks;
          search_t.plan = 2;
          JacobiResult want_r, r;
          nlohmann::json want_used, used;
          const auto want = run_tuned(norm, dim, n, stop, rule_t, want_r, want_used);
          const auto got = run_tuned(norm, dim, n, stop, search_t, r, used);
          const std::string what = std::to_string(dim) + "D N=" + std::to_string(n) + " max_iter " +
                                   std::to_string(stop.max_iter) + " used " + used.dump();
          EXPECT_FALSE(want_used.contains("plan")) << what;
          EXPECT_EQ(used.value("plan", ""), "search") << what;
          const int tried = used.value("plans_tried", 0);
          EXPECT_GE(tried, chunks ? 1 : 2) << what;
          EXPECT_LE(tried, 1 + 2 * (1 + stencil::kSearchMostChunks)) << what;
          EXPECT_GT(used.value("search_s", 0.0), 0) << what;
          const std::int64_t kept = used["chunks"].get<std::int64_t>();
          if (chunks) {
            EXPECT_EQ(kept, chunks) << what;
          } else {
            EXPECT_GE(kept, 1) << what;
            EXPECT_LE(kept, std::max<std::int64_t>(want_used["chunks"].get<std::int64_t>(),
                                                   stencil::kSearchMostChunks))
                << what;
          }
          if (dim == 3 && used.contains("stages")) {
            EXPECT_TRUE(used["stages"] == 3 || used["stages"] == 4) << what;
          }
          EXPECT_EQ(r.iterations, want_r.iterations) << what;
          EXPECT_NEAR(r.norm, want_r.norm, 1e-12 * want_r.norm) << what;
          EXPECT_EQ(got, want) << what;  // bit for bit
          ++ran;
        }
      }
    }
  }
  EXPECT_EQ(ran, 2 * 3 * 2 * 2);
  // With a tolerance: the same stop as the rule's plan.
  JacobiResult loose_r, r;
  nlohmann::json ignored, used;
  run_tuned(norm, 3, 64, JacobiStop{12, -1, 1}, {}, loose_r, ignored);
  const JacobiStop tol{200, 1.2 * loose_r.norm, 3};
  JacobiTuning search_t;
  search_t.plan = 2;
  JacobiResult want_r;
  const auto want = run_tuned(norm, 3, 64, tol, {}, want_r, ignored);
  const auto got = run_tuned(norm, 3, 64, tol, search_t, r, used);
  EXPECT_TRUE(want_r.converged);
  EXPECT_EQ(r.converged, want_r.converged) << used.dump();
  EXPECT_EQ(r.iterations, want_r.iterations) << used.dump();
  EXPECT_EQ(got, want) << used.dump();
}

// Every CUDA stencil run launched as one graph (launch=graph, and the code's choice without a
// tolerance) against its sweeps launched one by one (launch=stream): the grid, the change and
// the iterations bit for bit, over two timed runs (the graph captured once, replayed twice), 2D
// and 3D, sizes of one vector to several chunks, counts that end on a check or not, and
// cuda-timetile's passes of 1 to 4 sweeps with either norm; the change of cuda-coalesced and
// cuda-naive, summed by atomics in no fixed order, within rounding (as two stream runs are). A
// run with a tolerance reports stream whatever the key (its checks are read as it goes) and
// stops where the streams do.
TYPED_TEST(TunedStencil, GraphRunsAreTheStreamsBitForBit) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  int ran = 0;
  for (const auto& impl : stencil_impls<T>()) {
    if (impl.device != Device::cuda) continue;
    const bool atomic = impl.name == "cuda-coalesced" || impl.name == "cuda-naive";
    for (const int dim : {2, 3}) {
      for (const std::int64_t n : {5, 33, 130}) {
        JacobiResult r12;
        nlohmann::json ignored;
        run_tuned(impl, dim, n, JacobiStop{12, -1, 1}, {}, r12, ignored);
        for (const JacobiStop stop : {JacobiStop{1, -1, 1}, JacobiStop{9, -1, 2},
                                      JacobiStop{13, -1, 4}, JacobiStop{200, 1.2 * r12.norm, 3}}) {
          for (const int norm : {0, 2}) {
            if (norm && impl.name != "cuda-timetile") continue;
            JacobiTuning stream_t, graph_t, chosen_t;
            stream_t.norm = graph_t.norm = chosen_t.norm = norm;
            stream_t.launch = 1;
            graph_t.launch = 2;
            JacobiResult want_r;
            nlohmann::json want_used;
            const auto want = run_tuned(impl, dim, n, stop, stream_t, want_r, want_used);
            EXPECT_EQ(want_used.value("launch", ""), "stream");
            for (const JacobiTuning& t : {graph_t, chosen_t}) {
              JacobiResult got_r;
              nlohmann::json used;
              const auto got = run_tuned(impl, dim, n, stop, t, got_r, used);
              const std::string what = impl.name + " " + std::to_string(dim) +
                                       "D N=" + std::to_string(n) + " max_iter " +
                                       std::to_string(stop.max_iter) + " tol " +
                                       std::to_string(stop.tol) + " used " + used.dump();
              EXPECT_EQ(used.value("launch", ""), stop.tol < 0 ? "graph" : "stream") << what;
              EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
              EXPECT_EQ(got_r.converged, want_r.converged) << what;
              if (atomic) {
                EXPECT_NEAR(got_r.norm, want_r.norm, 1e-12 * want_r.norm) << what;
              } else {
                EXPECT_EQ(got_r.norm, want_r.norm) << what;
              }
              EXPECT_GT(got_r.norm, 0) << what;
              EXPECT_EQ(got, want) << what;
              ++ran;
            }
          }
        }
      }
    }
  }
  // cuda-norm, -ry2, -ry4, -col, -partials, -coalesced, -naive and cuda-timetile (two norms).
  EXPECT_EQ(ran, 9 * 2 * 3 * 4 * 2);
}

}  // namespace
}  // namespace mm
