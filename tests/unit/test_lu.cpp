// LU: every implementation checked by ||PA - LU|| / ||A|| on awkward sizes and the corpus,
// pivots against ref, zero-pivot detection, the trailing-update product and substitution;
// the CUDA ones (where a GPU exists) also against lu_ref's factors and pivots.
#include <gtest/gtest.h>
#include <omp.h>

#include "analysis/check.hpp"
#include "gpu.hpp"
#include "lu.hpp"
#include "random_matrices.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

template <class T>
class LuTypes : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(LuTypes, Types);

template <class T>
double eps() {
  return std::is_same_v<real_type_t<T>, float> ? 1.2e-7 : 2.3e-16;
}

template <class T>
const Impl<LuMake<T>>& ref_impl() {
  for (const auto& i : lu_impls<T>())
    if (i.name == "ref") return i;
  throw std::logic_error("no ref LU");
}

// Runs IMPL on A through its runner as the tools do (a run, then a timed run: both must factor
// A afresh), the factors and pivots poisoned first (CUDA runners poison their device copies).
template <class T>
void factor(const Impl<LuMake<T>>& impl, const Dense<T>& a, Dense<T>& lu,
            std::vector<std::int64_t>& ipiv) {
  lu = Dense<T>(a.rows, a.cols, test::poison<T>());
  ipiv.assign(static_cast<std::size_t>(a.rows), -7);
  LuProblem<T> p{&a, &lu, &ipiv};
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->timed_run();  // as the tools do: a second run factors A again, not the factors
  r->download();
}

// The check mmcheck lu runs, with a tolerance for the value type.
template <class T>
void expect_factors(const Dense<T>& a, const Dense<T>& lu, const std::vector<std::int64_t>& ipiv,
                    double tol, const std::string& what) {
  for (const auto& v : lu.data)
    ASSERT_FALSE(std::isnan(std::abs(v))) << what << ": unwritten (NaN) factor";
  for (auto p : ipiv) ASSERT_TRUE(p >= 1 && p <= a.rows) << what << ": pivot " << p;
  const auto r = check::lu_check(to_mtx(a), to_mtx(lu), ipiv, tol);
  EXPECT_TRUE(r.pass) << what << ": ||PA-LU||/||A|| = " << r.relative_error << " > " << tol;
}

// Diagonally dominant (no row swaps needed) or not (uniform in [-1, 1)).
template <class T>
Dense<T> test_matrix(std::int64_t n, bool dominant, std::uint64_t seed) {
  Dense<T> a = test::random_dense<T>(n, n, seed);
  if (dominant)
    for (std::int64_t i = 0; i < n; ++i) a(i, i) += T(static_cast<double>(n));
  return a;
}

TEST(Lu, ReferenceByHandNeedsPivoting) {
  Dense<double> a(2, 2);
  a(0, 1) = 1;
  a(1, 0) = 1;
  std::vector<std::int64_t> ipiv(2);
  lu_ref(a, ipiv.data());
  EXPECT_EQ(ipiv, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(a.data, (std::vector<double>{1, 0, 0, 1}));
  // [[2, 1], [4, 3]]: pivot 4, l = 0.5, u22 = 1 - 0.5*3 = -0.5.
  Dense<double> b(2, 2);
  b.data = {2, 1, 4, 3};
  lu_ref(b, ipiv.data());
  EXPECT_EQ(ipiv, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(b.data, (std::vector<double>{4, 3, 0.5, -0.5}));
}

TYPED_TEST(LuTypes, EveryImplFactorsAwkwardSizes) {
  using T = TypeParam;
  std::uint64_t seed = 11;
  for (const std::int64_t n : {1, 2, 7, 31, 33, 129, 300, 1000}) {
    for (const bool dominant : {true, false}) {
      if (n == 1000 && is_complex_v<T>) continue;  // the serial ref: time, not coverage
      const Dense<T> a = test_matrix<T>(n, dominant, seed++);
      for (const auto& impl : lu_impls<T>()) {
        if (!test::runnable(impl.device)) continue;  // CUDA ones: where a GPU exists
        Dense<T> lu;
        std::vector<std::int64_t> ipiv;
        factor(impl, a, lu, ipiv);
        // Backward error of partial pivoting: O(n eps) times a growth factor, small here.
        const double tol = 40.0 * static_cast<double>(n) * eps<T>();
        expect_factors(
            a, lu, ipiv, tol,
            impl.name + " n=" + std::to_string(n) + (dominant ? " dominant" : " random"));
        if (dominant) {  // the diagonal is the largest in its column all along: no swaps
          for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(ipiv[i], i + 1) << impl.name;
        }
      }
    }
  }
}

// Sparse shapes made dense: a full first row, every third row otherwise empty but for its
// diagonal (so nonsingular), as mmlu sees sparse files.
TYPED_TEST(LuTypes, SparseShapesMadeDense) {
  using T = TypeParam;
  for (const auto& shape : {test::Shape{"dense-row", 300, 300, 0.01, false, true},
                            test::Shape{"empty-rows", 200, 200, 0.05, true, false}}) {
    Dense<T> a = coo_to_dense(csr_to_coo(test::random_csr<std::int32_t, T>(shape, 8)));
    for (std::int64_t i = 0; i < a.rows; ++i) a(i, i) += T(2);
    for (const auto& impl : lu_impls<T>()) {
      if (!test::runnable(impl.device)) continue;
      Dense<T> lu;
      std::vector<std::int64_t> ipiv;
      factor(impl, a, lu, ipiv);
      expect_factors(a, lu, ipiv, 40.0 * static_cast<double>(a.rows) * eps<T>(),
                     impl.name + " " + shape.name);
    }
  }
}

// mmlu's default on the GPU: cuda-blocked for real double from 2048 (the H100 and the H200
// alike), cuSOLVER below and for the other value types.
TEST(Lu, CudaChoiceFollowsTheSizeAndTheType) {
  struct Case {
    std::int64_t n;
    bool real_double;
    const char* want;
  };
  for (const Case& c : std::vector<Case>{{1024, true, "cusolver"},
                                         {2047, true, "cusolver"},
                                         {2048, true, "cuda-blocked"},
                                         {32768, true, "cuda-blocked"},
                                         {2048, false, "cusolver"},
                                         {16384, false, "cusolver"}})
    EXPECT_EQ(lu_cuda_choice(c.n, c.real_double), c.want)
        << "n=" << c.n << " real_double=" << c.real_double;
}

// The choice is what mmlu runs: lu_default_impl on the GPU follows the size and the value
// type; on the CPU it is the list's first.
TEST(Lu, DefaultImplFollowsTheChoice) {
  EXPECT_EQ(lu_default_impl<double>(4096, Device::cpu).name, "lapack");
  MM_REQUIRE_GPU();
  EXPECT_EQ(lu_default_impl<double>(2048, Device::cuda).name, "cuda-blocked");
  EXPECT_EQ(lu_default_impl<double>(8192, Device::cuda).name, "cuda-blocked");
  EXPECT_EQ(lu_default_impl<double>(1000, Device::cuda).name, "cusolver");
  EXPECT_EQ(lu_default_impl<float>(8192, Device::cuda).name, "cusolver");
  EXPECT_EQ(lu_default_impl<std::complex<double>>(8192, Device::cuda).name, "cusolver");
}

// The same pivot sequence as the reference: the column maxima are far apart on random data.
TEST(Lu, PivotsMatchRef) {
  for (const std::int64_t n : {33, 200, 513}) {
    const Dense<double> a = test_matrix<double>(n, false, 5 + n);
    Dense<double> want_lu;
    std::vector<std::int64_t> want;
    factor(ref_impl<double>(), a, want_lu, want);
    for (const auto& impl : lu_impls<double>()) {
      if (!test::runnable(impl.device)) continue;
      Dense<double> lu;
      std::vector<std::int64_t> ipiv;
      factor(impl, a, lu, ipiv);
      EXPECT_EQ(ipiv, want) << impl.name << " n=" << n;
      test::expect_close(lu.data, want_lu.data, 1e-9, impl.name + " factors");
    }
  }
}

TYPED_TEST(LuTypes, ZeroPivotNamesTheColumn) {
  using T = TypeParam;
  // Rows 1 and 2 equal: after the first step they stay equal, and their difference, the
  // pivot of column 3, is exactly zero. Then a zero column 40 in a larger matrix (0-based
  // columns below).
  Dense<T> a(3, 3);
  a.data = {T(1), T(2), T(3), T(1), T(2), T(3), T(4), T(5), T(7)};
  Dense<T> b = test_matrix<T>(300, false, 3);
  for (std::int64_t i = 0; i < 300; ++i) b(i, 39) = T{};
  // A zero row stays zero and is left for the last column.
  Dense<T> z = test_matrix<T>(100, false, 4);
  for (std::int64_t j = 0; j < 100; ++j) z(17, j) = T{};
  for (const auto& [m, col] : {std::pair{a, 2}, std::pair{b, 39}, std::pair{z, 99}}) {
    for (const auto& impl : lu_impls<T>()) {
      if (!test::runnable(impl.device)) continue;
      Dense<T> lu;
      std::vector<std::int64_t> ipiv;
      try {
        factor(impl, m, lu, ipiv);
        ADD_FAILURE() << impl.name << ": no error for a singular matrix";
      } catch (const NumericalError& e) {
        EXPECT_EQ(std::string(e.what()), zero_pivot_message(col)) << impl.name;
      }
    }
  }
}

// The trailing update is gemm_cpu_blocked's packed product on sub-blocks: every micro-kernel
// family this CPU runs, on one thread and on three.
TYPED_TEST(LuTypes, TrailingUpdateMatchesNaiveProduct) {
  using T = TypeParam;
  const int saved = omp_get_max_threads();
  std::uint64_t seed = 1;
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{1, 1, 1},
                                                                        {7, 9, 3},
                                                                        {8, 16, 8},
                                                                        {17, 33, 31},
                                                                        {129, 300, 130},
                                                                        {300, 1030, 257},
                                                                        {0, 5, 5},
                                                                        {5, 5, 0}}) {
    // Blocks inside larger arrays: leading dimensions bigger than the widths.
    const std::int64_t lda = k + 3, ldb = n + 5, ldc = n + 1;
    const auto a = test::random_vector<T>(m * lda, seed++);
    const auto b = test::random_vector<T>(k * ldb, seed++);
    const auto c0 = test::random_vector<T>(m * ldc, seed++);
    auto want = c0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T s{};
        for (std::int64_t p = 0; p < k; ++p) s += a[i * lda + p] * b[p * ldb + j];
        want[i * ldc + j] -= s;
      }
    for (const int threads : {1, 3}) {
      omp_set_num_threads(threads);
      for (const GemmKernel kind :
           {GemmKernel::portable, GemmKernel::avx2, GemmKernel::avx512, GemmKernel::best}) {
        if (!gemm_kernel_supported(kind)) continue;
        auto c = c0;
        gemm_sub_cpu(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, kind);
        test::expect_close(c, want, test::tolerance<T>(k) * 4,
                           "update " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                               std::to_string(k) + " " + gemm_kernel_name<T>(kind) + " threads " +
                               std::to_string(threads));
        // Padding columns of C (past n in each row) are never written.
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = n; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], c0[i * ldc + j]);
      }
    }
  }
  omp_set_num_threads(saved);
}

TYPED_TEST(LuTypes, SubstitutionSolves) {
  using T = TypeParam;
  for (const std::int64_t n : {1, 31, 200}) {
    for (const std::int64_t k : {1, 3, 70}) {
      const Dense<T> a = test_matrix<T>(n, false, static_cast<std::uint64_t>(n * 100 + k));
      Dense<T> lu = a;
      std::vector<std::int64_t> ipiv(static_cast<std::size_t>(n));
      lu_ref(lu, ipiv.data());
      const Dense<T> xt = test::random_dense<T>(n, k, 9);
      Dense<T> b(n, k);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < k; ++c)
          for (std::int64_t j = 0; j < n; ++j) b(i, c) += a(i, j) * xt(j, c);
      Dense<T> x1 = b, x2 = b;
      lu_solve_ref(lu, ipiv.data(), x1);
      lu_solve_cpu(lu, ipiv.data(), x2);
      test::expect_close(x2.data, x1.data, test::tolerance<T>(n) * 4, "cpu vs ref");
      // Random matrices are mildly conditioned: x within a loose multiple of eps.
      test::expect_close(x1.data, xt.data, 2e4 * static_cast<double>(n) * eps<T>(),
                         "ref vs x_true");
    }
  }
}

TEST(Lu, EveryImplOnTheCorpus) {
  int checked = 0;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    if (!m.header.is_square() || m.header.rows > 1200 || m.header.rows == 0) continue;
    const bool complex = m.header.field == Field::complex;
    auto run = [&]<class T>() {
      const Dense<T> a = to_dense<T>(m);
      for (const auto& v : a.data)
        if (!std::isfinite(std::abs(v))) return;  // the corpus holds inf and nan on purpose
      std::string ref_error;
      Dense<T> ref_lu;
      std::vector<std::int64_t> ref_piv;
      try {
        factor(ref_impl<T>(), a, ref_lu, ref_piv);
      } catch (const NumericalError& e) {
        ref_error = e.what();
      }
      for (const auto& impl : lu_impls<T>()) {
        if (!test::runnable(impl.device)) continue;
        Dense<T> lu;
        std::vector<std::int64_t> ipiv;
        if (!ref_error.empty()) {  // exactly singular: every implementation says so
          EXPECT_THROW(factor(impl, a, lu, ipiv), NumericalError) << impl.name << " on " << f;
          continue;
        }
        factor(impl, a, lu, ipiv);
        expect_factors(a, lu, ipiv, check::default_lu_tol(a.rows), impl.name + " on " + f);
      }
      ++checked;
    };
    if (complex)
      run.template operator()<std::complex<double>>();
    else
      run.template operator()<double>();
  }
  EXPECT_GE(checked, 8);
}

// ---- GPU ------------------------------------------------------------------------------------

// Every CUDA implementation against lu_ref on random (pivoting) matrices: sizes around the
// 32-column leaf, 100 and 1100 (no multiple of any panel width: the last panel is narrow and
// a leaf splits unevenly), 1000, and 2048 (cuda-blocked's 128-wide panels, 16 steps of
// look-ahead; cuda-hybrid left out there, it is the slow one). Factors within the backward
// error bound; in double (and up to n = 33 in single) the pivots are lu_ref's (the column
// maxima are far apart, rounding cannot reorder them) and the factors elementwise close to
// lu_ref's. Diagonally dominant matrices need no swap: the pivots are the identity.
TYPED_TEST(LuTypes, CudaImplsMatchRef) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  constexpr bool kDouble = std::is_same_v<real_type_t<T>, double>;
  std::vector<std::int64_t> sizes{1, 2, 31, 33, 100, 1000, 1100};
  if (!is_complex_v<T>) sizes.push_back(2048);  // the serial complex ref would take minutes
  std::uint64_t seed = 700;
  int ran = 0;
  for (const std::int64_t n : sizes) {
    for (const bool dominant : {false, true}) {
      const Dense<T> a = test_matrix<T>(n, dominant, seed++);
      Dense<T> want = a;
      std::vector<std::int64_t> want_piv(static_cast<std::size_t>(n));
      lu_ref(want, want_piv.data());
      for (const auto& impl : lu_impls<T>()) {
        if (impl.device != Device::cuda || (n > 1100 && impl.name == "cuda-hybrid")) continue;
        const std::string what =
            impl.name + " n=" + std::to_string(n) + (dominant ? " dominant" : " random");
        Dense<T> lu;
        std::vector<std::int64_t> ipiv;
        factor(impl, a, lu, ipiv);
        expect_factors(a, lu, ipiv, 40.0 * static_cast<double>(n) * eps<T>(), what);
        if (dominant) {
          for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(ipiv[i], i + 1) << what;
        }
        // cuSOLVER's complex pivot magnitude is its own business (LAPACK's is |re| + |im|).
        const bool own = impl.name != "cusolver" || !is_complex_v<T>;
        if (own && (kDouble || dominant || n <= 33)) {
          EXPECT_EQ(ipiv, want_piv) << what;
          if (ipiv == want_piv)
            test::expect_close(lu.data, want.data, 200.0 * static_cast<double>(n) * eps<T>(),
                               what + ": factors vs lu_ref");
        }
        if (::testing::Test::HasFatalFailure()) return;
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0) << "no CUDA implementation";
}

// Exact zero pivots deep in the factorization, past the first panels and leaves: a zero
// column (it stays zero through every update, GEMM included) and a zero row (left for the
// last column). The message names the column the CPU names.
TYPED_TEST(LuTypes, CudaZeroPivotSameColumnAsCpu) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  Dense<T> col = test_matrix<T>(700, false, 31);
  for (std::int64_t i = 0; i < 700; ++i) col(i, 450) = T{};
  Dense<T> row = test_matrix<T>(600, false, 32);
  for (std::int64_t j = 0; j < 600; ++j) row(17, j) = T{};
  Dense<T> first = test_matrix<T>(300, false, 33);
  for (std::int64_t i = 0; i < 300; ++i) first(i, 0) = T{};
  for (const Dense<T>* m : {&col, &row, &first}) {
    std::string cpu;
    try {
      Dense<T> w = *m;
      std::vector<std::int64_t> p(static_cast<std::size_t>(m->rows));
      lu_cpu_blocked(w, p.data(), 128);
    } catch (const NumericalError& e) {
      cpu = e.what();
    }
    ASSERT_FALSE(cpu.empty()) << "the CPU found no zero pivot";
    for (const auto& impl : lu_impls<T>()) {
      if (impl.device != Device::cuda) continue;
      Dense<T> lu;
      std::vector<std::int64_t> ipiv;
      try {
        factor(impl, *m, lu, ipiv);
        ADD_FAILURE() << impl.name << ": no error for a singular matrix (" << cpu << ")";
      } catch (const NumericalError& e) {
        EXPECT_EQ(std::string(e.what()), cpu) << impl.name << " n=" << m->rows;
      }
    }
  }
}

}  // namespace
}  // namespace mm
