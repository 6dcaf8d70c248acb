// Cache-hinted loads and stores of the SpMV kernels: the matrix and y pass through L2 once
// and can be marked evict-first, so that x, gathered many times, keeps its place in L2.
#pragma once

#include <cstdint>
#include <cuda/std/complex>

#include "cuda/l2_policy.cuh"
#include "cuda/warp.cuh"

namespace mm::cuda {

// The --tune l2 modes (SpmvTuning::l2): plain loads; the matrix and y streamed (evict first);
// streamed and x kept (evict last).
enum SpmvL2 : int { kL2Plain = 1, kL2Stream = 2, kL2KeepX = 3 };

// L2 eviction policies (createpolicy, sm_80+) for the streamed arrays and for x.
struct L2Policy {
  std::uint64_t stream, x;
};

__device__ __forceinline__ L2Policy l2_policy(int mode) {
  const std::uint64_t normal = l2_evict_normal(), first = l2_evict_first(), last = l2_evict_last();
  return {mode >= kL2Stream ? first : normal, mode == kL2KeepX ? last : normal};
}

// ld_stream and ld_x: read-only loads under POL (through L1: a lane reading a row in steps
// finds the rest of its sector there; skipping L1 measured slower on the H100);
// st_stream: a store that skips L1 under POL.
#define MM_SPMV_ACCESS(T, PTX, C)                                                                 \
  __device__ __forceinline__ T ld_stream(const T* p, std::uint64_t pol) {                         \
    T v;                                                                                          \
    asm("ld.global.nc.L2::cache_hint." PTX " %0, [%1], %2;" : "=" C(v) : "l"(p), "l"(pol));       \
    return v;                                                                                     \
  }                                                                                               \
  __device__ __forceinline__ T ld_x(const T* p, std::uint64_t pol) {                              \
    T v;                                                                                          \
    asm("ld.global.nc.L2::cache_hint." PTX " %0, [%1], %2;" : "=" C(v) : "l"(p), "l"(pol));       \
    return v;                                                                                     \
  }                                                                                               \
  __device__ __forceinline__ void st_stream(T* p, T v, std::uint64_t pol) {                       \
    asm volatile("st.global.L1::no_allocate.L2::cache_hint." PTX " [%0], %1, %2;" ::"l"(p), C(v), \
                 "l"(pol)                                                                         \
                 : "memory");                                                                     \
  }
MM_SPMV_ACCESS(std::int32_t, "s32", "r")
MM_SPMV_ACCESS(std::int64_t, "s64", "l")
MM_SPMV_ACCESS(float, "f32", "f")
MM_SPMV_ACCESS(double, "f64", "d")
#undef MM_SPMV_ACCESS

// Complex values: the two parts, each as above (adjacent, so still one coalesced access).
template <class R>
__device__ __forceinline__ ::cuda::std::complex<R> ld_stream(const ::cuda::std::complex<R>* p,
                                                             std::uint64_t pol) {
  const R* q = reinterpret_cast<const R*>(p);
  return {ld_stream(q, pol), ld_stream(q + 1, pol)};
}
template <class R>
__device__ __forceinline__ ::cuda::std::complex<R> ld_x(const ::cuda::std::complex<R>* p,
                                                        std::uint64_t pol) {
  const R* q = reinterpret_cast<const R*>(p);
  return {ld_x(q, pol), ld_x(q + 1, pol)};
}
template <class R>
__device__ __forceinline__ void st_stream(::cuda::std::complex<R>* p, ::cuda::std::complex<R> v,
                                          std::uint64_t pol) {
  R* q = reinterpret_cast<R*>(p);
  st_stream(q, v.real(), pol);
  st_stream(q + 1, v.imag(), pol);
}

// HINTED: ld_stream / ld_x under POL; else plain loads (x through the read-only path).
template <bool HINTED, class T>
__device__ __forceinline__ T ld_s(const T* p, std::uint64_t pol) {
  if constexpr (HINTED)
    return ld_stream(p, pol);
  else
    return *p;
}
template <bool HINTED, class T>
__device__ __forceinline__ T ld_xs(const T* p, std::uint64_t pol) {
  if constexpr (HINTED)
    return ld_x(p, pol);
  else
    return ldg(p);
}

}  // namespace mm::cuda
