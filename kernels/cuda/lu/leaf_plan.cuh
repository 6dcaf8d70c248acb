// Which leaf factors a panel of m rows (leaf_plan.cu), and what each leaf offers that choice:
// the grid leaf (grid_leaf.cu), the cluster leaf (cluster_leaf.cu), the register leaf
// (register_leaf.cu). Every matrix is row-major; every launch is on stream ST.
#pragma once

#include <cstddef>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/types.cuh"
#include "lu.hpp"

namespace mm::cuda::lu {

constexpr int kClusterMostBlocks = 16;  // the non-portable cluster limit of sm_90

// Where the panel leaves run (LuTuning::leaf, taken when an engine is made): "cluster" (the
// default) on one thread-block cluster wherever the leaf's rows fit in the cluster's shared
// memory, on the cooperative grid elsewhere; "grid": always on the cooperative grid.
enum class LeafMode { cluster, grid };

// What the cluster leaf may use on this device: the most blocks of a cluster (a power of two,
// 16 where the device schedules non-portable clusters, 0 where clusters are off), the shared
// memory per block, the rows per block it aims at and the most it takes (beyond, the grid leaf's
// many blocks update faster than a cluster's 16). LuTuning's keys set them, for tuning and
// tests: cluster (most blocks), leaf_smem (bytes per block, to force narrower leaves and the
// grid fallback at small n), cluster_rows (rows per block aimed at), cluster_max_rows (rows per
// block at most).
struct ClusterLeaf {
  int max_blocks = 0;
  std::size_t smem = 0;
  // 64: leaves of up to 1024 rows on 16 blocks rather than 8 (a column's update takes ~0.6 us
  // plus ~4 ns a row of a block). Against cuSOLVER's getrf, in one call each (double, n =
  // 4096 / 8192 / 16384): H100 0.92 / 1.01 / 1.17 against 0.89 / 1.00 / 1.17 at 128; H200 0.90 /
  // 1.01 / 1.17 against 0.87 / 0.99 / 1.17, and 1.04 either way at 32768
  // (bench/results/issue16_fifth_pass_2026-11-25_6e43d85.md).
  int target_rows = LuTuning::kClusterRows;
  int max_rows = LuTuning::kClusterMaxRows;
  // How the blocks exchange each column's pivot candidates (LuTuning::exchange): pushed into
  // every block's shared memory by st.async and awaited on a local mbarrier ("push", the
  // default), or published locally and read remotely after a cluster barrier ("sync").
  bool push = true;
  bool timed = false;  // --profile=2: the push leaf's phases timed (cluster_leaf_clock_take)
  // Leaves of at least this many rows hold them in registers (register_leaf.cu) where a cluster
  // can (LuTuning::reg_rows; 0: never).
  int reg_rows = 0;
};

// One cluster leaf launch: WIDTH columns (32, 16 or 8) over BLOCKS blocks of ROWS rows each
// and SMEM bytes of shared memory; WIDTH 0 where no cluster holds the rows.
struct ClusterPlan {
  int width = 0, blocks = 0, rows = 0;
  std::size_t smem = 0;
  bool push = true;
  bool timed = false;  // --profile=2: the push leaf's phases timed (cluster_leaf_clock_take)
  bool reg = false;    // the rows in registers (register_leaf.cu), ROWS a block
  bool pdl = false;    // launched as a programmatic dependent of the stream's kernel before
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

// ---- the plan (leaf_plan.cu) ---------------------------------------------------------------

// Sizes the scratch and raises the leaf kernel's shared-memory limit for panels of up to N
// rows; the leaves as TUNING asks (its leaf and cluster keys), the push leaf's phases timed
// where TIMED. Throws DeviceError where one block's share of the rows cannot fit in shared
// memory.
template <class T>
LeafScratch<T> leaf_prepare(Index n, const LuTuning& tuning, bool timed);

// The widest leaf the panel recursion should split to for M rows: the cluster plan's width
// where a cluster holds them, else kLeafWidth (the grid leaf).
template <class T>
int leaf_width(const LeafScratch<T>& scratch, Index m);

// Factors with partial pivoting the M x W leaf whose top-left element is (G0, G0) of MAT
// (leading dimension LDA), W <= kLeafWidth, W <= M. IPIV[G0 + j] becomes the absolute 0-based
// row swapped with row G0 + j; each swap is applied at once to the columns [PC0, PC1) of the
// enclosing panel outside the leaf's own. The first exact zero pivot's column is
// atomicMin'ed into INFO; the factorization then goes on (its values are not used).
// W <= leaf_width(SCRATCH, M). On a cluster where SCRATCH's mode and the plan allow (as a
// programmatic dependent of ST's kernel before where PDL), else one cooperative launch with a
// grid-wide barrier per column; the rows stay in shared memory.
template <class T>
void leaf_factor(T* mat, Index lda, int g0, int m, int w, int pc0, int pc1, int* ipiv,
                 unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st, bool pdl);

// The cluster leaf's limits on this device, TUNING's cluster keys resolved (its defaults: the
// device's limits and the measured ones below); the push leaf timed where TIMED.
template <class T>
ClusterLeaf cluster_prepare(const LuTuning& tuning, bool timed);
// The plan for a leaf of M rows: the register leaf's where LIMITS.reg_rows and a cluster allow,
// else the widest width whose rows fit in shared memory, over the fewest blocks that hold them
// and reach the aimed-at rows per block; width 0 where none fits.
template <class T>
ClusterPlan cluster_plan(const ClusterLeaf& limits, Index m);

// ---- the grid leaf (grid_leaf.cu) ----------------------------------------------------------

// leaf_prepare's part for the grid leaf: SCRATCH's blocks and buffers, the kernel's
// shared-memory limit raised for panels of up to N rows (throws DeviceError as leaf_prepare).
template <class T>
void grid_leaf_prepare(Index n, LeafScratch<T>& scratch);
// leaf_factor's contract as one cooperative launch, a grid-wide barrier per column.
template <class T>
void grid_leaf_factor(T* mat, Index lda, int g0, int m, int w, int pc0, int pc1, int* ipiv,
                      unsigned long long* info, LeafScratch<T>& scratch, cudaStream_t st);

// ---- the cluster leaf, rows in shared memory (cluster_leaf.cu) -----------------------------

// Its kernels' attributes set once, to SMEM bytes of shared memory and non-portable clusters.
template <class T>
void cluster_leaf_prepare(std::size_t smem);
// Whether this device can run a cluster of BLOCKS blocks of it with SMEM bytes each at all.
template <class T>
bool cluster_leaf_schedules(int blocks, std::size_t smem);
// Its shared memory per block at WIDTH (32, 16 or 8) for ROWS rows a block and BLOCKS blocks.
template <class T>
std::size_t cluster_leaf_smem(int width, int rows, int blocks);
// leaf_factor's contract, on one cluster of PLAN (W <= PLAN.width): the rows in the blocks'
// shared memory (or in registers where PLAN.reg), pivot candidates pushed into every block's
// shared memory (PLAN.push) or read across the cluster after a cluster barrier.
// PC1 - PC0 <= kMaxPivots.
template <class T>
void cluster_leaf_factor(const ClusterPlan& plan, T* mat, Index lda, int g0, int m, int w, int pc0,
                         int pc1, int* ipiv, unsigned long long* info, cudaStream_t st);

// ---- the register leaf (register_leaf.cu) --------------------------------------------------

// Its kernels' attributes set once, and whether clusters of BLOCKS blocks of it can run on
// this device (false for complex T: real types only).
template <class T>
bool reg_leaf_prepare(int blocks);
// Rows a block holds at WIDTH (32, 16, 8 or 4): 512 threads of 256 bytes of rows each; 0 where
// the width does not fit (complex T).
template <class T>
int reg_leaf_rows(int width);
// Its shared memory per block at WIDTH for a cluster of BLOCKS blocks.
template <class T>
std::size_t reg_leaf_smem(int width, int blocks);

}  // namespace mm::cuda::lu
