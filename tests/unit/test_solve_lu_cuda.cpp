// mmsolve --method lu on the GPU (cuda-blocked and cusolver): X against the CPU's LAPACK
// solve and against the x that made b, the report, and zero pivots named as on the CPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu.hpp"
#include "random_matrices.hpp"
#include "solve.hpp"

namespace mm {
namespace {

template <class T>
class SolveLuCudaTypes : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(SolveLuCudaTypes, Types);

template <class T>
double eps() {
  return std::is_same_v<real_type_t<T>, float> ? 1.2e-7 : 2.3e-16;
}

template <class T>
const Impl<SolveMake<std::int32_t, T>>& lu_impl(const std::string& name) {
  for (const auto& i : solve_impls<std::int32_t, T>(SolveMethod::lu))
    if (i.name == name) return i;
  throw std::logic_error("no lu impl " + name);
}

// Runs IMPL as mmsolve does (a run, then a timed run, each solving afresh), X poisoned.
template <class T>
SolveReport solve(const Impl<SolveMake<std::int32_t, T>>& impl, const Dense<T>& a,
                  const Dense<T>& b, Dense<T>& x) {
  x = Dense<T>(b.rows, b.cols, test::poison<T>());
  SolveReport rep;
  SolveProblem<std::int32_t, T> p{SolveMethod::lu, &a, nullptr, &b, &x, IterOptions{}, &rep};
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->timed_run();
  r->download();
  return rep;
}

// Random A (pivoting needed) and a known X: B = A X. Sizes around the leaf width, a narrow last
// panel (300, 1000), one and several right-hand sides (70: more than a gather block's width).
TYPED_TEST(SolveLuCudaTypes, MatchesLapackAndTheTrueX) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  std::uint64_t seed = 40;
  for (const std::int64_t n : {1, 31, 33, 300, 1000}) {
    const Dense<T> a = test::random_dense<T>(n, n, seed++);
    for (const std::int64_t k : {1, 3, 70}) {
      const Dense<T> xt = test::random_dense<T>(n, k, seed++);
      Dense<T> b(n, k);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t c = 0; c < k; ++c) b(i, c) += a(i, j) * xt(j, c);
      Dense<T> want;
      solve(lu_impl<T>("lapack"), a, b, want);
      // LAPACK's own error on this system sets the bar: the GPU may be 10 times further off
      // (another summation order), and never needs to beat 100 n eps.
      double scale = 1, lapack_err = 0;
      for (const auto& v : xt.data) scale = std::max(scale, static_cast<double>(std::abs(v)));
      for (std::size_t i = 0; i < xt.data.size(); ++i)
        lapack_err = std::max(lapack_err, static_cast<double>(std::abs(want.data[i] - xt.data[i])));
      const double tol = 10 * lapack_err / scale + 100.0 * static_cast<double>(n) * eps<T>();
      for (const char* name : {"cuda-blocked", "cusolver"}) {
        const std::string what =
            std::string(name) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        Dense<T> x;
        const SolveReport rep = solve(lu_impl<T>(name), a, b, x);
        EXPECT_EQ(rep.flops, lu_flops<T>(n) + lu_solve_flops<T>(n, k)) << what;
        EXPECT_TRUE(rep.converged) << what;
        test::expect_close(x.data, xt.data, tol, what + " vs x_true");
        test::expect_close(x.data, want.data, tol + lapack_err / scale, what + " vs lapack");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TYPED_TEST(SolveLuCudaTypes, ZeroPivotSameMessageAsCpu) {
  MM_REQUIRE_GPU();
  using T = TypeParam;
  Dense<T> a = test::random_dense<T>(200, 200, 5);
  for (std::int64_t i = 0; i < 200; ++i) a(i, 120) = T{};
  const Dense<T> b = test::random_dense<T>(200, 2, 6);
  std::string cpu;
  try {
    Dense<T> x;
    solve(lu_impl<T>("cpu-blocked"), a, b, x);
  } catch (const NumericalError& e) {
    cpu = e.what();
  }
  ASSERT_EQ(cpu, zero_pivot_message(120));
  for (const char* name : {"cuda-blocked", "cusolver"}) {
    Dense<T> x;
    try {
      solve(lu_impl<T>(name), a, b, x);
      ADD_FAILURE() << name << ": no error for a singular matrix";
    } catch (const NumericalError& e) {
      EXPECT_EQ(std::string(e.what()), cpu) << name;
    }
  }
}

}  // namespace
}  // namespace mm
