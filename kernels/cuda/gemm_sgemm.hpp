// Host-side declaration of the FP32 SIMT GEMM fed by a cp.async pipeline
// (kernels/cuda/gemm_sgemm.cu), registered in kernels/gemm_impls.cpp.
#pragma once

#include <memory>

#include "gemm.hpp"

namespace mm {

// Full FP32 (FFMA, no TF32) with a 3-stage cp.async pipeline and warp tiles of 4x4 register
// blocks: b128x256k16: 128x256 block tile, 8 warps of 64x64, 8x16 a thread, k slices of 16, one
// block a multiprocessor; b128x256k32: the same with k slices of 32; b128x128k16: 128x128
// block tile, 8x8 a thread, two blocks a multiprocessor.
enum class SgemmConfig { b128x256k16, b128x256k32, b128x128k16 };
std::unique_ptr<Runner> make_gemm_sgemm(const GemmProblem<float>& p, SgemmConfig cfg);

}  // namespace mm
