// Inside the hand-written CUDA SpMV: what spmv.cu (the runner, vector-k and merge) and
// spmv_csr.cu (the scalar, vector and adaptive kernels, SpmvCudaDevice) share: the block size,
// the adaptive kernel's plan and the CSR launches.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/cuda_util.cuh"
#include "cuda/spmv_cuda.hpp"
#include "mm/matrix.hpp"

namespace mm::spmv_csr {

// Tuning: threads per block of every SpMV kernel but merge's tiles and csr-stream's blocks
// (spmv.cu's kMergeThreads and kStreamThreads).
constexpr int kThreads = 256;

// Blocks of PER_BLOCK threads that cover THREADS.
inline std::int64_t grid_for(std::int64_t threads, int per_block = kThreads) {
  return (threads + per_block - 1) / per_block;
}

struct RowBlock;  // one unit of adaptive work (spmv_csr.cu, beside the kernel that reads it)

// The adaptive kernel's plan of a matrix's rows, on the device: its blocks, and the rows too
// long for one block, which their chunks add into.
struct AdaptivePlan {
  cuda::Buffer<RowBlock> blocks;
  cuda::Buffer<std::int64_t> long_rows;
};

// Plans A's rows (on the host) and uploads the plan to the current device.
template <class I, class T>
AdaptivePlan plan_adaptive(const Csr<I, T>& a);

// y = alpha*A*x + beta*y0 by kernel K (scalar, vector or adaptive) on STREAM: the launches
// every user of these kernels shares (spmv.cu's runner, SpmvCudaDevice). PLAN: the adaptive
// kernel's; L2: its loads' cache hints (cuda::kL2Plain: none). Y0: null for none.
template <class I, class D>
void launch_csr(SpmvCudaKernel k, std::int64_t rows, const I* ptr, const I* idx, const D* val,
                const D* x, const D* y0, D* y, D alpha, D beta, const AdaptivePlan& plan, int l2,
                cudaStream_t stream);

}  // namespace mm::spmv_csr
