// Asynchronous copies from global into shared memory (cp.async, sm_80+), for the GEMM kernels'
// multi-stage pipelines (cuda-dmma, cuda-sgemm): a copy with zero fill, a group commit, a wait.
#pragma once

namespace mm::cuda {

// BYTES (4, 8 or 16) from SRC in global memory to DST in shared memory; only SRC_BYTES of them
// are read and the rest zero-filled (0: nothing is read and DST is zeroed, for the parts of a
// tile outside the matrix, SRC then only needs to be a valid address). 16-byte copies bypass L1
// (.cg); the smaller ones, which scatter single values (a transpose on the way in), go through
// it (.ca: the only form for them).
template <int BYTES>
__device__ __forceinline__ void cp_async(void* dst, const void* src, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                 "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(BYTES),
                 "r"(src_bytes));
}

// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

// Waits until at most N of this thread's committed groups are pending (a barrier after it makes
// the landed data visible to the block).
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace mm::cuda
