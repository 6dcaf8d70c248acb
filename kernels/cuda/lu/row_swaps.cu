// LAPACK's pivot sequences turned into row gathers: the pairs kernel follows each row back
// through a run of swaps, the gather kernel moves every named row of a column range at once.
#include "cuda/lu/row_swaps.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

// Tuning. 256 threads (8 warps) a gather block, each over 64 bytes of every named row.
constexpr int kThreads = 256;
constexpr int kGatherBytes = 64;  // a gather block's width: 64 bytes of each row

// Slot t: row k0 + t; slot w + t: row ipiv[k0 + t] where it lies below the range and is first
// named at t. A row's source is found by following it back through the swaps.
__global__ void __launch_bounds__(kMaxPivots)
    pairs_kernel(const int* __restrict__ ipiv, int k0, int k1, int* __restrict__ pairs) {
  __shared__ int piv[kMaxPivots];
  const int w = k1 - k0, t = threadIdx.x;
  if (t < w) piv[t] = ipiv[k0 + t];
  __syncthreads();
  if (t >= w) return;
  const auto source = [&](int r) {
    for (int k = w - 1; k >= 0; --k) {
      if (r == k0 + k)
        r = piv[k];
      else if (r == piv[k])
        r = k0 + k;
    }
    return r;
  };
  const int r1 = k0 + t, s1 = source(r1);
  pairs[2 * t] = s1 != r1 ? r1 : -1;
  pairs[2 * t + 1] = s1;
  const int q = piv[t];
  bool first = q >= k1;
  for (int k = 0; k < t && first; ++k) first = piv[k] != q;
  const int s2 = first ? source(q) : q;
  pairs[2 * (w + t)] = first && s2 != q ? q : -1;
  pairs[2 * (w + t) + 1] = s2;
}

template <class D>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(D* __restrict__ mat, Index lda, Index c0, Index c1, const int* __restrict__ pairs,
                  int slots) {
  constexpr int CW = kGatherBytes / static_cast<int>(sizeof(D));
  extern __shared__ __align__(16) unsigned char smem[];
  D* tile = reinterpret_cast<D*>(smem);
  int* sp = reinterpret_cast<int*>(tile + slots * CW);
  for (int i = threadIdx.x; i < 2 * slots; i += kThreads) sp[i] = pairs[i];
  __syncthreads();
  const Index cb = c0 + static_cast<Index>(blockIdx.x) * CW;
  for (int e = threadIdx.x; e < slots * CW; e += kThreads) {
    const int sl = e / CW;
    const Index c = cb + e % CW;
    if (sp[2 * sl] >= 0 && c < c1) tile[e] = mat[static_cast<Index>(sp[2 * sl + 1]) * lda + c];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < slots * CW; e += kThreads) {
    const int sl = e / CW;
    const Index c = cb + e % CW;
    if (sp[2 * sl] >= 0 && c < c1) mat[static_cast<Index>(sp[2 * sl]) * lda + c] = tile[e];
  }
}

unsigned blocks_of(Index units, Index per_block) {
  return static_cast<unsigned>((units + per_block - 1) / per_block);
}

}  // namespace

void pivot_pairs(const int* ipiv, int k0, int k1, int* pairs, cudaStream_t st) {
  if (k1 - k0 > kMaxPivots) throw DeviceError("pivot_pairs: more than kMaxPivots pivots");
  pairs_kernel<<<1, kMaxPivots, 0, st>>>(ipiv, k0, k1, pairs);
  MM_CUDA_LAUNCHED("lu pairs_kernel");
}

template <class D>
std::size_t gather_smem(int slots) {
  constexpr std::size_t CW = kGatherBytes / sizeof(D);
  return static_cast<std::size_t>(slots) * (CW * sizeof(D) + 2 * sizeof(int));
}

template <class T>
void gather_rows_prepare() {
  using D = dev_t<T>;
  MM_CUDA(cudaFuncSetAttribute(gather_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(gather_smem<D>(2 * kMaxPivots))));
}

template <class T>
void gather_rows(T* mat, Index lda, Index c0, Index c1, const int* pairs, int slots,
                 cudaStream_t st) {
  using D = dev_t<T>;
  if (c1 <= c0 || slots == 0) return;
  constexpr Index CW = kGatherBytes / static_cast<Index>(sizeof(D));
  gather_kernel<D><<<blocks_of(c1 - c0, CW), kThreads, gather_smem<D>(slots), st>>>(
      reinterpret_cast<D*>(mat), lda, c0, c1, pairs, slots);
  MM_CUDA_LAUNCHED("lu gather_kernel");
}

#define MM_LU_ROW_SWAPS(T)                \
  template void gather_rows_prepare<T>(); \
  template void gather_rows<T>(T*, Index, Index, Index, const int*, int, cudaStream_t);
MM_FOR_VALUE_TYPES(MM_LU_ROW_SWAPS)

}  // namespace mm::cuda::lu
