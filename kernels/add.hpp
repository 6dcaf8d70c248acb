// Matrix addition C = alpha*A + beta*B (dense, sparse and mixed): declarations for every backend.
//
// Work formulas (the record's flops and bytes; complex: a product is 6 flops, a sum 2):
//   dense + dense:   flops = 3*rows*cols (2 products + 1 sum per element; 14 complex);
//                    bytes = 3*rows*cols*sizeof(T) (read A, read B, write C).
//   dense + sparse:  flops = rows*cols + 2*nnz(S) (6*rows*cols + 8*nnz complex);
//                    bytes = 2*rows*cols*sizeof(T) (read D, write C)
//                            + nnz(S)*(sizeof(T)+sizeof(I)) + (rows+1)*sizeof(I) (S's CSR).
//   sparse + sparse: flops = nnz(A) + nnz(B) products + (nnz(A)+nnz(B)-nnz(C)) sums
//                    (6 per product, 2 per sum complex);
//                    bytes = the CSR arrays of A and B read once and of C written once:
//                    (nnz(A)+nnz(B)+nnz(C))*(sizeof(T)+sizeof(I)) + 3*(rows+1)*sizeof(I).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "impl.hpp"
#include "mm/matrix.hpp"

namespace mm {

// Which operand kinds an implementation handles (a bit mask); "mixed" is dense + sparse in
// either order, with a dense result.
enum AddKinds : unsigned {
  add_dense = 1u,
  add_sparse = 2u,
  add_mixed = 4u,
};
std::string add_kinds_text(unsigned kinds);  // "dense+dense, dense+sparse"

// One operand: exactly one of DENSE and SPARSE is set. Sparse operands are CSR with sorted,
// unique columns in every row (coo_to_csr gives that).
template <class I, class T>
struct AddOperand {
  const Dense<T>* dense = nullptr;
  const Csr<I, T>* sparse = nullptr;
};

// What an addition implementation is given. The result goes to DENSE_OUT (sized rows x cols
// by the caller) when either operand is dense, else to SPARSE_OUT (sized by the kernel).
template <class I, class T>
struct AddProblem {
  AddOperand<I, T> a, b;
  T alpha = T(1), beta = T(1);
  Dense<T>* dense_out = nullptr;
  Csr<I, T>* sparse_out = nullptr;
  int threads = 1;
};

template <class I, class T>
unsigned add_kind(const AddProblem<I, T>& p) {
  if (p.a.sparse && p.b.sparse) return add_sparse;
  if (p.a.dense && p.b.dense) return add_dense;
  return add_mixed;
}

// An implementation's factory, with the operand kinds it handles. MIN_SIZE: the default
// choice skips it for problems of fewer elements (dense) or entries (sparse, A's plus B's),
// where starting threads costs more than it saves.
template <class I, class T>
struct AddMake {
  unsigned kinds = 0;
  std::int64_t min_size = 0;
  int min_threads = 1;  // the default choice skips it when fewer threads are given
  std::function<std::unique_ptr<Runner>(const AddProblem<I, T>&)> fn;
  std::unique_ptr<Runner> operator()(const AddProblem<I, T>& p) const { return fn(p); }
};

// Every implementation, best first for its device.
template <class I, class T>
const ImplList<AddMake<I, T>>& add_impls();

// The implementation for operands of KIND and SIZE elements or entries on THREADS threads:
// --impl NAME (which must handle them; InputError otherwise), else the first product one for DEVICE
// that handles them and whose min_size and min_threads are reached.
// Throws UsageError / InputError / DeviceError.
template <class I, class T>
const Impl<AddMake<I, T>>& pick_add_impl(unsigned kind, std::int64_t size, int threads,
                                         const std::string& name, Device device);

// Below this many elements or entries the serial references are the default: measured on a
// 2-core Xeon, an OpenMP region with its barriers costs tens of microseconds and far more
// when the cores are busy, while a serial sum does about one element a nanosecond.
inline constexpr std::int64_t add_parallel_min_size = 1 << 16;
// cpu-sparse merges every row twice (count, then fill): measured on one thread it took 1.5x
// ref-sparse's single merge (2-core Xeon, 2026-11-21: 0.37 against 0.24 s for two 10^6-row
// matrices of 8 a row), so it pays from 3 threads.
inline constexpr int add_sparse_min_threads = 3;

// ---- work formulas (see the top of this file)
template <class T>
double add_flops_per_product() {
  return is_complex_v<T> ? 6.0 : 1.0;
}
template <class T>
double add_flops_per_sum() {
  return is_complex_v<T> ? 2.0 : 1.0;
}
template <class T>
double add_dense_flops(std::int64_t rows, std::int64_t cols) {
  return static_cast<double>(rows) * static_cast<double>(cols) *
         (2 * add_flops_per_product<T>() + add_flops_per_sum<T>());
}
template <class T>
double add_dense_bytes(std::int64_t rows, std::int64_t cols) {
  return 3.0 * static_cast<double>(rows) * static_cast<double>(cols) * sizeof(T);
}
template <class I, class T>
double add_mixed_flops(const Csr<I, T>& s) {
  return static_cast<double>(s.rows) * static_cast<double>(s.cols) * add_flops_per_product<T>() +
         static_cast<double>(s.nnz()) * (add_flops_per_product<T>() + add_flops_per_sum<T>());
}
template <class I, class T>
double add_mixed_bytes(const Csr<I, T>& s) {
  return 2.0 * static_cast<double>(s.rows) * static_cast<double>(s.cols) * sizeof(T) +
         static_cast<double>(s.nnz()) * (sizeof(T) + sizeof(I)) +
         static_cast<double>(s.rows + 1) * sizeof(I);
}
template <class I, class T>
double add_sparse_flops(const Csr<I, T>& a, const Csr<I, T>& b, const Csr<I, T>& c) {
  const double products = static_cast<double>(a.nnz() + b.nnz());
  return products * add_flops_per_product<T>() +
         (products - static_cast<double>(c.nnz())) * add_flops_per_sum<T>();
}
template <class I, class T>
double add_sparse_bytes(const Csr<I, T>& a, const Csr<I, T>& b, const Csr<I, T>& c) {
  return static_cast<double>(a.nnz() + b.nnz() + c.nnz()) * (sizeof(T) + sizeof(I)) +
         3.0 * static_cast<double>(a.rows + 1) * sizeof(I);
}

// ---- kernels. Dense results: C sized rows x cols by the caller, every element written.
// Sparse results: C's ptr, idx and val resized by the kernel (no reallocation when C already
// has the right sizes, so repeated runs into one C allocate once).

// Serial references: plain loops, the oracle for every other backend.
template <class T>
void add_dense_ref(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta);
// C = ds*D + ss*S (dense D, sparse S, dense C).
template <class I, class T>
void add_mixed_ref(const Dense<T>& d, T ds, const Csr<I, T>& s, T ss, Dense<T>& c);
// Row by row merge of the two sorted column lists.
template <class I, class T>
void add_sparse_ref(const Csr<I, T>& a, const Csr<I, T>& b, Csr<I, T>& c, T alpha, T beta);

// OpenMP. Dense: one flat loop the compiler vectorizes (complex with real scales run as real
// arrays of twice the length). Mixed: rows split across threads, scale then scatter.
template <class T>
void add_dense_cpu(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta, int threads);
template <class I, class T>
void add_mixed_cpu(const Dense<T>& d, T ds, const Csr<I, T>& s, T ss, Dense<T>& c, int threads);
// Two passes over rows split by nonzeros: count each row's union, prefix sum, fill.
template <class I, class T>
void add_sparse_cpu(const Csr<I, T>& a, const Csr<I, T>& b, Csr<I, T>& c, T alpha, T beta,
                    int threads);

// OpenBLAS: C := B (cblas_?copy), then cblas_?geadd (C = alpha*A + beta*C). Follows BLAS in
// that a zero scale may skip its operand (inf and NaN there are then not propagated).
template <class T>
void add_dense_openblas(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta);

}  // namespace mm
