// L2 eviction policies (createpolicy, sm_80+) for the loads and stores that take a cache hint
// (.L2::cache_hint): the SpMV's streamed arrays and x (spmv_loads.cuh), cuda-norm's tma stages
// (stencil_march_tma.cuh); and the host's release of the lines they kept.
#pragma once

#include <cstdint>

#include "cuda/cuda_util.cuh"

namespace mm::cuda {

__device__ __forceinline__ std::uint64_t l2_evict_normal() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// Lines evicted before the others: data that passes through L2 once.
__device__ __forceinline__ std::uint64_t l2_evict_first() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// Lines evicted after the others: data read again soon.
__device__ __forceinline__ std::uint64_t l2_evict_last() {
  std::uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// Lines loaded with evict_last stay kept after their kernel ends, for whatever runs next on the
// GPU: on the H200 cuda-norm's rule plan at N = 256 in double (loads evicted as usual) ran 0.955
// of the copy right after a runner whose sweeps loaded with evict_last, 0.932 otherwise
// (bench/results/issue16_fiftysecond_pass_*.md). So a runner whose kernels keep lines (KEPT)
// makes them normal again after each run, outside its timed events: every run, a later runner's
// and a vendor library's in the same benchmark included, starts from an L2 that holds none.
inline void release_kept_lines(bool kept) {
  if (kept) MM_CUDA(cudaCtxResetPersistingL2Cache());
}

}  // namespace mm::cuda
