// Device building blocks of the CUDA LU (defined in kernels/cuda/lu_kernels.cu): the
// cooperative panel leaf, pivot sequences applied as row gathers, cuda-hybrid's per-column
// kernels and a tiled transpose. Every matrix is row-major; every launch is on stream ST.
#pragma once

#include <cstdint>

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu {

using Index = std::int64_t;

// A leaf's columns are a warp's lanes.
constexpr int kLeafWidth = 32;
// The most pivots one pivot_pairs call takes (the widest panel of cuda-blocked).
constexpr int kMaxPivots = 256;
// INFO's value while no exact zero pivot was met (the leaves atomicMin their column into it).
constexpr unsigned long long kNoZeroPivot = ~0ull;

// Global scratch through which the leaf's blocks exchange pivot candidates: two sets, by the
// parity of the column, so that writing the next column's never races with reading this one's.
template <class T>
struct LeafScratch {
  Buffer<double> mag;  // [2][max_blocks]
  Buffer<int> idx;     // [2][max_blocks]
  Buffer<T> rows;      // [2][max_blocks][kLeafWidth]: each block's candidate row
  Buffer<T> rowj;      // [2][kLeafWidth]: the row about to be swapped away
  int max_blocks = 0;  // blocks owning rows (the grid has one more)
};

// Sizes the scratch and raises the leaf kernel's shared-memory limit for panels of up to N
// rows. Throws DeviceError where one block's share of the rows cannot fit in shared memory.
template <class T>
LeafScratch<T> leaf_prepare(Index n);

// Factors with partial pivoting the M x W leaf whose top-left element is (G0, G0) of MAT
// (leading dimension LDA), W <= kLeafWidth, W <= M. IPIV[G0 + j] becomes the absolute 0-based
// row swapped with row G0 + j; each swap is applied at once to the columns [PC0, PC1) of the
// enclosing panel outside the leaf's own. The first exact zero pivot's column is
// atomicMin'ed into INFO; the factorization then goes on (its values are not used).
// One cooperative launch, one grid-wide barrier per column; the rows stay in shared memory.
template <class T>
void leaf_factor(T* mat, Index lda, int g0, int m, int w, int pc0, int pc1, int* ipiv,
                 unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st);

// The row moves equal to LAPACK's sequential swaps IPIV[K0..K1) (absolute rows, each
// IPIV[k] >= k), K1 - K0 <= kMaxPivots: PAIRS gets 2 (K1 - K0) slots of (destination, source),
// destination -1 where nothing moves. One block.
void pivot_pairs(const int* ipiv, int k0, int k1, int* pairs, cudaStream_t st);

// Moves the rows of PAIRS (SLOTS slots) within columns [C0, C1) of MAT: every source read
// before any destination is written, so the moves act as one permutation.
template <class T>
void gather_rows(T* mat, Index lda, Index c0, Index c1, const int* pairs, int slots,
                 cudaStream_t st);

// Step K of cuda-hybrid on the n x n matrix A: the pivot search (one block's reduction,
// IPIV[K] = its row, INFO as in leaf_factor), the swap of rows K and IPIV[K], the scale of
// column K below the diagonal, and the rank-1 update of the trailing matrix: a kernel each.
template <class T>
void hybrid_step(T* a, Index n, Index k, int* ipiv, unsigned long long* info, cudaStream_t st);

// OUT (COLS x ROWS) = IN (ROWS x COLS) transposed, bit for bit, through 32 x 32 tiles.
template <class T>
void transpose(const T* in, T* out, Index rows, Index cols, cudaStream_t st);

}  // namespace mm::cuda::lu
