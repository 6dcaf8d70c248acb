// Device building blocks of the CUDA LU: the cooperative panel leaf, pivot sequences turned
// into row gathers and cuda-hybrid's per-column kernels.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/pivot_search.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

namespace cg = cooperative_groups;
using namespace detail;

// Tuning. 256 threads (8 warps) for the leaf, the gathers and the hybrid's element kernels.
// A leaf block owns kLeafRows rows or more: at n = 16384 that is 64 blocks, few enough for a
// cheap grid barrier, each with one row per thread to search and 32 per warp to update.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kLeafRows = 256;
constexpr int kUnroll = 4;            // rows in flight per lane in the leaf's column update
constexpr int kSearchThreads = 1024;  // cuda-hybrid's pivot search: one block
constexpr int kGatherBytes = 64;      // a gather block's width: 64 bytes of each row
constexpr Index kMaxGridY = 65535;

// ---- the panel leaf ----------------------------------------------------------------------

template <class D>
struct LeafArgs {
  D* mat;  // row 0, column 0 of the matrix
  Index lda;
  int g0, m, w;      // the leaf: m rows and w columns from (g0, g0)
  int rows, blocks;  // rows per owning block; owning blocks (the grid has one more)
  int pc0, pc1;      // the enclosing panel's columns, swapped by the extra block
  int* ipiv;
  unsigned long long* info;
  double* cmag;  // LeafScratch, as device types
  int* cidx;
  D* crow;
  D* crowj;
};

// Dynamic shared memory: the block's rows, every block's candidate row, the row swapped away
// (all kLeafWidth wide), then the reduction slots.
template <class D>
std::size_t leaf_smem(int rows, int blocks) {
  return static_cast<std::size_t>(rows + blocks + 1) * kLeafWidth * sizeof(D) +
         (kWarps + 1) * (sizeof(double) + sizeof(int));
}

int leaf_rows(Index m, int max_blocks) {
  return static_cast<int>(std::max<Index>(kLeafRows, (m + max_blocks - 1) / max_blocks));
}

// Per column j: each owning block finds its best candidate for the pivot among its rows >= j
// and publishes it with its row; one grid barrier; every block reduces the candidates the
// same way and reads the winning row, and the owners swap, scale and update their rows in
// shared memory. The extra block (the last) swaps the two rows in the panel's other columns.
template <class D>
__global__ void __launch_bounds__(kThreads) leaf_kernel(LeafArgs<D> p) {
  constexpr int W = kLeafWidth;
  cg::grid_group grid = cg::this_grid();
  extern __shared__ __align__(16) unsigned char smem[];
  D* s = reinterpret_cast<D*>(smem);
  D* cand = s + p.rows * W;
  D* oldj = cand + p.blocks * W;
  double* red_mag = reinterpret_cast<double*>(oldj + W);
  int* red_idx = reinterpret_cast<int*>(red_mag + kWarps + 1);
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const bool owner = static_cast<int>(blockIdx.x) < p.blocks;
  const int r0 = static_cast<int>(blockIdx.x) * p.rows;
  const int nr = owner ? min(p.m, r0 + p.rows) - r0 : 0;
  D* a = p.mat + static_cast<Index>(p.g0) * p.lda + p.g0;
  for (int e = t; e < nr * W; e += kThreads) {
    const int r = e / W, c = e % W;
    s[e] = c < p.w ? a[static_cast<Index>(r0 + r) * p.lda + c] : D{};
  }
  __syncthreads();
  for (int j = 0; j < p.w; ++j) {
    const int par = j & 1;
    if (owner) {
      double mag = 0;
      int idx = -1;
      for (int r = max(j - r0, 0) + t; r < nr; r += kThreads) {
        const double v = magnitude(s[r * W + j]);
        if (better(v, r0 + r, mag, idx)) mag = v, idx = r0 + r;
      }
      block_argmax<kThreads>(mag, idx, red_mag, red_idx);
      const int slot = par * p.blocks + static_cast<int>(blockIdx.x);
      if (t == 0) p.cmag[slot] = mag, p.cidx[slot] = idx;
      if (idx >= 0 && t < p.w) p.crow[slot * W + t] = s[(idx - r0) * W + t];
      if (j >= r0 && j < r0 + nr && t < p.w) p.crowj[par * W + t] = s[(j - r0) * W + t];
    }
    grid.sync();
    // Every block: all candidates and the row at j in one round trip, then the winner.
    double mag = 0;
    int idx = -1;
    if (t < p.blocks) {
      mag = __ldcg(p.cmag + par * p.blocks + t);
      idx = __ldcg(p.cidx + par * p.blocks + t);
    }
    for (int e = t; e < p.blocks * W; e += kThreads)
      cand[e] = load_cg(p.crow + par * p.blocks * W + e);
    if (t < W) oldj[t] = load_cg(p.crowj + par * W + t);
    block_argmax<kThreads>(mag, idx, red_mag, red_idx);  // its barriers publish cand and oldj
    const int pr = idx;                                  // the pivot row, leaf-relative
    const D* prow = cand + (pr / p.rows) * W;
    const D piv = prow[j];
    if (blockIdx.x == 0 && t == 0) {
      p.ipiv[p.g0 + j] = p.g0 + pr;
      if (piv == D{}) atomicMin(p.info, static_cast<unsigned long long>(p.g0 + j));
    }
    if (!owner) {
      if (pr != j) {  // the same thread swaps the same column at every j: no ordering issue
        D* rj = p.mat + static_cast<Index>(p.g0 + j) * p.lda;
        D* rp = p.mat + static_cast<Index>(p.g0 + pr) * p.lda;
        const int outside = p.pc1 - p.pc0 - p.w;
        for (int e = t; e < outside; e += kThreads) {
          const int c = p.pc0 + e < p.g0 ? p.pc0 + e : p.pc0 + e + p.w;
          const D x = rj[c];
          rj[c] = rp[c];
          rp[c] = x;
        }
      }
      continue;
    }
    if (t < p.w) {
      if (j >= r0 && j < r0 + nr) s[(j - r0) * W + t] = prow[t];
      if (pr != j && pr >= r0 && pr < r0 + nr) s[(pr - r0) * W + t] = oldj[t];
    }
    __syncthreads();
    if (piv != D{}) {  // a zero pivot leaves the column as it is (LAPACK does the same)
      const D inv = D(1) / piv, pv = prow[lane];
      // kUnroll rows at a time: their loads in flight together, not one latency each.
      for (int base = max(j + 1 - r0, 0) + warp; base < nr; base += kUnroll * kWarps) {
        D v[kUnroll], x[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int r = base + u * kWarps;
          v[u] = r < nr ? s[r * W + j] : D{};
          x[u] = r < nr && lane > j ? s[r * W + lane] : D{};
        }
        __syncwarp();  // the trip count is the warp's; lane j's writes follow every read
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int r = base + u * kWarps;
          if (r >= nr) continue;
          const D l = v[u] * inv;
          if (lane == j)
            s[r * W + j] = l;
          else if (lane > j && lane < p.w)
            s[r * W + lane] = x[u] - l * pv;
        }
      }
    }
    __syncthreads();
  }
  for (int e = t; e < nr * W; e += kThreads) {
    const int r = e / W, c = e % W;
    if (c < p.w) a[static_cast<Index>(r0 + r) * p.lda + c] = s[e];
  }
}

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

template <class T>
LeafScratch<T> leaf_prepare(Index n) {
  using D = dev_t<T>;
  int dev = 0, optin = 0;
  MM_CUDA(cudaGetDevice(&dev));
  MM_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  const int sms = multiprocessors();
  LeafScratch<T> s;
  s.max_blocks = std::clamp(sms - 1, 1, kThreads);  // phase B: a thread per candidate
  const std::size_t bytes = leaf_smem<D>(leaf_rows(n, s.max_blocks), s.max_blocks);
  if (bytes > static_cast<std::size_t>(optin))
    throw DeviceError("cuda-blocked: the panel leaf needs " + std::to_string(bytes) +
                      " bytes of shared memory per block for n = " + std::to_string(n) +
                      ", over the device's " + std::to_string(optin) + "; use --impl cusolver");
  static std::size_t raised = 0;  // only ever raised: a larger engine may still be alive
  if (bytes > raised) {
    MM_CUDA(cudaFuncSetAttribute(leaf_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(bytes)));
    raised = bytes;
  }
  int per_sm = 0;
  MM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, leaf_kernel<D>, kThreads, bytes));
  if (per_sm * sms < s.max_blocks + 1)
    throw DeviceError("cuda-blocked: the panel leaf's " + std::to_string(s.max_blocks + 1) +
                      " blocks cannot all be resident at once");
  s.mag = Buffer<double>(2 * static_cast<std::size_t>(s.max_blocks));
  s.idx = Buffer<int>(2 * static_cast<std::size_t>(s.max_blocks));
  s.rows = Buffer<T>(2 * static_cast<std::size_t>(s.max_blocks) * kLeafWidth);
  s.rowj = Buffer<T>(2 * kLeafWidth);
  const char* mode = std::getenv("MM_LU_LEAF");
  const std::string m = mode ? mode : "cluster";
  if (m != "cluster" && m != "grid")
    throw UsageError("MM_LU_LEAF must be cluster or grid, not '" + m + "'");
  s.mode = m == "grid" ? LeafMode::grid : LeafMode::cluster;
  if (s.mode == LeafMode::cluster) s.cluster = cluster_prepare<T>();
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
  using D = dev_t<T>;
  if (scratch.mode == LeafMode::cluster) {
    const ClusterPlan plan = cluster_plan<T>(scratch.cluster, m);
    if (plan.width >= w) {
      cluster_leaf_factor(plan, mat, lda, g0, m, w, pc0, pc1, ipiv, info, st);
      return;
    }
  }
  const int rows = leaf_rows(m, scratch.max_blocks);
  const int blocks = (m + rows - 1) / rows;
  LeafArgs<D> a{reinterpret_cast<D*>(mat),
                lda,
                g0,
                m,
                w,
                rows,
                blocks,
                pc0,
                pc1,
                ipiv,
                info,
                scratch.mag.get(),
                scratch.idx.get(),
                reinterpret_cast<D*>(scratch.rows.get()),
                reinterpret_cast<D*>(scratch.rowj.get())};
  void* args[] = {&a};
  MM_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(leaf_kernel<D>),
                                      dim3(blocks + 1), dim3(kThreads), args,
                                      leaf_smem<D>(rows, blocks), st));
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
  template LeafScratch<T> leaf_prepare<T>(Index);                                             \
  template int leaf_width<T>(const LeafScratch<T>&, Index);                                   \
  template void leaf_factor<T>(T*, Index, int, int, int, int, int, int*, unsigned long long*, \
                               LeafScratch<T>&, cudaStream_t);                                \
  template void gather_rows<T>(T*, Index, Index, Index, const int*, int, cudaStream_t);       \
  template void hybrid_step<T>(T*, Index, Index, int*, unsigned long long*, cudaStream_t);
MM_FOR_VALUE_TYPES(MM_LU_KERNELS)

}  // namespace mm::cuda::lu
