// The pivot search's device helpers every LU kernel shares: LAPACK's pivot magnitude, L2-only
// loads, and the first-maximum argmax reductions of a warp and a block.
#pragma once

#include <climits>
#include <cuda/std/complex>
#include <type_traits>

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu::detail {

template <class D>
constexpr bool kComplex = !std::is_same_v<D, typename real_of<D>::type>;

__device__ __forceinline__ float abs_real(float x) {
  return fabsf(x);
}
__device__ __forceinline__ double abs_real(double x) {
  return fabs(x);
}

// LAPACK's pivot magnitude (|re| + |im| for complex, as i?amax), summed in the value's own
// precision as the CPU code does, then widened exactly to double for the comparisons.
template <class D>
__device__ __forceinline__ double magnitude(const D& v) {
  if constexpr (kComplex<D>)
    return static_cast<double>(abs_real(v.real()) + abs_real(v.imag()));
  else
    return static_cast<double>(abs_real(v));
}

// Loads through L2 only: the leaf's scratch is rewritten by other blocks between two
// readings, and a line left in this multiprocessor's L1 would be stale.
__device__ __forceinline__ float load_cg(const float* p) {
  return __ldcg(p);
}
__device__ __forceinline__ double load_cg(const double* p) {
  return __ldcg(p);
}
__device__ __forceinline__ ::cuda::std::complex<float> load_cg(
    const ::cuda::std::complex<float>* p) {
  const float2 v = __ldcg(reinterpret_cast<const float2*>(p));
  return {v.x, v.y};
}
__device__ __forceinline__ ::cuda::std::complex<double> load_cg(
    const ::cuda::std::complex<double>* p) {
  const double2 v = __ldcg(reinterpret_cast<const double2*>(p));
  return {v.x, v.y};
}

// Candidate (M1, I1) beats (M2, I2): a larger magnitude, or an equal one in a lower row (the
// first maximum, as LAPACK picks it). An absent candidate (row -1) always loses, so a column
// of NaNs still yields a row and every block, reducing the same list, picks the same one.
__device__ __forceinline__ bool better(double m1, int i1, double m2, int i2) {
  if (i2 < 0) return i1 >= 0;
  if (i1 < 0) return false;
  return m1 > m2 || (m1 == m2 && i1 < i2);
}

// The best of lanes [0, N) ends in lane 0 (N a power of two, at most 32; other lanes' values
// are not read where N < 32).
template <int N = 32>
__device__ __forceinline__ void warp_argmax(double& mag, int& idx) {
#pragma unroll
  for (int o = N / 2; o > 0; o /= 2) {
    const double m2 = __shfl_down_sync(0xffffffffu, mag, o);
    const int i2 = __shfl_down_sync(0xffffffffu, idx, o);
    if (better(m2, i2, mag, idx)) mag = m2, idx = i2;
  }
}

// warp_argmax, with the best handed to every lane. Where no candidate of lanes [0, N) has a
// NaN magnitude, better() orders them totally (the largest magnitude, then the lowest row), and
// a non-negative double's bits order as its value: so the best is found by three warp-wide
// reductions (the magnitude's high word, its low word among the lanes that hold the highest,
// the lowest row among the lanes that hold both) instead of a dependent shuffle tree: a
// leaf column runs two (shared-memory leaf) or three (register leaf) of these in a row. A NaN
// takes the tree, as it always did.
template <int N = 32>
__device__ __forceinline__ void warp_argmax_all(double& mag, int& idx) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = static_cast<int>(threadIdx.x % 32);
  const bool present = idx >= 0 && lane < N;
  if (!__any_sync(0xffffffffu, present && isnan(mag))) {
    const unsigned long long bits =
        present ? static_cast<unsigned long long>(__double_as_longlong(mag)) : 0ull;
    const unsigned hi = static_cast<unsigned>(bits >> 32), lo = static_cast<unsigned>(bits);
    const unsigned top = __reduce_max_sync(0xffffffffu, hi);
    const unsigned low = __reduce_max_sync(0xffffffffu, present && hi == top ? lo : 0u);
    const bool best = present && hi == top && lo == low;
    const int row = __reduce_min_sync(0xffffffffu, best ? idx : INT_MAX);
    const bool none = row == INT_MAX;
    mag = none ? 0.0
               : __longlong_as_double(
                     static_cast<long long>((static_cast<unsigned long long>(top) << 32) | low));
    idx = none ? -1 : row;
    return;
  }
#endif
  warp_argmax<N>(mag, idx);
  mag = __shfl_sync(0xffffffffu, mag, 0);
  idx = __shfl_sync(0xffffffffu, idx, 0);
}

// The block's best candidate, handed to every thread. SMAG and SIDX hold THREADS/32 + 1
// entries. Every thread of the block calls it (it holds barriers).
template <int THREADS>
__device__ void block_argmax(double& mag, int& idx, double* smag, int* sidx) {
  constexpr int WARPS = THREADS / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  warp_argmax(mag, idx);
  if (lane == 0) smag[warp] = mag, sidx[warp] = idx;
  __syncthreads();
  if (warp == 0) {
    mag = lane < WARPS ? smag[lane] : 0.0;
    idx = lane < WARPS ? sidx[lane] : -1;
    warp_argmax(mag, idx);
    if (lane == 0) smag[WARPS] = mag, sidx[WARPS] = idx;
  }
  __syncthreads();
  mag = smag[WARPS];
  idx = sidx[WARPS];
  __syncthreads();  // the slots are free again for the caller's next reduction
}

}  // namespace mm::cuda::lu::detail
