// Device building blocks of the CUDA LU (defined in kernels/cuda/lu_kernels.cu): the
// cooperative panel leaf, pivot sequences applied as row gathers and cuda-hybrid's per-column
// kernels. Every matrix is row-major; every launch is on stream ST.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/cuda_util.cuh"
#include "mm/error.hpp"

namespace mm::cuda::lu {

using Index = std::int64_t;

// A leaf's columns are a warp's lanes.
constexpr int kLeafWidth = 32;
// The most pivots one pivot_pairs call takes (the widest panel of cuda-blocked).
constexpr int kMaxPivots = 256;
// INFO's value while no exact zero pivot was met (the leaves atomicMin their column into it).
constexpr unsigned long long kNoZeroPivot = ~0ull;

// Where the panel leaves run (environment MM_LU_LEAF, read when an engine is made): "cluster"
// (the default) on one thread-block cluster wherever the leaf's rows fit in the cluster's shared
// memory, on the cooperative grid elsewhere; "grid": always on the cooperative grid.
enum class LeafMode { cluster, grid };

// What the cluster leaf may use on this device: the most blocks of a cluster (a power of two,
// 16 where the device schedules non-portable clusters, 0 where clusters are off), the shared
// memory per block, the rows per block it aims at and the most it takes (beyond, the grid leaf's
// many blocks update faster than a cluster's 16). Environment overrides, for tuning and tests:
// MM_LU_CLUSTER (most blocks), MM_LU_LEAF_SMEM (bytes per block, to force narrower leaves and
// the grid fallback at small n), MM_LU_CLUSTER_ROWS (rows per block aimed at),
// MM_LU_CLUSTER_MAX_ROWS (rows per block at most).
struct ClusterLeaf {
  int max_blocks = 0;
  std::size_t smem = 0;
  int target_rows = 128;
  int max_rows = 256;
  // How the blocks exchange each column's pivot candidates (MM_LU_CLUSTER_XCHG): pushed into
  // every block's shared memory by st.async and awaited on a local mbarrier ("push", the
  // default), or published locally and read remotely after a cluster barrier ("sync").
  bool push = true;
  bool timed = false;  // MM_LU_PROFILE=2: the push leaf's phases timed (cluster_leaf_clock_report)
  // Leaves of at least this many rows hold them in registers (lu_reg_leaf.cu) where a cluster
  // can (MM_LU_REG_ROWS; 0: never).
  int reg_rows = 0;
};

// One cluster leaf launch: WIDTH columns (32, 16 or 8) over BLOCKS blocks of ROWS rows each
// and SMEM bytes of shared memory; WIDTH 0 where no cluster holds the rows.
struct ClusterPlan {
  int width = 0, blocks = 0, rows = 0;
  std::size_t smem = 0;
  bool push = true;
  bool timed = false;  // MM_LU_PROFILE=2: the push leaf's phases timed (cluster_leaf_clock_report)
  bool reg = false;    // the rows in registers (lu_reg_leaf.cu), ROWS a block
};

// Global scratch through which the leaf's blocks exchange pivot candidates: two sets, by the
// parity of the column, so that writing the next column's never races with reading this one's.
template <class T>
struct LeafScratch {
  Buffer<double> mag;  // [2][max_blocks]
  Buffer<int> idx;     // [2][max_blocks]
  Buffer<T> rows;      // [2][max_blocks][kLeafWidth]: each block's candidate row
  Buffer<T> rowj;      // [2][kLeafWidth]: the row about to be swapped away
  int max_blocks = 0;  // blocks owning rows (the grid has one more)
  LeafMode mode = LeafMode::cluster;
  ClusterLeaf cluster;
};

// Sizes the scratch and raises the leaf kernel's shared-memory limit for panels of up to N
// rows. Throws DeviceError where one block's share of the rows cannot fit in shared memory.
template <class T>
LeafScratch<T> leaf_prepare(Index n);

// The widest leaf the panel recursion should split to for M rows: the cluster plan's width
// where a cluster holds them, else kLeafWidth (the grid leaf).
template <class T>
int leaf_width(const LeafScratch<T>& scratch, Index m);

// The cluster leaf's limits on this device (reads the environment; defined in lu_cluster.cu).
template <class T>
ClusterLeaf cluster_prepare();
// The plan for a leaf of M rows: the widest width whose rows fit, over the fewest blocks that
// hold them and reach the aimed-at rows per block; width 0 where none fits.
template <class T>
ClusterPlan cluster_plan(const ClusterLeaf& limits, Index m);
// leaf_factor's contract, on one cluster of PLAN (W <= PLAN.width): the rows in the blocks'
// shared memory, a cluster barrier per column, pivot candidates read across the cluster's
// distributed shared memory. PC1 - PC0 <= kMaxPivots.
template <class T>
void cluster_leaf_factor(const ClusterPlan& plan, T* mat, Index lda, int g0, int m, int w, int pc0,
                         int pc1, int* ipiv, unsigned long long* info, cudaStream_t st);

// MM_LU_PROFILE=2: prints to stderr the push leaf's time per column by phase since the last
// report (nothing where no timed leaf ran).
void cluster_leaf_clock_report();

// Factors with partial pivoting the M x W leaf whose top-left element is (G0, G0) of MAT
// (leading dimension LDA), W <= kLeafWidth, W <= M. IPIV[G0 + j] becomes the absolute 0-based
// row swapped with row G0 + j; each swap is applied at once to the columns [PC0, PC1) of the
// enclosing panel outside the leaf's own. The first exact zero pivot's column is
// atomicMin'ed into INFO; the factorization then goes on (its values are not used).
// W <= leaf_width(SCRATCH, M). On a cluster where SCRATCH's mode and the plan allow, else one
// cooperative launch with a grid-wide barrier per column; the rows stay in shared memory.
template <class T>
void leaf_factor(T* mat, Index lda, int g0, int m, int w, int pc0, int pc1, int* ipiv,
                 unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st);

// The row moves equal to LAPACK's sequential swaps IPIV[K0..K1) (absolute rows, each
// IPIV[k] >= k), K1 - K0 <= kMaxPivots: PAIRS gets 2 (K1 - K0) slots of (destination, source),
// destination -1 where nothing moves. One block.
void pivot_pairs(const int* ipiv, int k0, int k1, int* pairs, cudaStream_t st);

// Moves the rows of PAIRS (SLOTS slots) within columns [C0, C1) of MAT: every source read
// before any destination is written, so the moves act as one permutation.
template <class T>
void gather_rows(T* mat, Index lda, Index c0, Index c1, const int* pairs, int slots,
                 cudaStream_t st);

// Step K of cuda-hybrid on the n x n matrix A: the pivot search (one block's reduction,
// IPIV[K] = its row, INFO as in leaf_factor), the swap of rows K and IPIV[K], the scale of
// column K below the diagonal, and the rank-1 update of the trailing matrix: a kernel each.
template <class T>
void hybrid_step(T* a, Index n, Index k, int* ipiv, unsigned long long* info, cudaStream_t st);

}  // namespace mm::cuda::lu
