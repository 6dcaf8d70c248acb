// The CUDA LU entry points: the runners of kernels/cuda/lu/ and kernels/vendor/lu_cusolver.cu,
// registered in kernels/lu_impls.cpp (mmlu) and kernels/solve_impls.cpp (mmsolve --method lu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lu.hpp"
#include "solve.hpp"

namespace mm {

// cuda-blocked's panel width for an n x n matrix when none is given (at most 256).
std::int64_t lu_cuda_default_nb(std::int64_t n);
// The panel width cuda-blocked takes for an n x n matrix under TUNING: its nb, or the default
// above; UsageError beyond LuTuning::kMaxNb.
std::int64_t lu_cuda_nb(std::int64_t n, const LuTuning& tuning);

// The cluster leaf's launch for a panel of M rows given the most blocks of a cluster, the shared
// memory per block, the rows per block aimed at and the most taken (what cuda-blocked decides
// from the device and LuTuning's cluster, leaf_smem, cluster_rows, cluster_max_rows): WIDTH 0
// means the grid leaf.
// REG_ROWS (LuTuning::reg_rows, 0: off): leaves of at least this many rows on the register leaf
// (REG), ROWS a block of 512 threads.
struct LuLeafPlan {
  int width = 0, blocks = 0, rows = 0;
  std::size_t smem = 0;
  bool reg = false;
};
template <class T>
LuLeafPlan lu_cuda_leaf_plan(std::int64_t m, int max_blocks, std::size_t smem, int target_rows,
                             int max_rows = 1 << 30, int reg_rows = 0);

// For the tests: cuda-blocked's small triangular solve (kernels/cuda/lu/small_solve.cu) on the
// row-major M, uploaded and downloaded: rows [0, K) of its columns [K, K + C) become L^-1 times
// themselves, L the unit lower K x K block at M's top left (its strict lower part read).
// K <= 256, C <= M.cols - K; real types (UsageError for complex ones).
template <class T>
void lu_cuda_small_solve(Dense<T>& m, int k, std::int64_t c);

// Right-looking blocked LU on the GPU: recursive panels whose leaves (32 columns; 16, 8 or 4
// for the tallest panels) run on one thread-block cluster each, pivot candidates pushed between
// its blocks once per column: with the rows in registers for leaves of at least 1025 rows (real
// types; LuTuning::reg_rows), else in shared memory where they fit, else on a cooperative grid (a
// grid barrier per column); row swaps as gathers, cuBLAS TRSM for U's block row and GEMM for
// the trailing update, the next panel factored on a high-priority stream while the rest of the
// update runs. P.tuning sets the panel width and the leaves, P.profile the --profile level; the
// runner reports the values it used (tuning()) and the profile (profile()). Every value type.
template <class T>
std::unique_ptr<Runner> make_lu_cuda_blocked(const LuProblem<T>& p);

// A kernel per operation of each column step (pivot search by a block reduction, row swap,
// column scale, rank-1 update): the unblocked algorithm as GPU theses time it; slow by design.
template <class T>
std::unique_ptr<Runner> make_lu_cuda_hybrid(const LuProblem<T>& p);

// cuSOLVER cusolverDnXgetrf (workspace from its bufferSize query) on a device transpose of A,
// transposed back: LAPACK's factors and pivots, row-major. Every value type.
template <class T>
std::unique_ptr<Runner> make_lu_cusolver(const LuProblem<T>& p);
// For lu_bench: a device copy of A and Xgetrf on it (A^T factored: the same work), no
// transposes, nothing downloaded; the time that cuda-blocked's (copy + factor) compares with.
template <class T>
std::unique_ptr<Runner> make_lu_cusolver_getrf_only(const LuProblem<T>& p);

// mmsolve --method lu: X = A^-1 B (B n x k, X sized n x k by the caller), factor and
// substitution on the GPU each run; REPORT is reset and its flops set by each run. An exact
// zero pivot throws NumericalError(zero_pivot_message(column)).
// cuda-blocked's factorization (TUNING and PROFILE as in LuProblem, reported alike), then the
// row swaps as gathers and two cuBLAS TRSMs:
template <class T>
std::unique_ptr<Runner> make_lu_solve_cuda_blocked(const Dense<T>& a, const Dense<T>& b,
                                                   Dense<T>& x, SolveReport& report,
                                                   const LuTuning& tuning, int profile);
// cusolverDnXgetrf + cusolverDnXgetrs on transposed copies:
template <class T>
std::unique_ptr<Runner> make_lu_solve_cusolver(const Dense<T>& a, const Dense<T>& b, Dense<T>& x,
                                               SolveReport& report);

}  // namespace mm
