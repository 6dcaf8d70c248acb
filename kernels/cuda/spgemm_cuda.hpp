// Host-side declarations of the CUDA runners for products with a sparse operand (defined in
// kernels/cuda/spgemm.cu and kernels/vendor/spgemm_cusparse.cu), registered in
// kernels/spgemm_impls.cpp.
#pragma once

#include <memory>

#include "spgemm.hpp"

namespace mm {

// Row-wise Gustavson on the device: rows binned by product count, a symbolic pass counting
// each row's distinct columns in a shared-memory hash table (a group of lanes, a warp or a
// block per row by size; a dense accumulator in global memory for rows too long), a scan
// for the row pointers, then a numeric pass accumulating in the same tables and sorting each
// row's columns (bitonic). float and double; both index types.
template <class I, class T>
std::unique_ptr<Runner> make_spgemm_cuda(const SpgemmProblem<I, T>& p);

// A sub-warp group per row of A (its width the power of two covering B's columns, at most a
// warp), lanes across columns of B: coalesced on B's and C's rows. float and double.
template <class I, class T>
std::unique_ptr<Runner> make_spmm_cuda(const SpmmProblem<I, T>& p);

// cuSPARSE SpGEMM (workEstimation / compute / copy, 32-bit indices only: make refuses int64).
template <class I, class T>
std::unique_ptr<Runner> make_spgemm_cusparse(const SpgemmProblem<I, T>& p);
// cuSPARSE SpMM with row-major dense operands, every value and index type.
template <class I, class T>
std::unique_ptr<Runner> make_spmm_cusparse(const SpmmProblem<I, T>& p);
// cuSPARSE SpMM on the transposes: C^T = B^T A^T, the row-major dense A and C read as
// column-major A^T and C^T, B transposed by the operation.
template <class I, class T>
std::unique_ptr<Runner> make_dsmm_cusparse(const DsmmProblem<I, T>& p);

}  // namespace mm
