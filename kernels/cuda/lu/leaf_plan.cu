// Which leaf factors a panel of m rows: the register leaf for tall panels, the cluster leaf
// where a cluster's shared memory holds the rows (its width, blocks, rows and shared memory),
// the cooperative-grid leaf elsewhere; the device limits and the tuning those choices read.
#include <algorithm>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "instantiate.hpp"

namespace mm::cuda::lu {

namespace {

constexpr int kMostBlocks = kClusterMostBlocks;
// The rows a cluster block aims at and takes at most by default (LuTuning::cluster_rows,
// cluster_max_rows): ClusterLeaf's.
constexpr int kTargetRows = ClusterLeaf{}.target_rows;
constexpr int kMaxRows = ClusterLeaf{}.max_rows;
// The fewest rows of a leaf on the register leaf by default (LuTuning::reg_rows). On the H200,
// against cuSOLVER's getrf at n = 2048 / 4096 / 8192 / 16384, one run (2e0dfa0's cluster leaves,
// 64 rows a block): from 1025 rows 0.85 / 0.92 / 1.02 / 1.16, from 1537 0.83 / 0.91 / 1.02 /
// 1.16, from 2049 0.81 / 0.90 / 1.01 / 1.16; from 3073 0.86 at 4096
// (bench/results/issue16_eleventh_pass_2026-11-28_c845816.md). With 128 rows a block (846f98b):
// every leaf on registers 0.72 at 2048 against 0.75; from 4097 rows 0.76 at 4096.
constexpr int kRegRows = LuTuning::kRegRows;

// The register leaf's plan for a leaf of M rows: width 0 below LIMITS.reg_rows or where no
// cluster holds the rows (512 threads a block, 256 bytes of rows a thread).
template <class T>
ClusterPlan reg_leaf_plan(const ClusterLeaf& l, Index m) {
  if (l.reg_rows <= 0 || m < l.reg_rows || l.max_blocks == 0) return {};
  ClusterPlan plan;
  const auto fit = [&](int width) {
    const int rows = reg_leaf_rows<T>(width);
    if (plan.width || rows < 1) return;
    const Index blocks = (m + rows - 1) / rows;
    if (blocks > l.max_blocks) return;
    plan.width = width;
    plan.blocks = static_cast<int>(blocks);
    plan.rows = rows;
    plan.reg = true;
    plan.timed = l.timed;  // --profile=2: the register leaf's clock
    plan.smem = reg_leaf_smem<T>(width, plan.blocks);
  };
  // Widest first: a narrower leaf costs the recursion another TRSM and GEMM level.
  fit(32);
  fit(16);
  fit(8);
  fit(4);  // double from 32769 rows on 16 blocks (up to 65536)
  return plan;
}

}  // namespace

template <class T>
LeafScratch<T> leaf_prepare(Index n, const LuTuning& tuning, bool timed) {
  LeafScratch<T> s;
  grid_leaf_prepare<T>(n, s);
  s.mode = tuning.leaf == LuTuning::Leaf::grid ? LeafMode::grid : LeafMode::cluster;
  if (s.mode == LeafMode::cluster) s.cluster = cluster_prepare<T>(tuning, timed);
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
                 unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st, bool pdl) {
  if (scratch.mode == LeafMode::cluster) {
    ClusterPlan plan = cluster_plan<T>(scratch.cluster, m);
    if (plan.width >= w) {
      plan.pdl = pdl;
      cluster_leaf_factor(plan, mat, lda, g0, m, w, pc0, pc1, ipiv, info, st);
      return;
    }
  }
  grid_leaf_factor(mat, lda, g0, m, w, pc0, pc1, ipiv, info, scratch, st);
}

template <class T>
ClusterLeaf cluster_prepare(const LuTuning& t, bool timed) {
  int dev = 0, optin = 0, cc = 0;
  MM_CUDA(cudaGetDevice(&dev));
  MM_CUDA(cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, dev));
  MM_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  ClusterLeaf l;
  l.target_rows = t.cluster_rows > 0 ? t.cluster_rows : kTargetRows;
  l.max_rows = t.cluster_max_rows > 0 ? t.cluster_max_rows : kMaxRows;
  l.push = t.exchange == LuTuning::Exchange::push;
  l.timed = timed;
  if (cc < 9) return l;  // no clusters before sm_90: every leaf on the grid
  l.smem = static_cast<std::size_t>(optin);
  if (t.leaf_smem > 0) l.smem = std::min(l.smem, static_cast<std::size_t>(t.leaf_smem));
  l.reg_rows = t.reg_rows < 0 ? kRegRows : t.reg_rows;
  // The attributes are the kernels', set once to the device's limit.
  cluster_leaf_prepare<T>(static_cast<std::size_t>(optin));
  // The largest power-of-two cluster of full-size blocks the device can schedule at all.
  const int most = t.cluster > 0 ? std::min(kMostBlocks, t.cluster) : kMostBlocks;
  for (int b = kMostBlocks; b >= 1; b /= 2) {
    if (b <= most && cluster_leaf_schedules<T>(b, l.smem)) {
      l.max_blocks = b;
      break;
    }
  }
  // The register leaf where its clusters of that size schedule too.
  if (l.max_blocks == 0 || !reg_leaf_prepare<T>(l.max_blocks)) l.reg_rows = 0;
  return l;
}

template <class T>
ClusterPlan cluster_plan(const ClusterLeaf& l, Index m) {
  if (l.max_blocks == 0 || m <= 0) return {};
  if (const ClusterPlan r = reg_leaf_plan<T>(l, m); r.width) return r;
  const auto fit = [&](int width) -> ClusterPlan {
    const auto bytes = [&](int rows, int blocks) {
      return cluster_leaf_smem<T>(width, rows, blocks);
    };
    int b = 1;
    const auto rows = [&](int blocks) { return static_cast<int>((m + blocks - 1) / blocks); };
    while (b < l.max_blocks &&
           (static_cast<Index>(b) * l.target_rows < m || bytes(rows(b), b) > l.smem))
      b *= 2;
    if (bytes(rows(b), b) > l.smem || rows(b) > l.max_rows) return {};
    return {width, b, rows(b), bytes(rows(b), b), l.push, l.timed};
  };
  // Widest first: a narrower leaf costs the recursion another TRSM and GEMM level.
  if (auto p = fit(32); p.width) return p;
  if (auto p = fit(16); p.width) return p;
  return fit(8);
}

#define MM_LU_LEAF_PLAN(T)                                                                    \
  template LeafScratch<T> leaf_prepare<T>(Index, const LuTuning&, bool);                      \
  template int leaf_width<T>(const LeafScratch<T>&, Index);                                   \
  template void leaf_factor<T>(T*, Index, int, int, int, int, int, int*, unsigned long long*, \
                               LeafScratch<T>&, cudaStream_t, bool);                          \
  template ClusterLeaf cluster_prepare<T>(const LuTuning&, bool);                             \
  template ClusterPlan cluster_plan<T>(const ClusterLeaf&, Index);
MM_FOR_VALUE_TYPES(MM_LU_LEAF_PLAN)

}  // namespace mm::cuda::lu

namespace mm {

template <class T>
LuLeafPlan lu_cuda_leaf_plan(std::int64_t m, int max_blocks, std::size_t smem, int target_rows,
                             int max_rows, int reg_rows) {
  cuda::lu::ClusterLeaf l{max_blocks, smem, target_rows, max_rows};
  l.reg_rows = reg_rows;
  const cuda::lu::ClusterPlan p = cuda::lu::cluster_plan<T>(l, m);
  return {p.width, p.blocks, p.rows, p.smem, p.reg};
}

#define MM_LU_CUDA_LEAF_PLAN(T) \
  template LuLeafPlan lu_cuda_leaf_plan<T>(std::int64_t, int, std::size_t, int, int, int);
MM_FOR_VALUE_TYPES(MM_LU_CUDA_LEAF_PLAN)

}  // namespace mm
