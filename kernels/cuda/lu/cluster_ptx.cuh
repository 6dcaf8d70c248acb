// Thread-block cluster plumbing in PTX (sm_90) for the LU leaves' push exchange: shared-memory
// addresses across the cluster and st.async pushes that complete an mbarrier's transaction
// count in the receiving block (the mbarriers' own steps: tma.cuh's sm90 ones, waited for with
// mbar_wait<Scope::cluster>).
#pragma once

#include "cuda/tma.cuh"

namespace mm::cuda::lu::detail {

using sm90::smem_u32;
// The push exchange's two mbarriers at MBAR (one a parity of the column), each with its one
// local arrival (mbar_arrive_expect_tx), made visible to the cluster; by one thread, before the
// cluster's first barrier.
__device__ __forceinline__ void init_push_barriers(unsigned long long* mbar) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    sm90::mbar_init(smem_u32(mbar + i), 1);
    sm90::mbar_init_fence();
  }
}
// The address of the same shared-memory location in block RANK of the cluster.
__device__ __forceinline__ unsigned at_rank(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
// An asynchronous store into another block's shared memory that counts its bytes off the
// transaction count of MBAR (an mbarrier in that block).
template <class V>
__device__ __forceinline__ void push(unsigned addr, const V& v, unsigned mbar) {
  if constexpr (sizeof(V) == 4) {
    unsigned x;
    __builtin_memcpy(&x, &v, 4);
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(addr),
        "r"(x), "r"(mbar)
        : "memory");
  } else if constexpr (sizeof(V) == 8) {
    unsigned long long x;
    __builtin_memcpy(&x, &v, 8);
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(addr),
        "l"(x), "r"(mbar)
        : "memory");
  } else {
    static_assert(sizeof(V) == 16);
    unsigned long long x[2];
    __builtin_memcpy(x, &v, 16);
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];" ::"r"(
            addr),
        "l"(x[0]), "l"(x[1]), "r"(mbar)
        : "memory");
  }
}
}  // namespace mm::cuda::lu::detail
