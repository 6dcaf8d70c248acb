// Host-side declarations of the CUDA GEMM runners (defined in kernels/cuda/gemm.cu and
// kernels/vendor/gemm_cublas.cu), registered in kernels/gemm_impls.cpp.
#pragma once

#include <memory>

#include "gemm.hpp"

namespace mm {

// The hand-written kernels: a thread per element (naive), shared-memory tiles of 16x16 or
// 32x32 with a thread per element, a 128x128 block tile with an 8x8 register tile per
// thread (regblock), and tensor cores through wmma (TF32 for float, DMMA for double).
enum class GemmCudaKernel { naive, tiled16, tiled32, regblock, tensor };

// float and double only (complex products go to cuBLAS).
template <class T>
std::unique_ptr<Runner> make_gemm_cuda(const GemmProblem<T>& p, GemmCudaKernel k);

// cuBLAS ?gemm, every value type; TF32 (float only) lets cuBLAS use TF32 tensor cores.
template <class T>
std::unique_ptr<Runner> make_gemm_cublas(const GemmProblem<T>& p, bool tf32 = false);

}  // namespace mm
