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

#include "impl.hpp"
#include "mm/matrix.hpp"

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

// An implementation's factory and what it reads; called like the factory itself.
template <class I, class T>
struct SpmvMake {
  SpmvInput input = SpmvInput::full;
  std::function<std::unique_ptr<Runner>(const SpmvProblem<I, T>&)> fn;
  std::unique_ptr<Runner> operator()(const SpmvProblem<I, T>& p) const { return fn(p); }
};

// Every implementation, best first for its device.
template <class I, class T>
const ImplList<SpmvMake<I, T>>& spmv_impls();

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
