// L2 eviction policies (createpolicy, sm_80+) for the loads and stores that take a cache hint
// (.L2::cache_hint): the SpMV's streamed arrays and x (spmv_loads.cuh), cuda-norm's tma stages
// (stencil_march_tma.cuh).
#pragma once

#include <cstdint>

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

}  // namespace mm::cuda
