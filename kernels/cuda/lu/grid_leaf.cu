// The LU panel leaf on a cooperative grid: each block owns a share of the leaf's rows in
// shared memory, and every column's pivot candidates meet through global scratch after a
// grid-wide barrier. The fallback wherever no thread-block cluster holds the leaf.
#include <cooperative_groups.h>

#include <algorithm>
#include <string>

#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/pivot_search.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

namespace cg = cooperative_groups;
using namespace detail;

// Tuning. 256 threads (8 warps) a block. A leaf block owns kLeafRows rows or more: at
// n = 16384 that is 64 blocks, few enough for a cheap grid barrier, each with one row per
// thread to search and 32 per warp to update.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kLeafRows = 256;
constexpr int kUnroll = 4;  // rows in flight per lane in the leaf's column update

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

}  // namespace

template <class T>
void grid_leaf_prepare(Index n, LeafScratch<T>& s) {
  using D = dev_t<T>;
  int dev = 0, optin = 0;
  MM_CUDA(cudaGetDevice(&dev));
  MM_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  const int sms = multiprocessors();
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
}

template <class T>
void grid_leaf_factor(T* mat, Index lda, int g0, int m, int w, int pc0, int pc1, int* ipiv,
                      unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st) {
  using D = dev_t<T>;
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

#define MM_LU_GRID_LEAF(T)                                                                         \
  template void grid_leaf_prepare<T>(Index, LeafScratch<T>&);                                      \
  template void grid_leaf_factor<T>(T*, Index, int, int, int, int, int, int*, unsigned long long*, \
                                    LeafScratch<T>&, cudaStream_t);
MM_FOR_VALUE_TYPES(MM_LU_GRID_LEAF)

}  // namespace mm::cuda::lu
