// Host-side declaration of the FP32 SIMT GEMM fed by a cp.async pipeline
// (kernels/cuda/gemm_sgemm.cu), registered in kernels/gemm_impls.cpp.
#pragma once

#include <memory>

#include "gemm.hpp"

namespace mm {

// Full FP32 (FFMA, no TF32) with a multi-stage cp.async pipeline and warp tiles of 4x4
// register blocks: b128x128k8: 128x128 block tile, k slices of 8, 8x8 per thread, two blocks
// a multiprocessor (warp tiles of 32x64); b128x128t128: 128 threads of 8x16 (64x64 warp tiles),
// two blocks a multiprocessor, k slices of 8 or 16 (t128k16); b128x128k16: b128x128k8 with
// k slices of 16; b128x128s4: with 4 stages; b128x256k8: a 128x256 block tile, 8x16 per
// thread, one block a multiprocessor.
enum class SgemmConfig {
  b128x128k8,
  b128x128t128,
  b128x128t128k16,
  b128x128k16,
  b128x128s4,
  b128x256k8
};
std::unique_ptr<Runner> make_gemm_sgemm(const GemmProblem<float>& p, SgemmConfig cfg);

}  // namespace mm
