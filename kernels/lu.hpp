// Dense LU with partial pivoting, PA = LU, of a row-major n x n matrix: declarations for
// every backend, and forward/back substitution with the packed factors.
//
// Work formula (the record's flops and bytes): flops = 2/3 n^3 (8/3 n^3 for complex: one
// complex multiply-add is 8 real flops, i.e. 4x); bytes = 2 n^2 sizeof(T) (A read once,
// LU written once) + n * sizeof(int64) (pivots). Substitution with k right-hand sides:
// flops = 2 n^2 k (8 n^2 k complex), bytes = n^2 sizeof(T) + 2 n k sizeof(T).
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gemm.hpp"
#include "impl.hpp"
#include "mm/matrix.hpp"
#include "mm/tuning.hpp"

namespace mm {

// Tuning of cuda-blocked (mmlu --impl cuda-blocked, mmsolve --method lu --impl cuda-blocked);
// the other LU implementations take none. Every default (0, auto) is the code's choice,
// resolved when the engine is made from n and the device (kernels/cuda/lu/README.md tells the
// leaves apart). --tune KEY=VALUE; the keys, their allowed values and defaults: keys(), in
// lu_impls.cpp.
struct LuTuning {
  enum class Leaf { cluster, grid };
  enum class Exchange { push, sync };
  enum class Graph { automatic, on, off };
  enum class Trsm { warp, cublas, inverse, split };

  static constexpr int kMaxNb = 2048;         // the widest panel (four row gathers of pivots)
  static constexpr int kSmallSolveMax = 256;  // the most rows trsm=warp takes
  // What 0 / auto resolve to for cluster_rows, cluster_max_rows and reg_rows (where each was
  // measured: kernels/cuda/lu/leaf_plan.cuh and leaf_plan.cu).
  static constexpr int kClusterRows = 64, kClusterMaxRows = 256, kRegRows = 1025;

  // Panel width, at most kMaxNb (0: lu_cuda_default_nb(n): 1024 from n = 24576, 512 from
  // 12288, 256 from 8192, 128 from 2048, else 64).
  int nb = 0;
  // Where the panel leaves run: on a thread-block cluster wherever one holds the rows (else
  // on the cooperative grid), or always on the cooperative grid.
  Leaf leaf = Leaf::cluster;
  // Most blocks of a cluster: 1, 2, 4, 8 or 16 (0: 16); fewer where the device schedules no
  // such cluster. Resolved: the most found on this device (0: no clusters).
  int cluster = 0;
  // Shared memory a cluster leaf's block may use, in bytes (0: the device's opt-in limit);
  // less forces narrower leaves and the grid leaf at small n.
  int leaf_smem = 0;
  // Rows a cluster block aims at (0: kClusterRows) and takes at most (0: kClusterMaxRows).
  int cluster_rows = 0;
  int cluster_max_rows = 0;
  // Leaves of at least this many rows hold them in registers (real types, where a cluster
  // can); 0: never; -1 (auto): kRegRows.
  int reg_rows = -1;
  // How a cluster's blocks exchange each column's pivot candidates: pushed into every
  // block's shared memory (the default), or read across the cluster after a cluster barrier
  // (sync: a research leftover, slower).
  Exchange exchange = Exchange::push;
  // The factorization captured once as a CUDA graph and replayed (auto: up to n = 4096; off
  // under --profile).
  Graph graph = Graph::automatic;
  // The triangular solves of at most kMaxNb columns (inside a panel, and the next panel's U
  // rows), real types: a warp per column in registers on blocks of up to kSmallSolveMax rows
  // (taller ones split, a GEMM between), or cuBLAS's TRSM; inverse: warp's, and the rest's
  // update (its U block row) by GEMM with inv(L11), made on the update stream while the
  // panel stream begins the next panel; split: warp's, and the rest's update's TRSM on 256-row
  // blocks too (cuBLAS's TRSM on each diagonal block, GEMMs between). Both experimental: within
  // 0.2-1.4 % of warp from n = 16384 on the H200 (bench/results, twentieth pass).
  Trsm trsm = Trsm::warp;
  // The panel stream's own kernels (leaves, small solves) by programmatic dependent launch:
  // each made resident while the kernel before it finishes, which its threads wait for (off
  // under --profile). H200: 1.25 / 1.29 x cuSOLVER at n = 8192 / 16384 against 1.22 / 1.27.
  bool pdl = true;

  static const TuneKeys& keys();
  // The keys given in ARGS; UsageError for a bad value.
  static LuTuning from(const TuneArgs& args);
  // Every key with its value (auto ones as "auto", 0 as given): a runner reports its resolved
  // values by it, less the keys its leaves did not use.
  nlohmann::json to_json() const;
};

// What an LU implementation is given: A (untouched), and where the packed factors (unit
// lower L strictly below the diagonal, U on and above it) and the pivots go. IPIV is
// LAPACK's convention, 1-based: at step i, row i was swapped with row ipiv[i].
template <class T>
struct LuProblem {
  const Dense<T>* a = nullptr;
  Dense<T>* lu = nullptr;                     // n x n; sized by the caller
  std::vector<std::int64_t>* ipiv = nullptr;  // n; sized by the caller
  // cuda-blocked's tuning and --profile level (1: device time by kind, 2: also the leaf's
  // clock). Both have initializers, so that {&a, &lu, &ipiv} initializes every member.
  LuTuning tuning{};
  int profile = 0;
};

template <class T>
using LuMake = std::function<std::unique_ptr<Runner>(const LuProblem<T>&)>;

// Every implementation, best first for its device.
template <class T>
const ImplList<LuMake<T>>& lu_impls();

// The GPU implementation for an n x n matrix, by name (an entry of lu_impls): cuda-blocked for
// real double values (REAL_DOUBLE) from n = 2048, cuSOLVER otherwise, on the H100 and the H200
// alike. The rule and the measurements behind it: lu_impls.cpp.
std::string lu_cuda_choice(std::int64_t n, bool real_double);

// The implementation mmlu runs when none is named: on the GPU lu_cuda_choice's for N and T;
// elsewhere the list's first for DEVICE (pick_impl's default).
template <class T>
const Impl<LuMake<T>>& lu_default_impl(std::int64_t n, Device device);

template <class T>
double lu_flops(std::int64_t n) {
  const double d = static_cast<double>(n);
  return (is_complex_v<T> ? 4.0 : 1.0) * 2.0 / 3.0 * d * d * d;
}
template <class T>
double lu_bytes(std::int64_t n) {
  const double d = static_cast<double>(n);
  return 2.0 * d * d * sizeof(T) + d * sizeof(std::int64_t);
}
template <class T>
double lu_solve_flops(std::int64_t n, std::int64_t k) {
  const double d = static_cast<double>(n);
  return (is_complex_v<T> ? 8.0 : 2.0) * d * d * static_cast<double>(k);
}

// The message every implementation gives for an exact zero pivot (COLUMN 0-based), so
// that tools report the same column whichever implementation ran.
// PIVOTING false: the message of elimination without pivoting (mmsolve --method gauss).
std::string zero_pivot_message(std::int64_t column, bool pivoting = true);

// LAPACK's pivot magnitude: |re| + |im| for complex (cheaper than abs, same choice
// as i?amax), |x| for real.
template <class T>
real_type_t<T> pivot_magnitude(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::abs(v.real()) + std::abs(v.imag());
  else
    return v < T(0) ? -v : v;
}

// In place on A (n x n, row-major). Each throws NumericalError(zero_pivot_message(k)) at
// the first column k whose pivot is exactly zero; A and IPIV are then partly written.

// Serial reference: unblocked right-looking Doolittle with partial pivoting.
template <class T>
void lu_ref(Dense<T>& a, std::int64_t* ipiv);

// Right-looking blocked LU: recursive panel factorization of width NB, row swaps applied
// left and right, a triangular solve for U's block row, and the trailing update by a
// packed, register-blocked OpenMP matrix product (no BLAS).
template <class T>
void lu_cpu_blocked(Dense<T>& a, std::int64_t* ipiv, std::int64_t nb);
// The same without row swaps (Gaussian elimination as the GPU literature times it): IPIV
// comes back as the identity; an exact zero on the diagonal throws.
template <class T>
void lu_cpu_blocked_nopivot(Dense<T>& a, std::int64_t* ipiv, std::int64_t nb);

// LAPACK ?getrf (OpenBLAS); A transposed to column-major and back around the call.
template <class T>
void lu_lapack(Dense<T>& a, std::int64_t* ipiv);

// C -= A * B on row-major blocks (C m x n with leading dimension ldc, A m x k, B k x n):
// the trailing update of lu_cpu_blocked (gemm_cpu_blocked's packed product, micro-kernel K),
// exposed for its tests and the benchmark.
template <class T>
void gemm_sub_cpu(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
                  const T* b, std::int64_t ldb, T* c, std::int64_t ldc,
                  GemmKernel kind = GemmKernel::best);

// Solves A X = B in place on B (n x k, row-major) from packed LU factors and pivots:
// row swaps, then L y = Pb (unit lower), then U x = y. Serial reference ...
template <class T>
void lu_solve_ref(const Dense<T>& lu, const std::int64_t* ipiv, Dense<T>& b);
// ... and OpenMP (right-hand sides split across threads; rows of a block of them at once).
template <class T>
void lu_solve_cpu(const Dense<T>& lu, const std::int64_t* ipiv, Dense<T>& b);

}  // namespace mm
