// Products with a sparse operand: sparse x sparse (SpGEMM), sparse x dense (SpMM) and
// dense x sparse (DSMM), C = alpha*A*B: declarations for every backend.
//
// Work formulas (the record's flops and bytes; 8 instead of 2 flops per product for complex):
//   SpGEMM: flops = 2 * sum over A's entries a_ik of nnz(B row k);
//           bytes = csr_bytes(A) + csr_bytes(B) + csr_bytes(C)
//   SpMM:   flops = 2 * nnz(A) * n;      bytes = csr_bytes(A) + (k*n + m*n)*sizeof(T)
//   DSMM:   flops = 2 * m * nnz(B);      bytes = csr_bytes(B) + (m*k + m*n)*sizeof(T)
// where csr_bytes = nnz*(sizeof(T)+sizeof(I)) + (rows+1)*sizeof(I), A is m x k, B is k x n.
#pragma once

#include <functional>
#include <memory>

#include "impl.hpp"
#include "mm/matrix.hpp"

namespace mm {

// What a product implementation is given: A (m x k), B (k x n), alpha; C is the result.
// SpGEMM: C is a CSR matrix the runner (re)builds, columns sorted in every row, structural
// zeros (sums that cancel) kept. SpMM and DSMM: C is a dense m x n matrix, sized by the caller.
template <class I, class T>
struct SpgemmProblem {
  const Csr<I, T>* a = nullptr;
  const Csr<I, T>* b = nullptr;
  Csr<I, T>* c = nullptr;
  T alpha = T(1);
};
template <class I, class T>
struct SpmmProblem {
  const Csr<I, T>* a = nullptr;
  const Dense<T>* b = nullptr;
  Dense<T>* c = nullptr;
  T alpha = T(1);
};
template <class I, class T>
struct DsmmProblem {
  const Dense<T>* a = nullptr;
  const Csr<I, T>* b = nullptr;
  Dense<T>* c = nullptr;
  T alpha = T(1);
};

template <class I, class T>
using SpgemmMake = std::function<std::unique_ptr<Runner>(const SpgemmProblem<I, T>&)>;
template <class I, class T>
using SpmmMake = std::function<std::unique_ptr<Runner>(const SpmmProblem<I, T>&)>;
template <class I, class T>
using DsmmMake = std::function<std::unique_ptr<Runner>(const DsmmProblem<I, T>&)>;

// Every implementation of each product, best first for its device.
template <class I, class T>
const ImplList<SpgemmMake<I, T>>& spgemm_impls();
template <class I, class T>
const ImplList<SpmmMake<I, T>>& spmm_impls();
template <class I, class T>
const ImplList<DsmmMake<I, T>>& dsmm_impls();

template <class I, class T>
double csr_bytes(const Csr<I, T>& a) {
  return static_cast<double>(a.nnz()) * static_cast<double>(sizeof(T) + sizeof(I)) +
         static_cast<double>(a.rows + 1) * static_cast<double>(sizeof(I));
}
// The number of scalar products a_ik * b_kj of A*B (A's column count must be B's row count).
template <class I, class T>
double spgemm_products(const Csr<I, T>& a, const Csr<I, T>& b) {
  double s = 0;
  for (std::int64_t e = 0; e < a.nnz(); ++e) {
    const auto k = static_cast<std::size_t>(a.idx[static_cast<std::size_t>(e)]);
    s += static_cast<double>(b.ptr[k + 1] - b.ptr[k]);
  }
  return s;
}
template <class T>
double product_flops(double products) {
  return (is_complex_v<T> ? 8.0 : 2.0) * products;
}

// Throws InputError naming both shapes unless the inner dimensions agree.
void check_inner(std::int64_t a_rows, std::int64_t a_cols, std::int64_t b_rows,
                 std::int64_t b_cols);

// ---- SpGEMM -----------------------------------------------------------------------------
// Serial Gustavson: each row of C accumulated in a dense array of n values, its columns
// collected as they first appear, then sorted. Throws InputError when C's entry count does
// not fit in I.
template <class I, class T>
Csr<I, T> spgemm_ref(const Csr<I, T>& a, const Csr<I, T>& b, T alpha);
// Row-wise Gustavson in two OpenMP passes: symbolic (each row's distinct columns, per-thread
// marker array) then numeric (per-thread dense accumulator, rows written at their offsets,
// columns sorted); rows handed out dynamically, as their costs differ widely.
template <class I, class T>
Csr<I, T> spgemm_cpu(const Csr<I, T>& a, const Csr<I, T>& b, T alpha);

// ---- SpMM: sparse A x dense B -> dense C --------------------------------------------------
// Serial: C row i = alpha * sum over a_ik of a_ik * (B row k).
template <class I, class T>
void spmm_ref(const Csr<I, T>& a, const Dense<T>& b, Dense<T>& c, T alpha);
// OpenMP over rows of A split by nonzeros; the inner loop runs along a row of B and C.
template <class I, class T>
void spmm_cpu(const Csr<I, T>& a, const Dense<T>& b, Dense<T>& c, T alpha);

// ---- DSMM: dense A x sparse B -> dense C --------------------------------------------------
// Serial: C row i = alpha * sum over k of a_ik * (sparse B row k), scattered.
template <class I, class T>
void dsmm_ref(const Dense<T>& a, const Csr<I, T>& b, Dense<T>& c, T alpha);
// OpenMP over rows of A (each costs nnz(B) products: a static split is balanced).
template <class I, class T>
void dsmm_cpu(const Dense<T>& a, const Csr<I, T>& b, Dense<T>& c, T alpha);

}  // namespace mm
