// Host-side declarations of the CUDA GEMM runners (defined in kernels/cuda/gemm*.cu and
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

// FP64 tensor cores through mma.sync (kernels/cuda/gemm_dmma.cu): a 128x128 block tile fed by
// a cp.async pipeline, warp tiles of 64x32 in registers; bk32: m16n8k4 (sm_90), k slices of 32
// in 3 stages; bk16: slices of 16 in 4 stages; m8n8k4: the sm_80 shape, slices of 16.
enum class DmmaConfig { bk32, bk16, m8n8k4 };
std::unique_ptr<Runner> make_gemm_dmma(const GemmProblem<double>& p, DmmaConfig cfg);

// TF32 on Hopper's warpgroup MMA (kernels/cuda/gemm_wgmma.cu, sm_90a): TMA-fed shared ring,
// block tile 128 x 256 (4 stages) or 128 x 128 (6 stages); off compute capability 9.0 the wmma
// TF32 kernel (make_gemm_cuda's tensor) runs instead.
enum class WgmmaTile { t128x256, t128x128 };
std::unique_ptr<Runner> make_gemm_tf32_wgmma(const GemmProblem<float>& p, WgmmaTile tile);

// cuBLAS ?gemm, every value type, in a math mode: standard (true FP32 for Sgemm), tf32 (float
// only: TF32 tensor cores), fp64_emulated (double only: fixed-point emulation on the integer
// tensor cores, forced by the eager strategy; where the GPU or library has none, cuBLAS runs
// native FP64).
enum class CublasMath { standard, tf32, fp64_emulated };
template <class T>
std::unique_ptr<Runner> make_gemm_cublas(const GemmProblem<T>& p,
                                         CublasMath math = CublasMath::standard);

}  // namespace mm
