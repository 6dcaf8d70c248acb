// cuda-blocked's panel leaves: the cluster plan (which width, how many blocks, when the grid
// fallback) checked on the host, and on the GPU every leaf path (grid, cluster of each width,
// one-block and many-block clusters, the fallback) against lu_ref's factors and pivots.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "analysis/check.hpp"
#include "gpu.hpp"
#include "lu.hpp"
#include "random_matrices.hpp"
#include "test_helpers.hpp"
#include "tuning_helpers.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/lu/lu_cuda.hpp"
#endif

namespace mm {
namespace {

template <class T>
class LuLeafTypes : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(LuLeafTypes, Types);

template <class T>
double eps() {
  return std::is_same_v<real_type_t<T>, float> ? 1.2e-7 : 2.3e-16;
}

#ifdef MM_HAVE_CUDA

constexpr std::size_t kH200Smem = 232448;  // sm_90's opt-in shared memory per block

// Every plan keeps its promises: a leaf width, a power-of-two block count within the limit, the
// blocks' rows covering M, shared memory within the limit; the width never grows
// with M; one 32-wide block while M is within the aimed-at rows (at full shared memory); and each
// width (and the fallback) is met somewhere on the way.
TYPED_TEST(LuLeafTypes, ClusterPlanKeepsItsLimits) {
  using T = TypeParam;
  for (const std::size_t smem : {std::size_t{6144}, std::size_t{40000}, kH200Smem}) {
    for (const int most : {1, 4, 16}) {
      std::map<int, int> seen;
      int last = 32;
      for (std::int64_t m = 1; m <= 20000; m += m < 200 ? 1 : 37) {
        const LuLeafPlan p = lu_cuda_leaf_plan<T>(m, most, smem, 128);
        const std::string what = "m=" + std::to_string(m) + " smem=" + std::to_string(smem) +
                                 " most=" + std::to_string(most);
        ++seen[p.width];
        ASSERT_LE(p.width, last) << what;
        last = p.width;
        if (p.width == 0) continue;
        ASSERT_TRUE(p.width == 32 || p.width == 16 || p.width == 8) << what;
        ASSERT_TRUE(p.blocks >= 1 && p.blocks <= most && (p.blocks & (p.blocks - 1)) == 0) << what;
        ASSERT_GE(static_cast<std::int64_t>(p.blocks) * p.rows, m) << what;
        ASSERT_LE(p.smem, smem) << what;
        ASSERT_GE(p.smem, static_cast<std::size_t>(p.rows) * p.width * sizeof(T)) << what;
        if (m <= 128 && smem == kH200Smem) {  // 128 rows fit one block at full size
          ASSERT_EQ(p.width, 32) << what;
          ASSERT_EQ(p.blocks, 1) << what;
        }
      }
      if (smem == 6144 && most == 16) {
        for (const int w : {32, 16, 8, 0}) EXPECT_GT(seen[w], 0) << "width " << w << " never met";
      }
    }
  }
  // Clusters off: always the grid.
  EXPECT_EQ(lu_cuda_leaf_plan<T>(1000, 0, kH200Smem, 128).width, 0);
}

// The sizes the design counts on for n = 16384 on sm_90 with 16-block clusters: 32-wide
// leaves do not fit (1024 rows x 32 x 8 bytes a block is over 227 KB) but narrower ones do, so
// double and complex<double> never fall back to the grid leaf.
TEST(LuLeaf, TallestDoublePanelsFitNarrowerLeaves) {
  const LuLeafPlan d = lu_cuda_leaf_plan<double>(16384, 16, kH200Smem, 128);
  EXPECT_EQ(d.width, 16);
  EXPECT_EQ(d.blocks, 16);
  const LuLeafPlan z = lu_cuda_leaf_plan<std::complex<double>>(16384, 16, kH200Smem, 128);
  EXPECT_EQ(z.width, 8);
  const LuLeafPlan small = lu_cuda_leaf_plan<double>(1024, 16, kH200Smem, 128);
  EXPECT_EQ(small.width, 32);
  EXPECT_EQ(small.blocks, 8);
  // At most 256 rows a block: 16 x 256 rows on a cluster, one more row on the grid.
  EXPECT_EQ(lu_cuda_leaf_plan<double>(4096, 16, kH200Smem, 128, 256).width, 32);
  EXPECT_EQ(lu_cuda_leaf_plan<double>(4097, 16, kH200Smem, 128, 256).width, 0);
}

// The register leaf (real types): 512 threads a block, 256 bytes of rows a thread, from REG_ROWS
// rows up; the widest width (32, 16, 8 or 4) whose rows fit 16 blocks, the fewest blocks of
// whole threads' rows; beyond, the shared-memory plan.
TEST(LuLeaf, RegisterLeafPlans) {
  const auto plan = [](auto type, std::int64_t m, int most = 16) {
    return lu_cuda_leaf_plan<decltype(type)>(m, most, kH200Smem, 128, 256, 4097);
  };
  EXPECT_FALSE(plan(0.0, 4096).reg);
  struct Want {
    std::int64_t m;
    int width, blocks, rows;
  };
  const auto expect = [&](auto type, const Want& w, int most = 16) {
    const LuLeafPlan p = plan(type, w.m, most);
    const std::string what = "m=" + std::to_string(w.m) + " of " + std::to_string(sizeof(type));
    EXPECT_TRUE(p.reg) << what;
    EXPECT_EQ(p.width, w.width) << what;
    EXPECT_EQ(p.blocks, w.blocks) << what;
    EXPECT_EQ(p.rows, w.rows) << what;
  };
  for (const Want& w : {Want{5000, 32, 10, 512}, Want{8192, 32, 16, 512}, Want{16384, 16, 16, 1024},
                        Want{16385, 8, 9, 2048}, Want{32768, 8, 16, 2048}, Want{32769, 4, 9, 4096},
                        Want{65536, 4, 16, 4096}})
    expect(0.0, w);
  expect(0.0f, Want{16384, 32, 16, 1024});
  expect(0.0f, Want{65536, 8, 16, 4096});
  expect(0.0f, Want{65537, 4, 9, 8192});
  // Complex leaves stay in shared memory.
  EXPECT_FALSE(plan(std::complex<float>{}, 8192).reg);
  EXPECT_FALSE(plan(std::complex<double>{}, 8192).reg);
  // Too tall for 16 blocks even 4 wide: the shared-memory plan or the grid.
  EXPECT_FALSE(plan(0.0, 65537).reg);
  EXPECT_FALSE(plan(0.0, 5000, 1).reg);
  EXPECT_FALSE(plan(0.0f, 131073).reg);
  expect(0.0, Want{5000, 4, 2, 4096}, 2);
  EXPECT_TRUE(plan(0.0, 2048 + 4097, 4).reg);
  // Off at 0 (the test default of lu_cuda_leaf_plan).
  EXPECT_FALSE(lu_cuda_leaf_plan<double>(16384, 16, kH200Smem, 128).reg);
}

// The leaf settings, as mmlu's --tune items (LuTuning::from parses them as the tool does).
const std::vector<std::pair<std::string, std::vector<std::string>>>& leaf_settings() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> s{
      {"grid", {"leaf=grid"}},
      {"cluster", {"leaf=cluster"}},
      {"cluster, sync exchange", {"leaf=cluster", "exchange=sync"}},
      // 6 KB a block: 32-, 16- and 8-wide leaves and the grid fallback in one factorization.
      {"cluster smem=6144", {"leaf=cluster", "leaf_smem=6144"}},
      {"cluster smem=6144, sync exchange", {"leaf=cluster", "leaf_smem=6144", "exchange=sync"}},
      // One block holding every row (8-wide leaves at n = 2048), however many rows.
      {"cluster of 1", {"leaf=cluster", "cluster=1", "cluster_max_rows=100000"}},
      {"cluster of 4, 1 row aimed", {"leaf=cluster", "cluster=4", "cluster_rows=1"}},
      // Every leaf on registers: 32 wide on up to 16 blocks; 16 (double at n = 2048) on 2;
      // 8 (double) on 1.
      {"register leaf", {"leaf=cluster", "reg_rows=1"}},
      {"register leaf, cluster of 2", {"leaf=cluster", "reg_rows=1", "cluster=2"}},
      {"register leaf, cluster of 1", {"leaf=cluster", "reg_rows=1", "cluster=1"}},
      // Programmatic launch (the default) in the graph (auto at these sizes), on the streams,
      // and none.
      {"streams", {"graph=off"}},
      {"no programmatic launch", {"pdl=off"}},
  };
  return s;
}

constexpr auto tuning_of = test::parse_tuning<LuTuning>;

// Factors A by cuda-blocked under TUNING with panel width NB; returns the tuning it reports.
template <class T>
nlohmann::json blocked_factor(const Dense<T>& a, std::int64_t nb, const LuTuning& tuning,
                              Dense<T>& lu, std::vector<std::int64_t>& ipiv) {
  lu = Dense<T>(a.rows, a.cols, test::poison<T>());
  ipiv.assign(static_cast<std::size_t>(a.rows), -7);
  LuProblem<T> p{&a, &lu, &ipiv, tuning};
  p.tuning.nb = static_cast<int>(nb);
  auto r = make_lu_cuda_blocked(p);
  r->upload();
  r->run();
  r->timed_run();  // a second factorization of A, not of the factors
  r->download();
  return r->tuning();
}

// lu_ref's factors and pivots of a matrix.
template <class T>
struct RefLu {
  Dense<T> lu;
  std::vector<std::int64_t> piv;
};
template <class T>
RefLu<T> ref_factors(const Dense<T>& a) {
  RefLu<T> want{a, std::vector<std::int64_t>(static_cast<std::size_t>(a.rows))};
  lu_ref(want.lu, want.piv.data());
  return want;
}

// Whether LU with pivots IPIV factors A within the backward-error bound (40 n eps).
template <class T>
::testing::AssertionResult factors_within_bound(const Dense<T>& a, const Dense<T>& lu,
                                                const std::vector<std::int64_t>& ipiv) {
  const auto r =
      check::lu_check(to_mtx(a), to_mtx(lu), ipiv, 40.0 * static_cast<double>(a.rows) * eps<T>());
  if (r.pass) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "||PA-LU||/||A|| = " << r.relative_error;
}

// The pivots lu_ref's (WANT), and then the factors lu_ref's within rounding (200 n eps).
template <class T>
void expect_ref_factors(const Dense<T>& lu, const std::vector<std::int64_t>& ipiv,
                        const RefLu<T>& want, const std::string& what) {
  EXPECT_EQ(ipiv, want.piv) << what;
  if (ipiv == want.piv)
    test::expect_close(lu.data, want.lu.data, 200.0 * static_cast<double>(lu.rows) * eps<T>(),
                       what + ": factors vs lu_ref");
}

// What the runner reports for the setting's ITEMS is what they asked for: the most blocks of a
// cluster at most the asked, the register leaf off for complex types, the rest as given.
template <class T>
void expect_reported(const std::vector<std::string>& items, const nlohmann::json& used,
                     const std::string& what) {
  for (const std::string& item : items) {
    const std::string key = item.substr(0, item.find('=')), value = item.substr(item.find('=') + 1);
    ASSERT_TRUE(used.contains(key)) << what << ": " << key << " not reported in " << used.dump();
    const nlohmann::json& got = used.at(key);
    if (key == "cluster") {
      EXPECT_GE(got.get<int>(), 1) << what;
      EXPECT_LE(got.get<int>(), std::stoi(value)) << what;
    } else if (key == "reg_rows" && is_complex_v<T>) {
      EXPECT_EQ(got, 0) << what << ": complex leaves stay in shared memory";
    } else {
      EXPECT_EQ(got.is_string() ? got.get<std::string>() : got.dump(), value)
          << what << ": " << key;
    }
  }
}

// Each leaf setting against lu_ref on random (pivoting) N x N matrices, seeds from SEED: pivots
// equal in double (the column maxima are far apart), factors within the backward-error bound.
template <class T>
void expect_every_leaf_path(const std::vector<std::int64_t>& sizes, std::uint64_t seed) {
  constexpr bool kDouble = std::is_same_v<real_type_t<T>, double>;
  for (const std::int64_t n : sizes) {
    const Dense<T> a = test::random_dense<T>(n, n, seed++);
    const auto want = ref_factors(a);
    for (const auto& [name, items] : leaf_settings()) {
      for (const std::int64_t nb : {std::int64_t{0}, std::int64_t{256}}) {
        const std::string what = name + " n=" + std::to_string(n) + " nb=" + std::to_string(nb);
        Dense<T> lu;
        std::vector<std::int64_t> ipiv;
        const nlohmann::json used = blocked_factor(a, nb, tuning_of(items), lu, ipiv);
        expect_reported<T>(items, used, what);
        EXPECT_EQ(used.at("nb"), nb > 0 ? nb : lu_cuda_default_nb(n)) << what;
        if (std::find(items.begin(), items.end(), "graph=off") == items.end()) {
          EXPECT_EQ(used.at("graph"), "on") << what << ": auto takes the graph up to n = 4096";
        }
        EXPECT_EQ(used.contains("exchange"), name != "grid") << what << ": " << used.dump();
        if (std::find(items.begin(), items.end(), "pdl=off") == items.end()) {
          EXPECT_EQ(used.at("pdl"), "on") << what << ": programmatic launch is the default";
        }
        for (const auto& v : lu.data) ASSERT_FALSE(std::isnan(std::abs(v))) << what;
        EXPECT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
        if (kDouble || n <= 33) expect_ref_factors(lu, ipiv, want, what);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Sizes around the leaf widths, within one panel: small enough for compute-sanitizer's racecheck
// (scripts/gpu-sanitize.sh) on the leaves' exchanges between the blocks of a cluster.
TYPED_TEST(LuLeafTypes, EveryLeafPathOnOnePanel) {
  MM_REQUIRE_GPU();
  expect_every_leaf_path<TypeParam>({7, 33}, 900);
}

// Larger sizes: several panels, a narrow last one (1100, nb 128), and look-ahead steps.
TYPED_TEST(LuLeafTypes, EveryLeafPathMatchesRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  std::vector<std::int64_t> sizes{300, 1100};
  if (!is_complex_v<T>) sizes.push_back(2048);  // the serial complex ref would take minutes
  expect_every_leaf_path<T>(sizes, 902);
}

// Panels wider than the small solve's 256 rows against lu_ref, under the default leaves, the
// grid leaf and cuBLAS's TRSM; pivots equal in double. nb 384 and 512: the top split's TRSM on
// cuBLAS, a row gather of up to 1024 slots, leaves swapping up to 480 columns outside them;
// 1024: two halves apart (each swapping the other's columns by gathers after it); at n = 1100
// nb 2048 takes the whole matrix as one panel of 1100, its halves of 550 apart again. Complex
// types (the same splits; slower serial ref) at n = 600: a panel of 384 or 512 and a narrow one,
// or one of 600 in halves apart.
TYPED_TEST(LuLeafTypes, WidePanelsMatchRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool kDouble = std::is_same_v<real_type_t<T>, double>;
  const std::vector<std::int64_t> sizes =
      is_complex_v<T> ? std::vector<std::int64_t>{600} : std::vector<std::int64_t>{300, 1100};
  std::uint64_t seed = 2900;
  const std::vector<std::pair<std::string, std::vector<std::string>>> settings{
      {"default", {}}, {"grid", {"leaf=grid"}}, {"cublas trsm", {"trsm=cublas"}}};
  for (const std::int64_t n : sizes) {
    const Dense<T> a = test::random_dense<T>(n, n, seed++);
    const auto want = ref_factors(a);
    for (const auto& [name, items] : settings) {
      for (const std::int64_t nb :
           {std::int64_t{384}, std::int64_t{512}, std::int64_t{1024}, std::int64_t{2048}}) {
        const std::string what = name + " n=" + std::to_string(n) + " nb=" + std::to_string(nb);
        Dense<T> lu;
        std::vector<std::int64_t> ipiv;
        const nlohmann::json used = blocked_factor(a, nb, tuning_of(items), lu, ipiv);
        EXPECT_EQ(used.at("nb"), nb) << what;
        EXPECT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
        if (kDouble) expect_ref_factors(lu, ipiv, want, what);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// trsm=inverse: each rest's update by a GEMM with inv(L11) (made on the update stream, one
// buffer reused by every step) against lu_ref: at n = 1100 (complex: 600) nb 128 (eight steps of a
// rest), 384 (an inverse of halves 256 and 128) and 512 (two small solves joined by GEMMs); in
// double also n = 2100 at nb 1024 (halves of 512 inverted from halves again, the scratch reused).
TYPED_TEST(LuLeafTypes, InverseUpdateMatchesRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool kDouble = std::is_same_v<real_type_t<T>, double>;
  std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>> cases{
      {is_complex_v<T> ? 600 : 1100, {128, 384, 512}}};
  if (std::is_same_v<T, double>) cases.push_back({2100, {1024}});
  for (const auto& [n, widths] : cases) {
    const Dense<T> a = test::random_dense<T>(n, n, 3100 + static_cast<std::uint64_t>(n));
    const auto want = ref_factors(a);
    for (const std::int64_t nb : widths) {
      const std::string what = "n=" + std::to_string(n) + " nb=" + std::to_string(nb);
      Dense<T> lu;
      std::vector<std::int64_t> ipiv;
      const nlohmann::json used = blocked_factor(a, nb, tuning_of({"trsm=inverse"}), lu, ipiv);
      EXPECT_EQ(used.at("trsm"), "inverse") << what;
      EXPECT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
      if (kDouble) expect_ref_factors(lu, ipiv, want, what);
    }
  }
}

// trsm=split: the rest's update's TRSM on B wider than kMaxNb (2048) split into 256-row blocks
// (cuBLAS's TRSM on each, GEMMs between), which needs n > 2048 + 2 nb: in double, n = 3200 at nb
// 512 (one split) and 4400 at nb 1024 (nested), against the default's factors on the GPU
// (lu_ref at these sizes is slow on the host).
TEST(LuLeaf, SplitUpdateMatchesDefault) {
  MM_REQUIRE_GPU();
  for (const auto& [n, nb] : {std::pair<std::int64_t, std::int64_t>{3200, 512}, {4400, 1024}}) {
    const std::string what = "n=" + std::to_string(n) + " nb=" + std::to_string(nb);
    const Dense<double> a = test::random_dense<double>(n, n, 3300 + static_cast<std::uint64_t>(n));
    RefLu<double> want{Dense<double>{}, {}};
    blocked_factor(a, nb, LuTuning{}, want.lu, want.piv);
    Dense<double> lu;
    std::vector<std::int64_t> ipiv;
    const nlohmann::json used = blocked_factor(a, nb, tuning_of({"trsm=split"}), lu, ipiv);
    EXPECT_EQ(used.at("trsm"), "split") << what;
    EXPECT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
    expect_ref_factors(lu, ipiv, want, what);
  }
}

// The register leaf at its narrowest, 4 columns (double from 32769 rows on 16 blocks, float from
// 65537): here on clusters of one block, where it takes the panels of 2049 to 4096 rows in double
// and of 4097 to 8192 in float. Double at n = 2500 against lu_ref (pivots equal); float at
// n = 4200 within the backward-error bound (lu_ref in float at that size is slow on the host).
TEST(LuLeaf, FourWideRegisterLeavesMatchRef) {
  EXPECT_EQ(lu_cuda_leaf_plan<double>(2500, 1, kH200Smem, 128, 256, 1).width, 4);
  EXPECT_EQ(lu_cuda_leaf_plan<float>(4200, 1, kH200Smem, 128, 256, 1).width, 4);
  MM_REQUIRE_GPU();
  const std::vector<std::string> items{"reg_rows=1", "cluster=1"};
  const Dense<double> a = test::random_dense<double>(2500, 2500, 4400);
  const auto want = ref_factors(a);
  for (const std::int64_t nb : {std::int64_t{0}, std::int64_t{256}}) {
    const std::string what = "double n=2500 nb=" + std::to_string(nb);
    Dense<double> lu;
    std::vector<std::int64_t> ipiv;
    const nlohmann::json used = blocked_factor(a, nb, tuning_of(items), lu, ipiv);
    EXPECT_EQ(used.at("cluster"), 1) << what;
    EXPECT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
    expect_ref_factors(lu, ipiv, want, what);
  }
  const Dense<float> f = test::random_dense<float>(4200, 4200, 4401);
  Dense<float> lu;
  std::vector<std::int64_t> ipiv;
  blocked_factor(f, 512, tuning_of(items), lu, ipiv);
  for (const auto& v : lu.data) ASSERT_FALSE(std::isnan(v)) << "float n=4200";
  EXPECT_TRUE(factors_within_bound(f, lu, ipiv)) << "float n=4200";
}

// The panel's small triangular solve (LuTuning::trsm=warp) against forward substitution on the
// host, on row counts around its lane groups (32, 64, 128, 256 rows) and column counts around
// its blocks (16 columns each): the solved block within rounding, every other entry untouched.
// L's strict lower part is scaled by 1/k so that the solve stays well conditioned.
TYPED_TEST(LuLeafTypes, SmallSolveMatchesForwardSubstitution) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  if constexpr (is_complex_v<T>) {
    Dense<T> m(2, 3);
    EXPECT_THROW(lu_cuda_small_solve(m, 2, 1), UsageError) << "complex values keep cuBLAS's TRSM";
  } else {
    std::uint64_t seed = 4100;
    for (const int k : {1, 2, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129, 200, 255, 256}) {
      for (const std::int64_t c : {std::int64_t{1}, std::int64_t{15}, std::int64_t{16},
                                   std::int64_t{17}, std::int64_t{40}}) {
        const std::string what = "k=" + std::to_string(k) + " c=" + std::to_string(c);
        Dense<T> m = test::random_dense<T>(k + 1, k + c + 3, seed++);
        for (int i = 0; i < k; ++i)
          for (int p = 0; p < i; ++p) m(i, p) /= static_cast<T>(k);
        Dense<T> want = m;
        for (std::int64_t j = k; j < k + c; ++j)
          for (int i = 0; i < k; ++i) {
            double v = static_cast<double>(want(i, j));
            for (int p = 0; p < i; ++p)
              v -= static_cast<double>(want(i, p)) * static_cast<double>(want(p, j));
            want(i, j) = static_cast<T>(v);
          }
        lu_cuda_small_solve(m, k, c);
        for (std::int64_t i = 0; i < m.rows; ++i)
          for (std::int64_t j = 0; j < m.cols; ++j) {
            if (i < k && j >= k && j < k + c)
              ASSERT_NEAR(m(i, j), want(i, j), 20.0 * k * eps<T>() * (1.0 + std::abs(want(i, j))))
                  << what << " at (" << i << ", " << j << ")";
            else
              ASSERT_EQ(m(i, j), want(i, j)) << what << ": (" << i << ", " << j << ") moved";
          }
      }
    }
  }
}

// Ties: entries in {-1, 0, 1}, column 0 zero in its first two thirds, so that the largest
// magnitude of each of the first columns is shared by many rows spread over the leaf's blocks
// and warps, and the pivot is the first of them (LAPACK's choice, lu_ref's). The first three
// columns' arithmetic is exact (pivots of magnitude 1 or 2), so their pivots must equal
// lu_ref's on every leaf path; later columns round differently from lu_ref, so the rest is
// held to the backward-error bound. Sizes that take the shared-memory leaves (300) and the
// register leaf (1100, 2048).
TYPED_TEST(LuLeafTypes, TiedPivotsPickTheFirstRow) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  if (is_complex_v<T>) GTEST_SKIP() << "the real types cover the pivot search's ties";
  for (const std::int64_t n : {std::int64_t{300}, std::int64_t{1100}, std::int64_t{2048}}) {
    Dense<T> a = test::random_dense<T>(n, n, 31 + static_cast<std::uint64_t>(n));
    for (auto& v : a.data) v = std::real(v) < -0.3 ? T(-1) : std::real(v) > 0.3 ? T(1) : T(0);
    for (std::int64_t i = 0; i < 2 * n / 3; ++i) a(i, 0) = T{};
    const auto want = ref_factors(a);
    ASSERT_GE(want.piv[0], 2 * n / 3);
    for (const auto& [name, items] : leaf_settings()) {
      const std::string what = name + " n=" + std::to_string(n);
      Dense<T> lu;
      std::vector<std::int64_t> ipiv;
      blocked_factor(a, 0, tuning_of(items), lu, ipiv);
      for (std::size_t j = 0; j < 3; ++j)
        EXPECT_EQ(ipiv[j], want.piv[j]) << what << ", column " << j;
      EXPECT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
    }
  }
}

// An exact zero pivot deep in the factorization (a zero column at 450 of 700: a cluster leaf
// at full shared memory, the grid or a narrow leaf at 6 KB) names the CPU's column.
TYPED_TEST(LuLeafTypes, ZeroPivotOnEveryLeafPath) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  Dense<T> a = test::random_dense<T>(700, 700, 77);
  for (std::int64_t i = 0; i < 700; ++i) a(i, 450) = T{};
  for (const auto& [name, items] : leaf_settings()) {
    Dense<T> lu;
    std::vector<std::int64_t> ipiv;
    try {
      blocked_factor(a, 0, tuning_of(items), lu, ipiv);
      ADD_FAILURE() << name << ": no error for a singular matrix";
    } catch (const NumericalError& e) {
      EXPECT_EQ(std::string(e.what()), zero_pivot_message(450)) << name;
    }
  }
}

// The leaves' column steps are deterministic: a race between a block's warps (a row rewritten
// before another warp had pushed it; seen once in some runs of n = 2048 in single precision)
// shows as one factorization differing from the others. The first is checked against lu_ref's
// pivots and the backward-error bound; every later run of the same engine must equal it bit for
// bit.
TYPED_TEST(LuLeafTypes, RepeatedRunsAreBitwiseEqual) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  if (is_complex_v<T>) GTEST_SKIP() << "the real types cover the leaf's exchange";
  constexpr std::int64_t n = 2048;
  const Dense<T> a = test::random_dense<T>(n, n, 4242);
  for (const char* reg_rows : {"auto", "1"}) {  // the default leaves, then all on registers
    const std::string what = std::string("reg_rows=") + reg_rows;
    Dense<T> first(n, n), lu(n, n);
    std::vector<std::int64_t> first_piv(n), ipiv(n);
    auto r = make_lu_cuda_blocked(LuProblem<T>{&a, &lu, &ipiv, tuning_of({what})});
    r->upload();
    for (int run = 0; run < 40; ++run) {
      r->run();
      r->download();
      if (run == 0) {
        ASSERT_TRUE(factors_within_bound(a, lu, ipiv)) << what;
        first = lu, first_piv = ipiv;
        continue;
      }
      ASSERT_EQ(ipiv, first_piv) << what << ", run " << run;
      std::size_t differ = 0;
      for (std::size_t i = 0; i < lu.data.size(); ++i)
        differ += std::memcmp(&lu.data[i], &first.data[i], sizeof(T)) != 0;
      ASSERT_EQ(differ, 0u) << what << ", run " << run << ": elements differing from the first run";
    }
  }
}

#else

TEST(LuLeaf, BuiltWithoutCuda) {
  GTEST_SKIP() << "built without CUDA: no cuda-blocked leaves to test";
}

#endif

}  // namespace
}  // namespace mm
