// Warp and block reductions for float, double and cuda::std::complex values.
#pragma once

#include <cuda/std/complex>

namespace mm::cuda {

template <class T>
__device__ __forceinline__ T shfl_down(T v, int offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}
template <class R>
__device__ __forceinline__ ::cuda::std::complex<R> shfl_down(::cuda::std::complex<R> v,
                                                             int offset) {
  return {__shfl_down_sync(0xffffffffu, v.real(), offset),
          __shfl_down_sync(0xffffffffu, v.imag(), offset)};
}

// Sum over groups of WIDTH consecutive lanes (a power of two <= 32); lane 0 of each group
// holds the group's sum.
template <int WIDTH, class T>
__device__ __forceinline__ T group_sum(T v) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o /= 2) v += shfl_down(v, o);
  return v;
}

// Sum over the block (THREADS a multiple of 32); thread 0 holds it.
template <int THREADS, class T>
__device__ __forceinline__ T block_sum(T v) {
  __shared__ T partial[THREADS / 32];
  v = group_sum<32>(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < THREADS / 32 ? partial[threadIdx.x] : T{};
  if (warp == 0) v = group_sum<32>(v);
  __syncthreads();  // partial may be reused by the caller's next reduction
  return v;
}

// A read through the read-only data cache (complex: both parts).
template <class T>
__device__ __forceinline__ T ldg(const T* p) {
  return __ldg(p);
}
template <class R>
__device__ __forceinline__ ::cuda::std::complex<R> ldg(const ::cuda::std::complex<R>* p) {
  const R* parts = reinterpret_cast<const R*>(p);
  return {__ldg(parts), __ldg(parts + 1)};
}

__device__ __forceinline__ void atomic_add(float* p, float v) {
  atomicAdd(p, v);
}
__device__ __forceinline__ void atomic_add(double* p, double v) {
  atomicAdd(p, v);
}
template <class R>
__device__ __forceinline__ void atomic_add(::cuda::std::complex<R>* p, ::cuda::std::complex<R> v) {
  R* parts = reinterpret_cast<R*>(p);
  atomicAdd(parts, v.real());
  atomicAdd(parts + 1, v.imag());
}

}  // namespace mm::cuda
