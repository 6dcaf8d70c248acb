// Solvers: every method and implementation checked by its residual on generated systems
// (SPD, Poisson, diagonally dominant) and corpus systems, against ref, with poisoned
// outputs; zero pivots, non-convergence and unsupported inputs.
#include <gtest/gtest.h>

#include "analysis/check.hpp"
#include "analysis/generate.hpp"
#include "gpu.hpp"
#include "random_matrices.hpp"
#include "solve.hpp"
#include "spmv.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

template <class T>
class SolveTypes : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SolveTypes, Types);

template <class T>
bool single() {
  return std::is_same_v<real_type_t<T>, float>;
}

// Strictly diagonally dominant, symmetric (Hermitian) when SYM: every method applies.
template <class T>
Csr<std::int32_t, T> system(std::int64_t n, bool sym, std::uint64_t seed) {
  Csr<std::int32_t, T> s =
      test::random_csr<std::int32_t, T>({"s", n, n, std::min(1.0, 8.0 / n)}, seed);
  Dense<T> d = coo_to_dense(csr_to_coo(s));
  if (sym)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        T v = d(i, j);
        if constexpr (is_complex_v<T>) v = std::conj(v);
        d(j, i) = v;
      }
  for (std::int64_t i = 0; i < n; ++i) {
    double rs = 0;
    for (std::int64_t j = 0; j < n; ++j) rs += static_cast<double>(std::abs(d(i, j)));
    d(i, i) = T(static_cast<real_type_t<T>>(rs + 1));
  }
  return coo_to_csr(dense_to_coo<std::int32_t>(d));
}

template <class T>
SolveReport solve(const Impl<SolveMake<std::int32_t, T>>& impl, SolveMethod m,
                  const Csr<std::int32_t, T>& a, const Dense<T>& b, Dense<T>& x,
                  IterOptions opt = {}) {
  // A dense only for the methods that read it, as mmsolve does: the others get none, so the
  // test also shows that they never read it (at n = 40000 it would be 12.8 GB to fill).
  const Dense<T> d = is_dense(m) ? coo_to_dense(csr_to_coo(a)) : Dense<T>{};
  x = Dense<T>(b.rows, b.cols, test::poison<T>());
  SolveReport rep;
  SolveProblem<std::int32_t, T> p{m, is_dense(m) ? &d : nullptr, &a, &b, &x, opt, &rep};
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->run();  // a repeat solves again from scratch
  r->download();
  return rep;
}

// The implementations of M that can run here (CUDA ones only where a GPU is present).
template <class T>
std::vector<Impl<SolveMake<std::int32_t, T>>> runnable_impls(SolveMethod m) {
  std::vector<Impl<SolveMake<std::int32_t, T>>> out;
  for (const auto& i : solve_impls<std::int32_t, T>(m))
    if (test::runnable(i.device)) out.push_back(i);
  return out;
}

// The implementation of M called NAME (the CPU ones are tested by name).
template <class T>
const Impl<SolveMake<std::int32_t, T>>& named(SolveMethod m, const std::string& name) {
  for (const auto& i : solve_impls<std::int32_t, T>(m))
    if (i.name == name) return i;
  throw std::logic_error("no solve impl " + name);
}

const std::vector<SolveMethod> kMethods{SolveMethod::lu,       SolveMethod::gauss,
                                        SolveMethod::umfpack,  SolveMethod::cg,
                                        SolveMethod::bicgstab, SolveMethod::gmres};

TYPED_TEST(SolveTypes, EveryMethodSolvesAwkwardSizes) {
  using T = TypeParam;
  std::uint64_t seed = 1;
  for (const std::int64_t n : {1, 31, 33, 300}) {
    for (const std::int64_t k : {1, 3}) {
      const auto a = system<T>(n, true, seed++);
      const Dense<T> b = test::random_dense<T>(n, k, seed++);
      for (const SolveMethod m : kMethods) {
        if (m == SolveMethod::umfpack && is_complex_v<T>) continue;  // tested below: refused
        for (const bool jacobi : {false, true}) {
          if (jacobi && !is_iterative(m)) continue;
          for (const auto& impl : runnable_impls<T>(m)) {
            Dense<T> x;
            IterOptions opt;
            opt.tol = single<T>() ? 1e-5 : 1e-10;
            opt.jacobi = jacobi;
            const SolveReport rep = solve(impl, m, a, b, x, opt);
            const std::string what = std::string(method_name(m)) + "/" + impl.name +
                                     " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                     (jacobi ? " jacobi" : "");
            EXPECT_TRUE(rep.converged) << what;
            EXPECT_LE(test::rel_residual(a, x, b), (single<T>() ? 1e-4 : 1e-9)) << what;
            if (is_iterative(m)) {
              EXPECT_GE(rep.iterations, n > 1 ? 1 : 0) << what;
            }
            EXPECT_GT(rep.flops, 0) << what;
          }
        }
      }
    }
  }
}

// cpu against ref: the same iteration counts (up to rounding of the parallel sums) and
// solutions close together; the SPD system is large enough for the cpu ops to go parallel.
TEST(Solve, CpuMatchesRef) {
  for (const auto& [kind, n] :
       {std::pair<std::string, std::int64_t>{"poisson2d", 30}, {"spd", 40000}}) {
    GenOptions o;
    o.kind = kind;
    o.n = n;
    const auto a = coo_to_csr(to_coo<std::int32_t, double>(generate(o)));
    ASSERT_TRUE(kind != "spd" || a.nnz() + a.rows >= 200000) << "too small to run in parallel";
    const Dense<double> b = test::random_dense<double>(a.rows, 1, 4);
    for (const SolveMethod m : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres}) {
      Dense<double> xr, xc;
      const auto rr = solve(named<double>(m, "ref"), m, a, b, xr);
      const auto rc = solve(named<double>(m, "cpu"), m, a, b, xc);
      EXPECT_TRUE(rr.converged && rc.converged) << method_name(m) << " " << kind;
      EXPECT_NEAR(static_cast<double>(rr.iterations), static_cast<double>(rc.iterations),
                  0.1 * static_cast<double>(rr.iterations) + 3)
          << method_name(m) << " " << kind;
      test::expect_close(xc.data, xr.data, 1e-6, std::string(method_name(m)) + " " + kind);
      EXPECT_LE(test::rel_residual(a, xc, b), 1e-8) << method_name(m) << " " << kind;
    }
  }
}

TEST(Solve, GaussZeroPivotAndLuPivots) {
  // [[0, 1], [1, 0]]: gauss meets a zero pivot in column 1; lu swaps and solves.
  Coo<std::int32_t, double> c;
  c.rows = c.cols = 2;
  c.row = {0, 1};
  c.col = {1, 0};
  c.val = {1, 1};
  const auto a = coo_to_csr(c);
  Dense<double> b(2, 1), x;
  b.data = {3, 5};
  for (const auto& impl : runnable_impls<double>(SolveMethod::gauss)) {
    try {
      solve(impl, SolveMethod::gauss, a, b, x);
      ADD_FAILURE() << impl.name << ": no zero pivot";
    } catch (const NumericalError& e) {
      EXPECT_EQ(std::string(e.what()), zero_pivot_message(0, false)) << impl.name;
    }
  }
  for (const auto& impl : runnable_impls<double>(SolveMethod::lu)) {
    solve(impl, SolveMethod::lu, a, b, x);
    EXPECT_EQ(x.data, (std::vector<double>{5, 3})) << impl.name;
  }
  c.val = {0, 1};  // a zero column
  EXPECT_THROW(solve(named<double>(SolveMethod::umfpack, "umfpack"), SolveMethod::umfpack,
                     coo_to_csr(c), b, x),
               NumericalError);
}

TEST(Solve, NonConvergenceIsReportedWithXWritten) {
  const auto a = system<double>(200, false, 9);
  const Dense<double> b = test::random_dense<double>(200, 1, 10);
  for (const SolveMethod m : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres}) {
    for (const auto& impl : runnable_impls<double>(m)) {
      IterOptions opt;
      opt.max_iter = 2;
      opt.restart = 1;
      Dense<double> x;
      const auto rep = solve(impl, m, a, b, x, opt);
      EXPECT_FALSE(rep.converged) << method_name(m) << "/" << impl.name;
      EXPECT_LE(rep.iterations, 2);
      EXPECT_GT(rep.relative_residual, 1e-8);
      for (double v : x.data) ASSERT_FALSE(std::isnan(v)) << "x not written";
    }
  }
}

TEST(Solve, UnsupportedAndBadDiagonal) {
  const auto ac = system<std::complex<double>>(10, false, 1);
  const Dense<std::complex<double>> bc(10, 1, 1.0);
  Dense<std::complex<double>> xc;
  EXPECT_THROW(solve(named<std::complex<double>>(SolveMethod::umfpack, "umfpack"),
                     SolveMethod::umfpack, ac, bc, xc),
               InputError);
  Coo<std::int32_t, double> c;
  c.rows = c.cols = 2;
  c.row = {0, 1, 1};
  c.col = {1, 0, 1};
  c.val = {1, 1, 2};
  IterOptions opt;
  opt.jacobi = true;
  Dense<double> b(2, 1, 1.0), x;
  EXPECT_THROW(
      solve(named<double>(SolveMethod::gmres, "cpu"), SolveMethod::gmres, coo_to_csr(c), b, x, opt),
      NumericalError);
}

// Corpus systems: bcsstk13 (SPD) by cg with Jacobi, west0479 (general) by umfpack and lu,
// young1c (complex) by lu, gmres and bicgstab; b = A * ones.
TEST(Solve, CorpusSystems) {
  struct Case {
    std::string file;
    SolveMethod m;
    bool jacobi;
    double tol;
  };
  const std::vector<Case> cases{
      {"bcsstk13", SolveMethod::cg, true, 1e-6},   {"west0479", SolveMethod::umfpack, false, 1e-9},
      {"west0479", SolveMethod::lu, false, 1e-9},  {"young1c", SolveMethod::lu, false, 1e-9},
      {"young1c", SolveMethod::gmres, true, 1e-7}, {"young1c", SolveMethod::bicgstab, true, 1e-7}};
  for (const auto& cs : cases) {
    using T = std::complex<double>;
    const MtxMatrix m = read_mtx(test::corpus_dir() + "/" + cs.file + ".mtx");
    auto run = [&]<class V>() {
      const auto a = coo_to_csr(to_coo<std::int32_t, V>(m));
      Dense<V> b(a.rows, 1);
      const std::vector<V> ones(static_cast<std::size_t>(a.rows), V(1));
      spmv_ref(a, ones.data(), b.data.data(), V(1), V(0));
      for (const auto& impl : runnable_impls<V>(cs.m)) {
        IterOptions opt;
        opt.jacobi = cs.jacobi;
        opt.tol = cs.tol / 2;
        opt.max_iter = 20000;
        opt.restart = 100;
        Dense<V> x;
        const auto rep = solve(impl, cs.m, a, b, x, opt);
        EXPECT_TRUE(rep.converged) << cs.file << " " << method_name(cs.m) << "/" << impl.name;
        EXPECT_LE(test::rel_residual(a, x, b), cs.tol)
            << cs.file << " " << method_name(cs.m) << "/" << impl.name;
      }
    };
    if (m.header.field == Field::complex)
      run.template operator()<T>();
    else
      run.template operator()<double>();
  }
}

}  // namespace
}  // namespace mm
