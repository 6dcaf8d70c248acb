// LAPACK's pivot sequences applied as row gathers (defined in row_swaps.cu): the row moves of a
// run of swaps, then every move of a column range at once. Row-major; launches on stream ST.
#pragma once

#include "cuda/cuda_util.cuh"
#include "cuda/lu/types.cuh"

namespace mm::cuda::lu {

// The row moves equal to LAPACK's sequential swaps IPIV[K0..K1) (absolute rows, each
// IPIV[k] >= k), K1 - K0 <= kMaxPivots: PAIRS gets 2 (K1 - K0) slots of (destination, source),
// destination -1 where nothing moves. One block.
void pivot_pairs(const int* ipiv, int k0, int k1, int* pairs, cudaStream_t st);

// Moves the rows of PAIRS (SLOTS slots) within columns [C0, C1) of MAT: every source read
// before any destination is written, so the moves act as one permutation.
// Lets gather_rows take 2 kMaxPivots slots: before any launch is captured in a graph.
template <class T>
void gather_rows_prepare();

template <class T>
void gather_rows(T* mat, Index lda, Index c0, Index c1, const int* pairs, int slots,
                 cudaStream_t st);

}  // namespace mm::cuda::lu
