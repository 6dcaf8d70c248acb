// Device building blocks of the CUDA LU: the choice of panel leaf (the leaves themselves are
// in lu_cluster.cu), pivot sequences turned into row gathers and cuda-hybrid's per-column
// kernels.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "cuda/lu_device.cuh"
#include "cuda/lu_kernels.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

using namespace detail;

// Tuning. 256 threads (8 warps) for the gathers and the hybrid's element kernels. A grid
// leaf block holds kGridRows rows or more: at n = 16384 that is 64 blocks.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kGridRows = 256;
constexpr int kGridMostBlocks = 128;  // bounds the words each block reads a column
constexpr int kSearchThreads = 1024;  // cuda-hybrid's pivot search: one block
constexpr int kGatherBytes = 64;      // a gather block's width: 64 bytes of each row
constexpr Index kMaxGridY = 65535;

// ---- pivots as row gathers ---------------------------------------------------------------

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

// ---- cuda-hybrid: a kernel per operation of a column step ------------------------------------

template <class D>
__global__ void __launch_bounds__(kSearchThreads)
    search_kernel(const D* __restrict__ a, Index n, Index k, int* __restrict__ ipiv,
                  unsigned long long* __restrict__ info) {
  __shared__ double smag[kSearchThreads / 32 + 1];
  __shared__ int sidx[kSearchThreads / 32 + 1];
  double mag = 0;
  int idx = -1;
  for (Index i = k + threadIdx.x; i < n; i += kSearchThreads) {
    const double v = magnitude(a[i * n + k]);
    if (better(v, static_cast<int>(i), mag, idx)) mag = v, idx = static_cast<int>(i);
  }
  block_argmax<kSearchThreads>(mag, idx, smag, sidx);
  if (threadIdx.x == 0) {
    ipiv[k] = idx;
    if (mag == 0) atomicMin(info, static_cast<unsigned long long>(k));
  }
}

template <class D>
__global__ void __launch_bounds__(kThreads)
    swap_kernel(D* __restrict__ a, Index n, Index k, const int* __restrict__ ipiv) {
  const Index c = blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x;
  const Index p = ipiv[k];
  if (c >= n || p == k) return;
  const D x = a[k * n + c];
  a[k * n + c] = a[p * n + c];
  a[p * n + c] = x;
}

template <class D>
__global__ void __launch_bounds__(kThreads) scale_kernel(D* __restrict__ a, Index n, Index k) {
  const Index i = k + 1 + blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x;
  const D piv = a[k * n + k];
  if (i >= n || piv == D{}) return;
  a[i * n + k] *= D(1) / piv;  // l = a * (1 / pivot), as lu_ref computes it
}

// 32 columns by 8 rows per block: a warp along a row of the trailing matrix.
template <class D>
__global__ void __launch_bounds__(kThreads) update_kernel(D* __restrict__ a, Index n, Index k) {
  const Index j = k + 1 + blockIdx.x * static_cast<Index>(32) + threadIdx.x % 32;
  const Index i = k + 1 + blockIdx.y * static_cast<Index>(kWarps) + threadIdx.x / 32;
  if (i >= n || j >= n || a[k * n + k] == D{}) return;
  a[i * n + j] -= a[i * n + k] * a[k * n + j];
}

unsigned blocks_of(Index units, Index per_block) {
  return static_cast<unsigned>((units + per_block - 1) / per_block);
}

}  // namespace

namespace {
LeafMode leaf_mode() {
  const char* mode = std::getenv("MM_LU_LEAF");
  const std::string m = mode && *mode ? mode : "cluster";
  if (m != "cluster" && m != "grid")
    throw UsageError("MM_LU_LEAF must be cluster or grid, not '" + m + "'");
  return m == "grid" ? LeafMode::grid : LeafMode::cluster;
}
}  // namespace

template <class T>
bool leaf_confinable(Index n) {
  if (leaf_mode() != LeafMode::cluster) return false;
  ClusterLeaf l = cluster_prepare<T>();
  l.max_rows = std::numeric_limits<int>::max();
  return cluster_plan<T>(l, n).width > 0;
}

template <class T>
LeafScratch<T> leaf_prepare(Index n, bool confined) {
  int dev = 0, optin = 0;
  MM_CUDA(cudaGetDevice(&dev));
  MM_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  LeafScratch<T> s;
  s.grid_blocks = std::clamp(multiprocessors(), 1, kGridMostBlocks);
  s.grid_rows = std::max(1, env_int("MM_LU_GRID_ROWS", kGridRows));
  const GridPlan g = grid_plan<T>(n, s.grid_blocks, s.grid_rows);
  if (g.smem > static_cast<std::size_t>(optin))
    throw DeviceError("cuda-blocked: the panel leaf needs " + std::to_string(g.smem) +
                      " bytes of shared memory per block for n = " + std::to_string(n) +
                      ", over the device's " + std::to_string(optin) + "; use --impl cusolver");
  if (grid_leaf_attributes<T>(static_cast<std::size_t>(optin)) < g.blocks)
    throw DeviceError("cuda-blocked: the panel leaf's " + std::to_string(g.blocks) +
                      " blocks cannot all be resident at once");
  s.xchg = Buffer<unsigned long long>(grid_xchg_words<T>(s.grid_blocks));
  s.xchg.fill_bytes(0);
  s.epoch = Buffer<unsigned>(1);
  s.epoch.fill_bytes(0);
  s.mode = leaf_mode();
  if (s.mode == LeafMode::cluster) s.cluster = cluster_prepare<T>();
  if (confined) {
    s.cluster.max_rows = std::numeric_limits<int>::max();
    if (s.mode != LeafMode::cluster || cluster_plan<T>(s.cluster, n).width == 0)
      throw DeviceError("cuda-blocked: no cluster of the panel's SMs holds " + std::to_string(n) +
                        " rows (MM_LU_PANEL_SMS=0 runs the panel on every SM)");
  }
  return s;
}

template <class T>
int leaf_width(const LeafScratch<T>& scratch, Index m) {
  if (scratch.mode == LeafMode::grid) return kLeafWidth;
  const int w = cluster_plan<T>(scratch.cluster, m).width;
  return w > 0 ? w : kLeafWidth;
}

template <class T>
void leaf_factor(T* mat, Index lda, int g0, int m, int w, int pc0, int pc1, int* ipiv,
                 unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st) {
  if (scratch.mode == LeafMode::cluster) {
    const ClusterPlan plan = cluster_plan<T>(scratch.cluster, m);
    if (plan.width >= w) {
      cluster_leaf_factor(plan, mat, lda, g0, m, w, pc0, pc1, ipiv, info, st);
      return;
    }
  }
  grid_leaf_factor(grid_plan<T>(m, scratch.grid_blocks, scratch.grid_rows), mat, lda, g0, m, w, pc0,
                   pc1, ipiv, info, scratch.xchg.get(), scratch.epoch.get(), st);
}

void pivot_pairs(const int* ipiv, int k0, int k1, int* pairs, cudaStream_t st) {
  if (k1 - k0 > kMaxPivots) throw DeviceError("pivot_pairs: more than kMaxPivots pivots");
  pairs_kernel<<<1, kMaxPivots, 0, st>>>(ipiv, k0, k1, pairs);
  MM_CUDA_LAUNCHED("lu pairs_kernel");
}

template <class T>
void gather_rows(T* mat, Index lda, Index c0, Index c1, const int* pairs, int slots,
                 cudaStream_t st) {
  using D = dev_t<T>;
  if (c1 <= c0 || slots == 0) return;
  constexpr Index CW = kGatherBytes / static_cast<Index>(sizeof(D));
  const std::size_t bytes = static_cast<std::size_t>(slots) * (CW * sizeof(D) + 2 * sizeof(int));
  gather_kernel<D><<<blocks_of(c1 - c0, CW), kThreads, bytes, st>>>(reinterpret_cast<D*>(mat), lda,
                                                                    c0, c1, pairs, slots);
  MM_CUDA_LAUNCHED("lu gather_kernel");
}

template <class T>
void hybrid_step(T* a, Index n, Index k, int* ipiv, unsigned long long* info, cudaStream_t st) {
  using D = dev_t<T>;
  D* d = reinterpret_cast<D*>(a);
  search_kernel<D><<<1, kSearchThreads, 0, st>>>(d, n, k, ipiv, info);
  MM_CUDA_LAUNCHED("lu search_kernel");
  swap_kernel<D><<<blocks_of(n, kThreads), kThreads, 0, st>>>(d, n, k, ipiv);
  MM_CUDA_LAUNCHED("lu swap_kernel");
  const Index below = n - k - 1;
  if (below == 0) return;
  if (blocks_of(below, kWarps) > kMaxGridY)
    throw DeviceError("cuda-hybrid: n = " + std::to_string(n) + " exceeds the grid");
  scale_kernel<D><<<blocks_of(below, kThreads), kThreads, 0, st>>>(d, n, k);
  MM_CUDA_LAUNCHED("lu scale_kernel");
  update_kernel<D>
      <<<dim3(blocks_of(below, 32), blocks_of(below, kWarps)), kThreads, 0, st>>>(d, n, k);
  MM_CUDA_LAUNCHED("lu update_kernel");
}

#define MM_LU_KERNELS(T)                                                                      \
  template LeafScratch<T> leaf_prepare<T>(Index, bool);                                       \
  template bool leaf_confinable<T>(Index);                                                    \
  template int leaf_width<T>(const LeafScratch<T>&, Index);                                   \
  template void leaf_factor<T>(T*, Index, int, int, int, int, int, int*, unsigned long long*, \
                               LeafScratch<T>&, cudaStream_t);                                \
  template void gather_rows<T>(T*, Index, Index, Index, const int*, int, cudaStream_t);       \
  template void hybrid_step<T>(T*, Index, Index, int*, unsigned long long*, cudaStream_t);
MM_FOR_VALUE_TYPES(MM_LU_KERNELS)

}  // namespace mm::cuda::lu
