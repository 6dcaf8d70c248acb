// Sparse matrix-vector product y = alpha*A*x + beta*y: declarations for every backend.
//
// Work formula (the record's flops and bytes): flops = 2*nnz (8*nnz for complex);
// bytes = nnz*(sizeof(T)+sizeof(I)) + (rows+1)*sizeof(I) + cols*sizeof(T) (x once)
//         + rows*sizeof(T) (y written) + rows*sizeof(T) when beta != 0 (y read).
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "impl.hpp"
#include "mm/matrix.hpp"
#include "mm/tuning.hpp"

namespace mm {

// What an SpMV implementation is given. FULL is the whole matrix; STORED, for
// symmetric kinds only, the stored triangle (diagonal included) with the file's symmetry.
template <class I, class T>
struct SpmvProblem {
  const Csr<I, T>* full = nullptr;
  const Csr<I, T>* stored = nullptr;
  Symmetry symmetry = Symmetry::general;
  const T* x = nullptr;
  const T* y0 = nullptr;  // rows; read only when beta != 0
  T* y = nullptr;         // rows; the result
  T alpha = T(1), beta = T(0);
};

// Which matrix an implementation reads, declared beside it so that a tool builds only that
// one and never tests names: FULL (every entry, symmetry expanded: p.full), or the
// STORED_TRIANGLE of a symmetric, skew-symmetric or hermitian file (p.stored, p.symmetry;
// p.full may then point at the triangle too).
enum class SpmvInput { full, stored_triangle };

// Tuning of the CUDA kernels, --tune KEY=VALUE (the keys, their allowed values and
// defaults: keys(), in spmv_impls.cpp). 0 is the code's choice.
struct SpmvTuning {
  // cuda-vector-k: lanes that share a row, a power of two 1..32 (0: from the mean row length,
  // spmv_lanes).
  int lanes = 0;
  // cuda-merge: merge-path items (row ends and nonzeros) a thread, 4, 6 or 8 (0: 4; at most 6
  // for complex double with 64-bit indices, whose tile must fit the shared memory).
  int items = 0;
  // L2 hints of cuda-vector-k, cuda-adaptive and cuda-merge: 1 plain loads; 2 the matrix and
  // y streamed (evict first); 3 streamed and x kept (evict last). 0: 3 (cuda-adaptive: 1).
  int l2 = 0;

  static const TuneKeys& keys();
  // The keys given in ARGS; UsageError for a bad value.
  static SpmvTuning from(const TuneArgs& args);
  // The keys whose value is set (non-zero).
  nlohmann::json to_json() const;
};

// An implementation's factory and what it reads; called like the factory itself, with the
// tuning when the caller has one (implementations that take no keys ignore it).
template <class I, class T>
struct SpmvMake {
  SpmvInput input = SpmvInput::full;
  std::function<std::unique_ptr<Runner>(const SpmvProblem<I, T>&, const SpmvTuning&)> fn;
  std::unique_ptr<Runner> operator()(const SpmvProblem<I, T>& p, const SpmvTuning& t = {}) const {
    return fn(p, t);
  }
};

// Every implementation, best first for its device.
template <class I, class T>
const ImplList<SpmvMake<I, T>>& spmv_impls();

// What the default's choice reads: the row lengths' count, mean, largest and coefficient of
// variation (standard deviation over mean; 0 for an empty matrix).
struct SpmvRowStats {
  std::int64_t rows = 0, nnz = 0, max = 0;
  double mean = 0, cv = 0;
};
template <class I, class T>
SpmvRowStats spmv_row_stats(const Csr<I, T>& a);

// The GPU implementation for a matrix of these row statistics, by name (an entry of
// spmv_impls): cuda-vector-k where rows are even (cuda-csr-stream where they are also shorter
// than 6 and MEMORY_RICH, the GPU's gpu_memory_rich() of device.hpp), cuda-adaptive where a few
// very long rows hold much of the matrix, cuSPARSE for spread rows between. The rule and the
// measurements behind it: spmv_impls.cpp.
std::string spmv_cuda_choice(const SpmvRowStats& s, bool memory_rich);
// cuda-vector-k's lanes a row for a mean row length (its default): about 4 nonzeros a lane,
// a power of two 2..32.
int spmv_lanes(double mean_row);

// The implementation mmspmv runs when none is named: on the GPU the kernel of
// spmv_cuda_choice for A's rows; elsewhere the list's first for DEVICE (pick_impl's default).
template <class I, class T>
const Impl<SpmvMake<I, T>>& spmv_default_impl(const Csr<I, T>& a, Device device);

template <class I, class T>
double spmv_flops(const Csr<I, T>& a) {
  return (is_complex_v<T> ? 8.0 : 2.0) * static_cast<double>(a.nnz());
}
template <class I, class T>
double spmv_bytes(const Csr<I, T>& a, bool reads_y) {
  const double s = sizeof(T), i = sizeof(I);
  return static_cast<double>(a.nnz()) * (s + i) + static_cast<double>(a.rows + 1) * i +
         static_cast<double>(a.cols) * s + static_cast<double>(a.rows) * s * (reads_y ? 2 : 1);
}

// Serial reference: plain loops over CSR rows, the oracle for every other backend.
// In place: y holds y0 on entry when beta != 0.
template <class I, class T>
void spmv_ref(const Csr<I, T>& a, const T* x, T* y, T alpha, T beta);

// y = alpha*A*x + beta*y0 below (y0 read only when beta != 0).

// OpenMP over rows, each thread given an equal share of the nonzeros (not of the rows).
// SPLIT holds threads+1 row boundaries (spmv_split).
template <class I, class T>
void spmv_cpu_csr(const Csr<I, T>& a, const std::vector<std::int64_t>& split, const T* x,
                  const T* y0, T* y, T alpha, T beta);
template <class I, class T>
std::vector<std::int64_t> spmv_split(const Csr<I, T>& a, int parts);

// OpenMP on the stored triangle of a symmetric, skew-symmetric or hermitian matrix: each
// stored a_ij adds to y_i and its mirror to y_j (per-thread accumulators, then summed).
template <class I, class T>
void spmv_cpu_sym(const Csr<I, T>& stored, Symmetry s, const T* x, const T* y0, T* y, T alpha,
                  T beta, int threads);

}  // namespace mm
