// Matrix transpose B = A^T (or A^H): dense out of place, dense square in place, sparse
// CSR -> CSR of the transpose (= CSC of A); declarations for every backend.
//
// Work formula (the record's flops and bytes): flops = 0 (pure data movement).
// Dense, out of place or in place: bytes = 2*rows*cols*sizeof(T) (every value read once
// and written once). Sparse: bytes = 2*nnz*(sizeof(I)+sizeof(T)) + (rows+cols+2)*sizeof(I)
// (A's column indices, values and row pointers read once; the transpose's written once).
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "impl.hpp"
#include "instantiate.hpp"
#include "mm/matrix.hpp"

namespace mm {

// X-macros of the value types transpose supports: the shared ones plus int64, because a
// transpose only moves values and integer files must come back exact (beyond 2^53 too).
#define MM_TRANSPOSE_VALUE_TYPES(X) \
  MM_FOR_VALUE_TYPES(X)             \
  X(std::int64_t)
#define MM_TRANSPOSE_INDEX_VALUE_TYPES(X) \
  MM_FOR_INDEX_VALUE_TYPES(X)             \
  X(std::int32_t, std::int64_t)           \
  X(std::int64_t, std::int64_t)

// The conjugate of V when CONJ and V is complex, else V.
template <bool Conj, class T>
inline T maybe_conj(const T& v) {
  if constexpr (Conj && is_complex_v<T>)
    return std::conj(v);
  else
    return v;
}

// A dense transpose. Out of place: IN is rows x cols row-major, OUT (cols x rows,
// row-major) receives the result. In place (square only): OUT holds rows x rows values
// that are transposed where they lie; IN, when it differs from OUT, is copied into OUT by
// upload() (the host-to-device step of a GPU runner).
template <class T>
struct DenseTransposeProblem {
  std::int64_t rows = 0, cols = 0;
  const T* in = nullptr;
  T* out = nullptr;
  bool conjugate = false;  // B = A^H
};

// A sparse transpose: OUT gets the CSR of A^T (cols x rows), its column indices sorted
// in every row. OUT's arrays are sized by the runner (transpose_shape).
template <class I, class T>
struct CsrTransposeProblem {
  const Csr<I, T>* a = nullptr;
  Csr<I, T>* out = nullptr;
  bool conjugate = false;
};

template <class T>
using DenseTransposeMake = std::function<std::unique_ptr<Runner>(const DenseTransposeProblem<T>&)>;
template <class I, class T>
using CsrTransposeMake = std::function<std::unique_ptr<Runner>(const CsrTransposeProblem<I, T>&)>;

// Every implementation, best first for its device: out of place, in place, sparse.
// An in-place runner's runs alternate between A and A^T; its download() leaves A^T.
template <class T>
const ImplList<DenseTransposeMake<T>>& transpose_dense_impls();
template <class T>
const ImplList<DenseTransposeMake<T>>& transpose_inplace_impls();
template <class I, class T>
const ImplList<CsrTransposeMake<I, T>>& transpose_csr_impls();

inline double transpose_dense_bytes(std::int64_t rows, std::int64_t cols, std::size_t value_size) {
  return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) *
         static_cast<double>(value_size);
}
template <class I, class T>
double transpose_csr_bytes(const Csr<I, T>& a) {
  return 2.0 * static_cast<double>(a.nnz()) * static_cast<double>(sizeof(I) + sizeof(T)) +
         static_cast<double>(a.rows + a.cols + 2) * static_cast<double>(sizeof(I));
}

// Sizes T's arrays for the transpose of A (ptr cols+1, idx and val nnz) without
// initialising what the kernels write.
template <class I, class T>
void transpose_shape(const Csr<I, T>& a, Csr<I, T>& t) {
  t.rows = a.cols;
  t.cols = a.rows;
  t.ptr.resize(static_cast<std::size_t>(a.cols) + 1);
  t.idx.resize(a.idx.size());
  t.val.resize(a.val.size());
}

// ---- serial references: plain loops, the oracle for every other backend ----

// B(j, i) = A(i, j), walking A row by row (B written with stride rows).
template <class T>
void transpose_ref(std::int64_t rows, std::int64_t cols, const T* a, T* b, bool conjugate);
// A square n x n matrix transposed where it lies: a(i, j) <-> a(j, i) for j > i.
template <class T>
void transpose_inplace_ref(std::int64_t n, T* a, bool conjugate);
// Counting sort by column: counts, exclusive prefix sum, scatter rows in order.
template <class I, class T>
void transpose_csr_ref(const Csr<I, T>& a, Csr<I, T>& t, bool conjugate);

// ---- OpenMP ----

// Tiles of TILE x TILE, each read row by row and written row by row through the cache;
// the tile grid shared out between THREADS.
template <class T>
void transpose_cpu_blocked(std::int64_t rows, std::int64_t cols, const T* a, T* b, bool conjugate,
                           int threads, std::int64_t tile = 0);
// Square in place: tile (I, J) swapped with tile (J, I), both transposed on the way;
// diagonal tiles transposed in place. Tile pairs shared out between THREADS.
template <class T>
void transpose_cpu_inplace(std::int64_t n, T* a, bool conjugate, int threads,
                           std::int64_t tile = 0);

// Parallel counting sort: rows split by nonzeros between THREADS, per-thread column counts,
// prefix sums giving each thread its place in every column, then a scatter that keeps
// rows in order. SCRATCH is resized to threads*cols (kept between calls).
template <class I, class T>
void transpose_cpu_csr2csc(const Csr<I, T>& a, Csr<I, T>& t, bool conjugate, int threads,
                           std::vector<I>& scratch);

}  // namespace mm
