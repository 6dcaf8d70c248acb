// cuda-blocked's triangular solves on small blocks (defined in small_solve.cu): the panel's own
// U rows and the next panel's, where cuBLAS's TRSM takes 9-63 us a call for k = 16-128 rows
// (--profile on the H200) and the panel waits for each.
#pragma once

#include "cuda/cuda_util.cuh"
#include "cuda/lu/types.cuh"
#include "mm/matrix.hpp"

namespace mm::cuda::lu {

// The most rows the small solve takes (8 a lane: a panel of 256 columns, or a 512-wide panel's
// left half).
constexpr int kSmallSolveRows = 256;

// Whether the small solve takes T (real types; complex ones keep cuBLAS's TRSM).
template <class T>
inline constexpr bool kSmallSolveTakes = !is_complex_v<T>;

// Lets the solve's kernels take their shared memory: before any launch is captured in a graph.
template <class T>
void small_solve_prepare();

// B (K x C, row-major at B, leading dimension LDB) <- L^-1 B, L (K x K, row-major at L, leading
// dimension LDL) unit lower, K <= kSmallSolveRows, T real. A warp per column of B holds the
// column's rows in its lanes and substitutes forward: each row, once final, is broadcast by a
// shuffle and subtracted from the rows below; L is staged in shared memory. On stream ST. PDL:
// launched as a programmatic dependent of ST's kernel before (LuTuning::pdl).
template <class T>
void small_solve_lower_unit(const T* l, Index ldl, T* b, Index ldb, int k, Index c, cudaStream_t st,
                            bool pdl = false);

}  // namespace mm::cuda::lu
