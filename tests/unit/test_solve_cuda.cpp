// mmsolve's CUDA implementations against the CPU ones: gauss, and cg / bicgstab / gmres with
// and without Jacobi on awkward sizes, Poisson, convection-diffusion and corpus systems, every
// value type: the same convergence decision and note, iterations within a small margin, x
// close, the report's residual and flops; poisoned outputs, non-convergence, breakdowns, zero
// pivots and zero diagonals. The GPU tests skip with the reason where no GPU is present.
#include <gtest/gtest.h>

#include <random>

#include "analysis/generate.hpp"
#include "gpu.hpp"
#include "random_matrices.hpp"
#include "solve.hpp"
#include "spmv.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

using I = std::int32_t;

template <class T>
class SolveCudaTypes : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SolveCudaTypes, Types);

template <class T>
bool single() {
  return std::is_same_v<real_type_t<T>, float>;
}
template <class T>
double solve_tol() {
  return single<T>() ? 1e-5 : 1e-10;
}

const std::vector<SolveMethod> kIterative{SolveMethod::cg, SolveMethod::bicgstab,
                                          SolveMethod::gmres};

template <class T>
const Impl<SolveMake<I, T>>& impl_on(SolveMethod m, Device d) {
  for (const auto& impl : solve_impls<I, T>(m))
    if (impl.device == d) return impl;
  throw std::runtime_error(std::string("no implementation of ") + method_name(m));
}

// Strictly diagonally dominant, Hermitian when SYM (so cg applies too).
template <class T>
Csr<I, T> dominant(std::int64_t n, bool sym, std::uint64_t seed) {
  const auto s = test::random_csr<I, T>({"s", n, n, std::min(1.0, 8.0 / n)}, seed);
  Dense<T> d = coo_to_dense(csr_to_coo(s));
  for (std::int64_t i = 0; i < n; ++i) {
    if (sym)
      for (std::int64_t j = 0; j < i; ++j) d(j, i) = conj_of(d(i, j));
    double rs = 0;
    for (std::int64_t j = 0; j < n; ++j) rs += static_cast<double>(std::abs(d(i, j)));
    d(i, i) = T(static_cast<real_type_t<T>>(rs + 1));
  }
  return coo_to_csr(dense_to_coo<I>(d));
}

template <class T>
Csr<I, T> generated(const std::string& kind, std::int64_t n) {
  GenOptions o;
  o.kind = kind;
  o.n = n;
  return coo_to_csr(to_coo<I, T>(generate(o)));
}

// Upwind convection-diffusion on an m x m grid: -lap u + c du/dx, nonsymmetric.
template <class T>
Csr<I, T> convection_diffusion(std::int64_t m, double ch) {
  Coo<I, T> c;
  c.rows = c.cols = m * m;
  auto add = [&](std::int64_t r, std::int64_t col, double v) {
    c.row.push_back(static_cast<I>(r));
    c.col.push_back(static_cast<I>(col));
    c.val.push_back(T(static_cast<real_type_t<T>>(v)));
  };
  for (std::int64_t y = 0; y < m; ++y)
    for (std::int64_t x = 0; x < m; ++x) {
      const std::int64_t r = y * m + x;
      add(r, r, 4 + ch);
      if (x > 0) add(r, r - 1, -1 - ch);
      if (x + 1 < m) add(r, r + 1, -1);
      if (y > 0) add(r, r - m, -1);
      if (y + 1 < m) add(r, r + m, -1);
    }
  return coo_to_csr(c);
}

// ||x - y|| / ||y|| over every entry.
template <class T>
double rel_diff(const Dense<T>& x, const Dense<T>& y) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    d += std::norm(std::complex<double>(x.data[i] - y.data[i]));
    s += std::norm(std::complex<double>(y.data[i]));
  }
  return std::sqrt(d / std::max(s, 1e-300));
}

template <class T>
struct Solved {
  SolveReport rep;
  Dense<T> x;
};

// The tools' protocol, x poisoned first; the report is the timed run's (a second solve).
template <class T>
Solved<T> solve(const Impl<SolveMake<I, T>>& impl, SolveMethod m, const Csr<I, T>& a,
                const Dense<T>& b, const IterOptions& opt, const Dense<T>* dense = nullptr) {
  Solved<T> s;
  s.x = Dense<T>(b.rows, b.cols, test::poison<T>());
  SolveProblem<I, T> p{m, dense, &a, &b, &s.x, opt, &s.rep};
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->timed_run();
  r->download();
  return s;
}

// The CUDA solve against the CPU's: the same decision and note, iterations within a margin,
// the reported residual true and below tol, x within XTOL of the CPU's x, and the flops equal
// where the iterations (and for gmres the cycles) are.
template <class T>
void expect_matches_cpu(SolveMethod m, const Csr<I, T>& a, const Dense<T>& b,
                        const IterOptions& opt, double xtol, const std::string& what) {
  const auto cpu = solve(impl_on<T>(m, Device::cpu), m, a, b, opt);
  const auto gpu = solve(impl_on<T>(m, Device::cuda), m, a, b, opt);
  const double ci = static_cast<double>(cpu.rep.iterations),
               gi = static_cast<double>(gpu.rep.iterations);
  EXPECT_EQ(gpu.rep.converged, cpu.rep.converged) << what;
  EXPECT_EQ(gpu.rep.note, cpu.rep.note) << what;
  EXPECT_NEAR(gi, ci, (single<T>() ? 0.25 : 0.1) * ci + 3) << what;
  for (const T& v : gpu.x.data) ASSERT_FALSE(std::isnan(std::abs(v))) << what << ": x not written";
  const double measured = test::rel_residual(a, gpu.x, b);
  EXPECT_NEAR(gpu.rep.relative_residual, measured, 0.5 * opt.tol + 1e-3 * measured) << what;
  if (cpu.rep.converged) {
    EXPECT_LE(gpu.rep.relative_residual, opt.tol) << what;
    EXPECT_LE(rel_diff(gpu.x, cpu.x), xtol) << what;
  }
  const bool one_cycle = m != SolveMethod::gmres || cpu.rep.iterations <= opt.restart;
  if (b.cols == 1 && gi == ci && one_cycle) {
    EXPECT_DOUBLE_EQ(gpu.rep.flops, cpu.rep.flops) << what;
  }
  if (gi > 0) {
    EXPECT_GT(gpu.rep.flops, 0) << what;
  }
}

template <class T>
std::string describe(SolveMethod m, const std::string& sys, bool jacobi, std::int64_t k = 1) {
  return std::string(method_name(m)) + (jacobi ? "+jacobi" : "") + " on " + sys +
         " k=" + std::to_string(k) + (single<T>() ? " single" : " double") +
         (is_complex_v<T> ? " complex" : "");
}

TYPED_TEST(SolveCudaTypes, KrylovMatchesCpuOnAwkwardSizes) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  std::uint64_t seed = 11;
  for (const std::int64_t n : {1, 31, 33, 1000}) {
    for (const std::int64_t k : {1, 3}) {
      const auto a = dominant<T>(n, true, seed++);
      const Dense<T> b = test::random_dense<T>(n, k, seed++);
      for (const SolveMethod m : kIterative)
        for (const bool jacobi : {false, true}) {
          IterOptions opt;
          opt.tol = solve_tol<T>();
          opt.jacobi = jacobi;
          expect_matches_cpu(m, a, b, opt, 100 * opt.tol,
                             describe<T>(m, "n=" + std::to_string(n), jacobi, k));
        }
    }
  }
}

TYPED_TEST(SolveCudaTypes, KrylovMatchesCpuOnPoissonAndConvectionDiffusion) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  const auto poisson = generated<T>("poisson2d", 30);  // SPD, 900 unknowns
  const auto cd = convection_diffusion<T>(33, 0.5);    // nonsymmetric, 1089 unknowns
  const Dense<T> bp = test::random_dense<T>(poisson.rows, 1, 3),
                 bc = test::random_dense<T>(cd.rows, 1, 4);
  for (const SolveMethod m : kIterative)
    for (const bool jacobi : {false, true}) {
      IterOptions opt;
      opt.tol = solve_tol<T>();
      opt.jacobi = jacobi;
      opt.max_iter = 5000;
      expect_matches_cpu(m, poisson, bp, opt, 2e3 * opt.tol, describe<T>(m, "poisson2d", jacobi));
      if (m != SolveMethod::cg)
        expect_matches_cpu(m, cd, bc, opt, 2e3 * opt.tol,
                           describe<T>(m, "convection-diffusion", jacobi));
    }
}

// Corpus systems the CPU drivers solve, b = A * ones. XTOL follows each one's sensitivity,
// measured on the CPU by perturbing b by 1e-14: from 3e-15 (pts5ldd03) to 2.5e-5 (bcsstk13,
// cond ~1e10; its bicgstab run is left out: 1813 or 2490 iterations after that perturbation).
TEST(SolveCuda, KrylovMatchesCpuOnCorpus) {
  MM_REQUIRE_GPU();
  struct Case {
    std::string file;
    SolveMethod m;
    bool jacobi;
    double xtol;
  };
  const std::vector<Case> cases{{"pts5ldd03", SolveMethod::cg, false, 1e-6},
                                {"pts5ldd03", SolveMethod::bicgstab, true, 1e-6},
                                {"pts5ldd03", SolveMethod::gmres, false, 1e-6},
                                {"LFAT5", SolveMethod::cg, true, 1e-6},
                                {"LFAT5", SolveMethod::gmres, false, 1e-6},
                                {"cage5", SolveMethod::bicgstab, false, 1e-6},
                                {"cage5", SolveMethod::gmres, true, 1e-6},
                                {"cage5", SolveMethod::cg, true, 1e-6},
                                {"test_FW_1000", SolveMethod::cg, false, 1e-6},
                                {"test_FW_1000", SolveMethod::gmres, false, 1e-6},
                                {"494_bus", SolveMethod::cg, true, 1e-4},
                                {"bcsstk13", SolveMethod::cg, true, 5e-2},
                                {"young1c", SolveMethod::bicgstab, true, 1e-4},
                                {"young1c", SolveMethod::gmres, true, 1e-4}};
  for (const auto& cs : cases) {
    const MtxMatrix mtx = read_mtx(test::corpus_dir() + "/" + cs.file + ".mtx");
    auto run = [&]<class V>() {
      const auto a = coo_to_csr(to_coo<I, V>(mtx));
      Dense<V> b(a.rows, 1);
      const std::vector<V> ones(static_cast<std::size_t>(a.rows), V(1));
      spmv_ref(a, ones.data(), b.data.data(), V(1), V(0));
      IterOptions opt;
      opt.tol = 1e-8;
      opt.jacobi = cs.jacobi;
      opt.max_iter = 20000;
      opt.restart = 100;
      expect_matches_cpu(cs.m, a, b, opt, cs.xtol, describe<V>(cs.m, cs.file, cs.jacobi));
    };
    if (mtx.header.field == Field::complex)
      run.template operator()<std::complex<double>>();
    else
      run.template operator()<double>();
  }
}

// The device decides every iteration itself: how often the host looks changes nothing.
TEST(SolveCuda, CheckEveryChangesNothing) {
  MM_REQUIRE_GPU();
  const Dense<double> b = test::random_dense<double>(400, 2, 5);
  for (const SolveMethod m : kIterative) {
    const auto a = convection_diffusion<double>(20, m == SolveMethod::cg ? 0.0 : 0.3);
    IterOptions opt;
    opt.restart = 7;
    opt.jacobi = m != SolveMethod::bicgstab;
    opt.check_every = 1;
    const auto want = solve(impl_on<double>(m, Device::cuda), m, a, b, opt);
    EXPECT_TRUE(want.rep.converged) << method_name(m);
    for (const int every : {2, 3, 7, 20, 1000}) {
      opt.check_every = every;
      const auto got = solve(impl_on<double>(m, Device::cuda), m, a, b, opt);
      const std::string what = std::string(method_name(m)) + " every " + std::to_string(every);
      EXPECT_EQ(got.rep.iterations, want.rep.iterations) << what;
      EXPECT_EQ(got.rep.converged, want.rep.converged) << what;
      EXPECT_EQ(got.rep.flops, want.rep.flops) << what;
      EXPECT_EQ(got.x.data, want.x.data) << what;
    }
  }
}

TEST(SolveCuda, NonConvergenceZeroRhsAndBreakdowns) {
  MM_REQUIRE_GPU();
  const auto a = dominant<double>(200, false, 9);
  const Dense<double> b = test::random_dense<double>(200, 1, 10);
  for (const SolveMethod m : kIterative) {
    IterOptions opt;
    opt.max_iter = 2;
    opt.restart = 1;
    const auto gpu = solve(impl_on<double>(m, Device::cuda), m, a, b, opt);
    const auto cpu = solve(impl_on<double>(m, Device::cpu), m, a, b, opt);
    EXPECT_FALSE(gpu.rep.converged) << method_name(m);
    EXPECT_EQ(gpu.rep.iterations, cpu.rep.iterations) << method_name(m);
    EXPECT_NEAR(gpu.rep.relative_residual, cpu.rep.relative_residual,
                1e-6 * cpu.rep.relative_residual)
        << method_name(m);
    EXPECT_DOUBLE_EQ(gpu.rep.flops, cpu.rep.flops) << method_name(m);
    test::expect_close(gpu.x.data, cpu.x.data, 1e-10, method_name(m));
    // b = 0: x = 0 at once.
    const auto zero = solve(impl_on<double>(m, Device::cuda), m, a, Dense<double>(200, 1), opt);
    EXPECT_TRUE(zero.rep.converged) << method_name(m);
    EXPECT_EQ(zero.rep.iterations, 0) << method_name(m);
    EXPECT_EQ(zero.x.data, std::vector<double>(200, 0.0)) << method_name(m);
  }
  // Tiny systems that break the methods down: the note, decision and count of the CPU.
  auto csr = [](std::vector<double> dense) {
    Dense<double> d(2, 2);
    d.data = std::move(dense);
    return coo_to_csr(dense_to_coo<I>(d));
  };
  Dense<double> e1(2, 1);
  e1.data = {1, 0};
  for (const auto& a2 : {csr({0, 1, 1, 0}), csr({0, 1, -1, 0}), csr({1, 1, 0, 0})})
    for (const SolveMethod m : kIterative) {
      IterOptions opt;
      opt.max_iter = 10;
      const auto cpu = solve(impl_on<double>(m, Device::cpu), m, a2, e1, opt);
      const auto gpu = solve(impl_on<double>(m, Device::cuda), m, a2, e1, opt);
      EXPECT_EQ(gpu.rep.note, cpu.rep.note) << method_name(m);
      EXPECT_EQ(gpu.rep.converged, cpu.rep.converged) << method_name(m);
      EXPECT_EQ(gpu.rep.iterations, cpu.rep.iterations) << method_name(m);
    }
}

// Made without a GPU: Jacobi's diagonal is inverted when the runner is made.
TEST(SolveCuda, ZeroDiagonalWithJacobiRefusedLikeCpu) {
  MM_REQUIRE_CUDA_BUILD();
  const MtxMatrix mtx = read_mtx(test::corpus_dir() + "/test_FW_1000.mtx");
  const auto a = coo_to_csr(to_coo<I, double>(mtx));
  const Dense<double> b(a.rows, 1, 1.0);
  Dense<double> x(a.rows, 1);
  SolveReport rep;
  IterOptions opt;
  opt.jacobi = true;
  for (const SolveMethod m : kIterative) {
    SolveProblem<I, double> p{m, nullptr, &a, &b, &x, opt, &rep};
    std::string want;
    try {
      impl_on<double>(m, Device::cpu).make(p);
    } catch (const NumericalError& e) {
      want = e.what();
    }
    ASSERT_FALSE(want.empty()) << method_name(m) << ": the CPU accepted a zero diagonal";
    try {
      impl_on<double>(m, Device::cuda).make(p);
      ADD_FAILURE() << method_name(m) << ": no error";
    } catch (const NumericalError& e) {
      EXPECT_EQ(std::string(e.what()), want) << method_name(m);
    }
  }
}

// Listed for every value type and picked first on the GPU.
TYPED_TEST(SolveCudaTypes, ListedAndPickedForCuda) {
  MM_REQUIRE_CUDA_BUILD();
  for (const SolveMethod m :
       {SolveMethod::gauss, SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres}) {
    const auto& impl = pick_impl(solve_impls<I, TypeParam>(m), "solve", "", Device::cuda);
    EXPECT_EQ(impl.name, m == SolveMethod::gauss ? "cuda-blocked" : "cuda") << method_name(m);
    EXPECT_EQ(impl.device, Device::cuda) << method_name(m);
  }
}

template <class T>
std::vector<const Impl<SolveMake<I, T>>*> cuda_gauss() {
  std::vector<const Impl<SolveMake<I, T>>*> v;
  for (const auto& impl : solve_impls<I, T>(SolveMethod::gauss))
    if (impl.device == Device::cuda) v.push_back(&impl);
  return v;
}

// n = 1000 crosses cuda-blocked's 64-column panels and leaves a partial last one.
TYPED_TEST(SolveCudaTypes, GaussMatchesCpu) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  std::uint64_t seed = 40;
  for (const std::int64_t n : {1, 31, 33, 64, 65, 1000}) {
    for (const std::int64_t k : {1, 3}) {
      const auto a = dominant<T>(n, false, seed++);
      const Dense<T> d = coo_to_dense(csr_to_coo(a));
      const Dense<T> b = test::random_dense<T>(n, k, seed++);
      const auto cpu = solve(impl_on<T>(SolveMethod::gauss, Device::cpu), SolveMethod::gauss, a, b,
                             IterOptions{}, &d);
      for (const auto* impl : cuda_gauss<T>()) {
        const auto gpu = solve(*impl, SolveMethod::gauss, a, b, IterOptions{}, &d);
        const std::string what =
            "gauss/" + impl->name + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        test::expect_close(gpu.x.data, cpu.x.data, 50 * test::tolerance<T>(n), what);
        EXPECT_LE(test::rel_residual(a, gpu.x, b), 50 * test::tolerance<T>(n)) << what;
        EXPECT_EQ(gpu.rep.flops, cpu.rep.flops) << what;
        EXPECT_TRUE(gpu.rep.converged) << what;
      }
    }
  }
}

// Zero pivots at the first, a middle and the last column, and one in the second panel of a
// 150 x 150 A = L U of small integers (every step exact): the column gauss_ref names.
TEST(SolveCuda, GaussZeroPivotLikeRef) {
  MM_REQUIRE_GPU();
  std::vector<Dense<double>> cases;
  for (const auto& values : {std::vector<double>{0, 1, 0, 1, 0, 0, 0, 0, 1},
                             std::vector<double>{1, 1, 0, 1, 1, 1, 0, 1, 1},
                             std::vector<double>{1, 2, 3, 2, 5, 1, 3, 7, 4}}) {
    cases.emplace_back(3, 3);
    cases.back().data = values;
  }
  const std::int64_t n = 150;
  Dense<double> l(n, n), u(n, n);
  std::mt19937_64 rng(7);
  for (std::int64_t i = 0; i < n; ++i) {
    l(i, i) = 1;
    u(i, i) = i == 100 ? 0 : 1;
    for (std::int64_t j = 0; j < i; ++j) l(i, j) = rng() % 10 == 0;
    for (std::int64_t j = i + 1; j < n; ++j) u(i, j) = rng() % 10 == 0;
  }
  cases.emplace_back(n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k <= i; ++k)
      for (std::int64_t j = k; j < n; ++j) cases.back()(i, j) += l(i, k) * u(k, j);
  for (const Dense<double>& d : cases) {
    const auto a = coo_to_csr(dense_to_coo<I>(d));
    const Dense<double> b(d.rows, 2, 1.0);
    std::string want;
    try {
      Dense<double> ad = d, bd = b;
      gauss_ref(ad, bd);
    } catch (const NumericalError& e) {
      want = e.what();
    }
    ASSERT_FALSE(want.empty()) << "the reference found no zero pivot";
    for (const auto* impl : cuda_gauss<double>()) {
      try {
        solve(*impl, SolveMethod::gauss, a, b, IterOptions{}, &d);
        ADD_FAILURE() << impl->name << ": no zero pivot: " << want;
      } catch (const NumericalError& e) {
        EXPECT_EQ(std::string(e.what()), want) << impl->name;
      }
    }
  }
}

}  // namespace
}  // namespace mm
