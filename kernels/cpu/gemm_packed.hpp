// Internal to kernels/cpu/: the packed, register-blocked product behind gemm_cpu_blocked, on
// raw row-major blocks (pointer and row stride), so that the LU's trailing update runs on it.
#pragma once

#include <cstdint>

#include "gemm.hpp"

namespace mm::cpu {

// C = alpha * A * B + beta * C with A m x k (row stride LDA), B k x n (LDB) and C m x n
// (LDC); C is not read when beta == 0. KIND picks the micro-kernel family (DeviceError when
// this CPU lacks its instructions). PARALLEL: the OpenMP threads share the blocks of rows
// of C; false runs on the calling thread alone (small products, where a parallel region's
// barriers cost more than they save). Packing memory is kept per thread between calls.
template <class T>
void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
                 std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc,
                 GemmKernel kind, bool parallel);

}  // namespace mm::cpu
