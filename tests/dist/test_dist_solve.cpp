// Distributed CG, BiCGSTAB and GMRES (DistKrylovOps under the one-process drivers) against the
// one-process solve on every rank count CTest runs (mpirun -np 1..4, and without mpirun):
// converged alike, iteration counts within 2, x within rounding of the tolerance; bit for bit
// on one rank; the reductions an iteration; Jacobi's zero diagonal agreed as exit 5.
#include <cmath>

#include "dist/agree.hpp"
#include "dist/dist_krylov.hpp"
#include "dist_test.hpp"
#include "mm/error.hpp"
#include "solve.hpp"

namespace mm::test {
namespace {

using dist::Op;

template <class T>
Csr<std::int32_t, T> from_entries(std::int64_t n,
                                  const std::vector<std::tuple<std::int64_t, std::int64_t, T>>& e) {
  Coo<std::int32_t, T> c;
  c.rows = c.cols = n;
  for (const auto& [i, j, v] : e) {
    c.row.push_back(static_cast<std::int32_t>(i));
    c.col.push_back(static_cast<std::int32_t>(j));
    c.val.push_back(v);
  }
  return coo_to_csr(c);
}

// The 5-point Laplacian on an m x m grid (4 / -1), with upwind convection of strength C in
// both directions (west and south neighbours -1 - C, the diagonal 4 + 2C): nonsymmetric for
// C > 0, an M-matrix whatever C.
template <class T>
Csr<std::int32_t, T> convection_diffusion(std::int64_t m, double c) {
  std::vector<std::tuple<std::int64_t, std::int64_t, T>> e;
  for (std::int64_t y = 0; y < m; ++y)
    for (std::int64_t x = 0; x < m; ++x) {
      const std::int64_t i = y * m + x;
      e.emplace_back(i, i, T(static_cast<real_type_t<T>>(4 + 2 * c)));
      if (x > 0) e.emplace_back(i, i - 1, T(static_cast<real_type_t<T>>(-1 - c)));
      if (x + 1 < m) e.emplace_back(i, i + 1, T(-1));
      if (y > 0) e.emplace_back(i, i - m, T(static_cast<real_type_t<T>>(-1 - c)));
      if (y + 1 < m) e.emplace_back(i, i + m, T(-1));
    }
  return from_entries<T>(m * m, e);
}

// Strictly diagonally dominant, Hermitian when SYM; rows i % 5 == 2 hold only their diagonal.
template <class T>
Csr<std::int32_t, T> dominant(std::int64_t n, bool sym, std::uint64_t seed) {
  const Csr<std::int32_t, T> s =
      random_csr<std::int32_t, T>({"s", n, n, std::min(1.0, 6.0 / n)}, seed);
  std::vector<std::tuple<std::int64_t, std::int64_t, T>> e;
  std::vector<double> rowsum(static_cast<std::size_t>(n), 0.0);
  auto put = [&](std::int64_t i, std::int64_t j, T v) {
    e.emplace_back(i, j, v);
    rowsum[static_cast<std::size_t>(i)] += static_cast<double>(std::abs(v));
  };
  for (std::int64_t i = 0; i < n; ++i)
    for (auto k = s.ptr[i]; k < s.ptr[i + 1]; ++k) {
      const std::int64_t j = s.idx[k];
      if (j == i || i % 5 == 2 || j % 5 == 2 || (sym && j > i)) continue;
      put(i, j, s.val[k]);
      if (sym) put(j, i, conj_of(s.val[k]));
    }
  for (std::int64_t i = 0; i < n; ++i)
    e.emplace_back(i, i, T(static_cast<real_type_t<T>>(rowsum[static_cast<std::size_t>(i)] + 1)));
  return from_entries<T>(n, e);
}

template <class T>
struct Solved {
  SolveReport report;
  std::vector<T> x;  // the whole x in one process; this rank's rows distributed
  std::int64_t reductions = 0;
};

template <class T>
Solved<T> one_process(const Csr<std::int32_t, T>& a, SolveMethod m, const IterOptions& o,
                      const std::vector<T>& b) {
  Solved<T> s;
  s.x.resize(b.size());
  auto ops = krylov_ops_cpu(a, o.jacobi);
  krylov_solve(m, *ops, b.data(), s.x.data(), o, s.report);
  return s;
}

// GPU: on GPU ranks, b and x device vectors.
template <class T>
Solved<T> distributed(const dist::DistCsr<std::int32_t, T>& d, SolveMethod m, const IterOptions& o,
                      const std::vector<T>& b, const dist::GpuRanks* gpu = nullptr) {
  Solved<T> s;
  const std::int64_t n = d.local_rows();
  s.x.resize(static_cast<std::size_t>(n));
  dist::DistKrylovOps<std::int32_t, T> ops(
      comm(), d, gpu ? dist::LocalKernel::cuda_adaptive : dist::LocalKernel::cpu_csr, o.jacobi,
      gpu);
  const auto bv = ops.vector(n), xv = ops.vector(n);
  bv->load(b.data() + d.row_begin());
  krylov_solve(m, ops, bv->data(), xv->data(), o, s.report);
  xv->store(s.x.data());
  s.reductions = ops.reductions();
  return s;
}

template <class T>
double tol_for() {
  return sizeof(real_type_t<T>) == 8 ? 1e-10 : 1e-5;
}

// Every method (gmres with both orthogonalizations) on A, with and without Jacobi; on GPU ranks
// when GPU is given (against the one-process CPU drivers all the same).
template <class T>
void check_methods(const Csr<std::int32_t, T>& a, bool spd, const std::string& what,
                   const dist::GpuRanks* gpu = nullptr) {
  const dist::Comm& c = comm();
  const dist::DistCsr<std::int32_t, T> d = distribute(a, c);
  const std::vector<T> b = random_vector<T>(a.rows, 7);
  std::vector<std::pair<SolveMethod, Orthogonalization>> runs = {
      {SolveMethod::bicgstab, Orthogonalization::mgs},
      {SolveMethod::gmres, Orthogonalization::mgs},
      {SolveMethod::gmres, Orthogonalization::cgs2}};
  if (spd) runs.insert(runs.begin(), {SolveMethod::cg, Orthogonalization::mgs});
  for (const auto& [m, orth] : runs)
    for (bool jacobi : {false, true}) {
      IterOptions o;
      o.tol = tol_for<T>();
      o.max_iter = 2000;
      o.restart = 20;
      o.jacobi = jacobi;
      o.orth = orth;
      const std::string name = what + " " + method_name(m) +
                               (orth == Orthogonalization::cgs2 ? " (cgs2)" : "") +
                               (jacobi ? " jacobi" : "");
      IterOptions serial = o;
      serial.orth = Orthogonalization::mgs;  // the one-process algorithm
      const Solved<T> want = one_process(a, m, serial, b);
      const Solved<T> got = distributed(d, m, o, b, gpu);
      ASSERT_TRUE(want.report.converged) << name;
      EXPECT_TRUE(got.report.converged) << name << ": " << got.report.note;
      EXPECT_LE(got.report.relative_residual, o.tol) << name;
      EXPECT_LE(std::abs(got.report.iterations - want.report.iterations), 2)
          << name << ": " << got.report.iterations << " iterations, one process "
          << want.report.iterations;
      // x: within what the tolerance leaves (these systems are well conditioned).
      double diff = 0, norm = 0;
      for (std::int64_t i = 0; i < d.local_rows(); ++i) {
        const T w = want.x[static_cast<std::size_t>(d.row_begin() + i)];
        diff += std::norm(std::complex<double>(got.x[static_cast<std::size_t>(i)] - w));
        norm += std::norm(std::complex<double>(w));
      }
      diff = std::sqrt(c.allreduce(diff, Op::sum));
      norm = std::sqrt(c.allreduce(norm, Op::sum));
      EXPECT_LE(diff, 1000 * o.tol * norm) << name;
      // One rank: the same arithmetic as one process (the one-process orthogonalization).
      if (c.size() == 1 && orth == Orthogonalization::mgs && !gpu) {
        EXPECT_EQ(got.report.iterations, want.report.iterations) << name;
        EXPECT_EQ(got.x, want.x) << name;
      }
      // The batched reductions: CG two an iteration, BiCGSTAB four, GMRES (cgs2) about two a
      // step (a restart's residual, a rare third when the norm is measured again) against
      // MGS's j + 2; plus ||b|| and the true residuals at the start and the end.
      const std::int64_t it = got.report.iterations;
      std::int64_t most = 2 * it + 6;  // cg
      if (m == SolveMethod::bicgstab) most = 4 * it + 6;
      if (m == SolveMethod::gmres) most = 2 * it + it / o.restart + it / 10 + 6;
      if (m == SolveMethod::gmres && orth == Orthogonalization::mgs) {
        if (it > 4) {
          EXPECT_GT(got.reductions, 3 * it) << name;
        }
      } else {
        EXPECT_LE(got.reductions, most) << name;
      }
    }
}

TEST(DistSolve, PoissonAndConvectionDiffusion) {
  check_methods(convection_diffusion<double>(20, 0.0), true, "poisson 20x20");
  check_methods(convection_diffusion<double>(17, 0.5), false, "convection-diffusion 17x17");
}

TEST(DistSolve, DominantWithDiagonalOnlyRows) {
  check_methods(dominant<double>(300, true, 3), true, "symmetric dominant");
  check_methods(dominant<double>(257, false, 4), false, "general dominant");
  check_methods(dominant<std::complex<double>>(150, true, 5), true, "hermitian dominant");
  check_methods(dominant<std::complex<double>>(150, false, 6), false, "complex dominant");
  check_methods(dominant<float>(200, false, 8), false, "single precision");
}

TEST(DistSolve, FewerRowsThanRanks) {
  // 2 and 3 rows: with 4 ranks some hold none; 1 row: every rank but one is empty.
  for (std::int64_t n : {1, 2, 3}) {
    std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
    for (std::int64_t i = 0; i < n; ++i) {
      e.emplace_back(i, i, 2.0 + static_cast<double>(i));
      if (i > 0) e.emplace_back(i, i - 1, -1.0), e.emplace_back(i - 1, i, -1.0);
    }
    check_methods(from_entries<double>(n, e), true, std::to_string(n) + " rows");
  }
}

TEST(DistSolve, ZeroRightHandSide) {
  const auto a = convection_diffusion<double>(8, 0.3);
  const auto d = distribute(a, comm());
  for (auto m : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres}) {
    const Solved<double> s = distributed(d, m, IterOptions{}, std::vector<double>(64, 0.0));
    EXPECT_TRUE(s.report.converged);
    EXPECT_EQ(s.report.iterations, 0);
    for (double v : s.x) EXPECT_EQ(v, 0.0);
  }
}

TEST(DistSolve, NotConvergedAlike) {
  const auto a = convection_diffusion<double>(20, 0.0);
  const auto d = distribute(a, comm());
  IterOptions o;
  o.max_iter = 7;
  o.restart = 3;
  for (auto m : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres}) {
    const Solved<double> s = distributed(d, m, o, random_vector<double>(a.rows, 2));
    EXPECT_FALSE(s.report.converged) << method_name(m);
    EXPECT_EQ(s.report.iterations, 7) << method_name(m);
    // Every rank took the same decisions: the same counts everywhere.
    EXPECT_EQ(comm().allreduce(s.report.iterations, Op::max),
              comm().allreduce(s.report.iterations, Op::min));
  }
}

// A zero diagonal entry under Jacobi: every rank fails with exit 5, the rank that holds the
// lowest such row reports it (1-based, as one process names it).
TEST(DistSolve, JacobiZeroDiagonalAgreed) {
  const dist::Comm& c = comm();
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
  const std::int64_t n = 40;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i != 25 && i != 33) e.emplace_back(i, i, 3.0);
    if (i > 0) e.emplace_back(i, i - 1, -1.0);
  }
  const auto a = from_entries<double>(n, e);
  const auto d = distribute(a, c);
  bool failed = false;
  try {
    dist::agree(c, [&] {
      return std::make_unique<dist::DistKrylovOps<std::int32_t, double>>(
          c, d, dist::LocalKernel::cpu_csr, true);
    });
  } catch (const dist::Failure& f) {
    failed = true;
    EXPECT_EQ(f.code, 5);
    EXPECT_EQ(static_cast<bool>(f.report), d.row_part.owner(25) == c.rank());
    if (f.report) {
      try {
        std::rethrow_exception(f.report);
      } catch (const NumericalError& err) {
        EXPECT_STREQ(err.what(), "jacobi: zero diagonal entry in row 26");
      }
    }
  }
  EXPECT_TRUE(failed);
  // Without Jacobi the same matrix is fine.
  EXPECT_NO_THROW((dist::DistKrylovOps<std::int32_t, double>(c, d, dist::LocalKernel::ref, false)));
}

// ---- GPU ranks: the drivers' vectors on each rank's GPU, the dot products reduced there and
// across the ranks in one call; against the one-process CPU solve (iterations within 2, x
// within 1000 tol).

TEST(GpuDistSolve, PoissonConvectionDiffusionDominant) {
  MM_DIST_GPU(gpu, dist::CommKind::mpi);
  check_methods(convection_diffusion<double>(20, 0.0), true, "gpu poisson 20x20", gpu);
  check_methods(convection_diffusion<double>(17, 0.5), false, "gpu convection-diffusion", gpu);
  check_methods(dominant<double>(300, true, 3), true, "gpu symmetric dominant", gpu);
  check_methods(dominant<std::complex<double>>(150, false, 6), false, "gpu complex dominant", gpu);
  check_methods(dominant<float>(200, false, 8), false, "gpu single precision", gpu);
}

TEST(GpuDistSolve, FewerRowsThanRanksAndZeroRightHandSide) {
  MM_DIST_GPU(gpu, dist::CommKind::mpi);
  for (std::int64_t n : {1, 2, 3}) {
    std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
    for (std::int64_t i = 0; i < n; ++i) {
      e.emplace_back(i, i, 2.0 + static_cast<double>(i));
      if (i > 0) e.emplace_back(i, i - 1, -1.0), e.emplace_back(i - 1, i, -1.0);
    }
    check_methods(from_entries<double>(n, e), true, "gpu " + std::to_string(n) + " rows", gpu);
  }
  const auto d = distribute(convection_diffusion<double>(8, 0.3), comm());
  for (auto m : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres}) {
    const Solved<double> s = distributed(d, m, IterOptions{}, std::vector<double>(64, 0.0), gpu);
    EXPECT_TRUE(s.report.converged);
    EXPECT_EQ(s.report.iterations, 0);
    for (double v : s.x) EXPECT_EQ(v, 0.0);
  }
}

// GMRES with a restart longer than one launch's batch of dot products (32).
TEST(GpuDistSolve, LongRestart) {
  MM_DIST_GPU(gpu, dist::CommKind::mpi);
  const auto a = convection_diffusion<double>(24, 0.5);
  const auto d = distribute(a, comm());
  const std::vector<double> b = random_vector<double>(a.rows, 3);
  IterOptions o;
  o.tol = 1e-10;
  o.restart = 50;
  o.orth = Orthogonalization::cgs2;
  const Solved<double> got = distributed(d, SolveMethod::gmres, o, b, gpu);
  IterOptions serial = o;
  serial.orth = Orthogonalization::mgs;
  const Solved<double> want = one_process(a, SolveMethod::gmres, serial, b);
  EXPECT_TRUE(got.report.converged);
  EXPECT_LE(std::abs(got.report.iterations - want.report.iterations), 2)
      << got.report.iterations << " vs " << want.report.iterations;
}

TEST(GpuDistSolve, Nccl) {
  MM_DIST_GPU(gpu, dist::CommKind::nccl);
  check_methods(convection_diffusion<double>(20, 0.0), true, "nccl poisson 20x20", gpu);
  check_methods(dominant<std::complex<double>>(150, true, 5), true, "nccl hermitian", gpu);
}

}  // namespace
}  // namespace mm::test
