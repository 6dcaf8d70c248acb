// The pivot exchange the two cluster leaves share (cluster_leaf.cu: rows in shared memory;
// register_leaf.cu: rows in registers): the launch arguments, the pushed pivot candidate, the
// pivot step's bookkeeping and swaps outside the leaf, and the block size they rest on.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/lu/cluster_ptx.cuh"
#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/pivot_search.cuh"

namespace mm::cuda::lu::detail {

// Both leaves' block: 16 warps, one a block of the largest cluster (the Pusher's warp b sends to
// block b), each thread swapping at most one column outside the leaf (outside_column;
// cluster_leaf_factor refuses a wider panel). The shared-memory leaf holds up to ~900 rows of
// 32 doubles a block, and each column's update walks them a warp-row at a time: 16 warps keep
// shared memory busy without a register cap of 64. The register leaf runs one block a
// multiprocessor: up to 128 registers a thread, 64 of them the rows.
constexpr int kLeafThreads = 512;
constexpr int kLeafWarps = kLeafThreads / 32;
static_assert(kLeafWarps >= kClusterMostBlocks, "a warp sends to each block");

template <class D>
struct ClusterArgs {
  D* mat;  // row 0, column 0 of the matrix
  Index lda;
  int g0, m, w;  // the leaf: m rows and w columns from (g0, g0)
  int rows;      // rows per block
  int pc0, pc1;  // the enclosing panel's columns
  int* ipiv;
  unsigned long long* info;
  bool timed;  // --profile=2: the register leaf's clock (the push leaf's: a template argument)
};

// A block's pivot candidate as pushed to every block of the cluster: its magnitude, its row
// (leaf-relative, -1 for none) and the row's W values. 16-byte aligned pieces throughout.
template <class D, int W>
struct Candidate {
  double mag;
  long long idx;
  D row[W];
};

// A block alone (BLOCKS == 1) exchanges nothing: it stores into its own shared memory.
__device__ __forceinline__ bool block_alone(int blocks) {
  return blocks == 1;
}

// The push exchange's sending side, fixed for a leaf: warp b of every block sends to block b,
// into this block's Candidate slot there (CANDS[2][blocks]), its row-j slot (ROWJ[2][W]) and
// against its mbarrier (MBAR[2]), of the column's parity. st.async needs a cluster of at least
// two blocks (compute-sanitizer's memcheck: "Cluster needs to have at least 2 blocks"), so a
// block alone (--tune cluster=1, short leaves) stores into its own shared memory instead, with
// no bytes for its mbarrier to await (push_bytes): the kernel's block barrier between the
// pushes and the wait then orders them (push_leaf_kernel has one; reg_leaf_kernel adds it for a
// block alone).
template <class D, int W>
struct Pusher {
  bool sender;  // this lane sends: a lane below W of warps below the blocks
  int blocks;
  unsigned cand, rowj, mbar;
  Candidate<D, W>* own_cands;  // a block alone: its own slots
  D* own_rowj;
  __device__ Pusher(Candidate<D, W>* cands, D* rowj_at, unsigned long long* mbar_at, int rank,
                    int blocks_)
      : blocks(blocks_), own_cands(cands), own_rowj(rowj_at) {
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    sender = warp < blocks && lane < W;
    const unsigned dst = static_cast<unsigned>(min(warp, blocks - 1));
    cand = at_rank(smem_u32(cands + rank), dst);
    rowj = at_rank(smem_u32(rowj_at), dst);
    mbar = at_rank(smem_u32(mbar_at), dst);
  }
  __device__ bool alone() const { return block_alone(blocks); }
  // The candidate (MAG, IDX) with its row, VALUE(lane) each sending lane's, and where WITH_ROWJ
  // row j's ROWJ_VALUE(lane); the values are read by sending lanes only.
  template <class Value, class RowJ>
  __device__ void send(int par, double mag, int idx, Value value, bool with_rowj,
                       RowJ rowj_value) const {
    if (!sender) return;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    if (alone()) {
      Candidate<D, W>& mine = own_cands[par];
      mine.row[lane] = value(lane);
      if (lane == 0) mine.mag = mag, mine.idx = idx;
      if (with_rowj) own_rowj[par * W + lane] = rowj_value(lane);
      return;
    }
    const unsigned mb = mbar + par * sizeof(unsigned long long);
    using Cand = Candidate<D, W>;
    constexpr unsigned kRowAt = offsetof(Cand, row);
    const unsigned slot = cand + par * blocks * sizeof(Cand);
    push(slot + kRowAt + lane * sizeof(D), value(lane), mb);
    if (lane == 0) {
      const double2 head{mag, __longlong_as_double(static_cast<long long>(idx))};
      push(slot, head, mb);
    }
    if (with_rowj) push(rowj + (par * W + lane) * sizeof(D), rowj_value(lane), mb);
  }
};

// The bytes a block's mbarrier awaits a column: every block's candidate and row j, pushed by
// st.async; none for a block alone (its own stores, Pusher).
template <class D, int W>
__device__ __forceinline__ unsigned push_bytes(int blocks) {
  return block_alone(blocks)
             ? 0u
             : static_cast<unsigned>(blocks * sizeof(Candidate<D, W>) + W * sizeof(D));
}

// The pivot row (leaf-relative) among the BLOCKS candidates CP received, in every lane.
template <class D, int W>
__device__ __forceinline__ int received_pivot(const Candidate<D, W>* cp, int blocks) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  double mag = 0;
  int idx = -1;
  if (lane < blocks) mag = cp[lane].mag, idx = static_cast<int>(cp[lane].idx);
  warp_argmax_all<kClusterMostBlocks>(mag, idx);
  return idx;
}

// The one column of the enclosing panel outside the leaf that thread T of block RANK swaps
// (-1: none; the host allows at most a block's threads of them).
template <class D>
__device__ __forceinline__ int outside_column(const ClusterArgs<D>& p, int t, int rank,
                                              int blocks) {
  const int out = t * blocks + rank;
  if (out >= p.pc1 - p.pc0 - p.w) return -1;
  return p.pc0 + out < p.g0 ? p.pc0 + out : p.pc0 + out + p.w;
}

// Column J's pivot row PR (leaf-relative): recorded by the LEADER thread (IPIV, and INFO
// at an exact zero pivot PIV), and rows J and PR of this thread's column OC of the panel
// outside the leaf (-1: none) loaded now and stored swapped by finish() after the column's
// update, their loads in flight meanwhile.
template <class D>
struct PivotStep {
  D* q1;
  D* q2;
  D o1, o2;
  bool swap;
  __device__ PivotStep(const ClusterArgs<D>& p, int j, int pr, D piv, int oc, bool leader) {
    if (leader) {
      p.ipiv[p.g0 + j] = p.g0 + pr;
      if (piv == D{}) atomicMin(p.info, static_cast<unsigned long long>(p.g0 + j));
    }
    swap = oc >= 0 && pr != j;
    const int col = swap ? oc : 0;
    q1 = p.mat + static_cast<Index>(p.g0 + j) * p.lda + col;
    q2 = p.mat + static_cast<Index>(p.g0 + pr) * p.lda + col;
    if (swap) o1 = *q1, o2 = *q2;
  }
  __device__ void finish() {
    if (swap) *q1 = o2, *q2 = o1;
  }
};

}  // namespace mm::cuda::lu::detail

namespace mm::cuda::lu {

// One launch of the register leaf (register_leaf.cu) on PLAN (PLAN.reg), for
// cluster_leaf_factor.
template <class T>
void reg_leaf_launch(const ClusterPlan& plan, const detail::ClusterArgs<dev_t<T>>& args,
                     cudaStream_t st);

}  // namespace mm::cuda::lu
