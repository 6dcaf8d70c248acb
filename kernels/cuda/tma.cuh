// Hopper (sm_90) copy-engine plumbing: mbarriers, TMA tile loads and bulk copies into shared
// memory (the TF32 GEMM, wgmma.cuh; cuda-norm's sweep with ahead=tma, stencil_march_tma.cuh;
// the LU leaves' cluster exchange, lu/cluster_ptx.cuh).
#pragma once

#include <cstdint>

namespace mm::cuda::sm90 {

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarriers -------------------------------------------------------------------------------

__device__ __forceinline__ void mbar_init(std::uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// After the initialising thread's mbar_init calls, before the block barrier that publishes them
// (the copy engine is another proxy).
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces BYTES of copies completing on the barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, unsigned bytes) {
  asm volatile(
      "{\n .reg .b64 st;\n mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar)
               : "memory");
}

// The scope of an mbarrier wait's acquire: the block (its own threads' and the copy engine's
// stores), or the cluster (what other blocks of the cluster stored into this block's shared
// memory against the barrier is visible after it: st.async, the LU leaves' pushes).
enum class Scope { cta, cluster };

// Waits until the phase of parity PARITY has completed (a fresh barrier is in phase 0, so
// parity 1 returns at once: the producer's first pass over its empty slots).
template <Scope S = Scope::cta>
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, unsigned parity) {
  unsigned done = 0;
  do {
    if constexpr (S == Scope::cta)
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          " selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
    else
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], "
          "%2;\n selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
  } while (!done);
}

// ---- TMA -------------------------------------------------------------------------------------

// The box of MAP at element coordinates (c0 innermost, c1) into shared DST, completing on BAR.
// Elements outside the tensor arrive as zeros (and count in the barrier's bytes).
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const void* map, int c0, int c1,
                                            std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void tma_prefetch_map(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// Ordinary shared stores by this thread made visible to the async proxy (wgmma, TMA).
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// BYTES (a multiple of 16; both addresses 16-byte aligned) from global SRC into shared DST by
// the copy engine, completing on BAR's transaction count.
__device__ __forceinline__ void bulk_load(std::uint32_t dst, const void* src, unsigned bytes,
                                          std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(src)), "r"(bytes), "r"(bar)
      : "memory");
}

// bulk_load under the L2 policy POLICY (l2_policy.cuh).
__device__ __forceinline__ void bulk_load(std::uint32_t dst, const void* src, unsigned bytes,
                                          std::uint32_t bar, std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], "
      "[%1], %2, [%3], %4;\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(src)), "r"(bytes), "r"(bar), "l"(policy)
      : "memory");
}

}  // namespace mm::cuda::sm90
