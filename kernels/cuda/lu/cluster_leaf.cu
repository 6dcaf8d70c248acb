// The LU panel leaf on one thread-block cluster: the leaf's rows in the blocks' shared memory,
// each column's pivot candidates exchanged through distributed shared memory, either pushed by
// st.async and awaited on a local mbarrier (the default) or read after a cluster barrier; and
// the push leaf's clock64 phases (--profile=2).
#include <cooperative_groups.h>

#include <algorithm>
#include <string>

#include "cuda/lu/cluster_exchange.cuh"
#include "cuda/lu/cluster_launch.cuh"
#include "cuda/lu/cluster_ptx.cuh"
#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/pivot_search.cuh"
#include "cuda/lu/profile.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

namespace cg = cooperative_groups;
using namespace detail;

constexpr int kUnroll = 4;  // rows in flight per lane in the column update

// Dynamic shared memory, for either exchange: the block's rows, then
//   sync: two parities of (candidate row, row j), of the candidate's (magnitude, row) and the
//         block reduction's slots;
//   push: two parities of every block's Candidate and of row j, the block reduction's slots
//         and two mbarriers.
template <class D, int W>
std::size_t sync_extra() {
  return 4 * W * sizeof(D) + (2 + kLeafWarps + 1) * (sizeof(double) + sizeof(int));
}
template <class D, int W>
std::size_t push_extra(int blocks) {
  return 2 * static_cast<std::size_t>(blocks) * sizeof(Candidate<D, W>) + 2 * W * sizeof(D) +
         kLeafWarps * (sizeof(double) + sizeof(int)) + 2 * sizeof(unsigned long long);
}
template <class D, int W>
std::size_t smem_bytes(int rows, int blocks) {
  return static_cast<std::size_t>(rows) * W * sizeof(D) +
         std::max(sync_extra<D, W>(), push_extra<D, W>(blocks));
}

// A block's share of the leaf: rows [R0, R0 + NR) (leaf-relative) in shared memory S, W
// values a row; loaded from and stored back to the matrix, column 0's first candidate, and
// the one column of the enclosing panel outside the leaf this thread swaps (-1: none; the
// host allows at most kLeafThreads of them).
template <class D, int W>
struct BlockRows {
  const ClusterArgs<D>& p;
  D* s;
  int rank, blocks, r0, nr;
  __device__ BlockRows(const ClusterArgs<D>& args, D* shared, int rank_, int blocks_)
      : p(args), s(shared), rank(rank_), blocks(blocks_) {
    r0 = rank * p.rows;
    nr = max(0, min(p.m, r0 + p.rows) - r0);
  }
  __device__ D* at(int r) const { return p.mat + static_cast<Index>(p.g0 + r0 + r) * p.lda + p.g0; }
  __device__ void load() const {
    for (int e = threadIdx.x; e < nr * W; e += kLeafThreads) {
      const int r = e / W, c = e % W;
      s[e] = c < p.w ? at(r)[c] : D{};
    }
  }
  __device__ void store() const {
    for (int e = threadIdx.x; e < nr * W; e += kLeafThreads) {
      const int r = e / W, c = e % W;
      if (c < p.w) at(r)[c] = s[e];
    }
  }
  __device__ void first_candidate(double& mag, int& idx) const {
    for (int r = threadIdx.x; r < nr; r += kLeafThreads) {
      const double v = magnitude(s[r * W]);
      if (better(v, r0 + r, mag, idx)) mag = v, idx = r0 + r;
    }
  }
  __device__ int outside_column() const {
    return detail::outside_column(p, static_cast<int>(threadIdx.x), rank, blocks);
  }
};

// Column J's step on a block's rows R (leaf-relative, R0 <= R < R0 + NR; S holds them, W
// values a row): rows below J scaled by the pivot PIV and updated by the pivot row's value PV
// of this lane's column (LAPACK leaves a zero pivot's column as it is; the search still
// runs), and column J + 1's best candidate among them left in (MAG, IDX). A warp covers
// 32 / W rows at a time, kUnroll of those a lane at once: their loads in flight together.
template <class D, int W>
__device__ __forceinline__ void update_rows(D* s, int j, int w, int r0, int nr, D pv, D piv,
                                            double& mag, int& idx) {
  constexpr int RPW = 32 / W;
  constexpr int kStride = kLeafWarps * RPW;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, sub = lane / W, c = lane % W;
  mag = 0, idx = -1;
  const bool live = piv != D{};
  const D inv = live ? D(1) / piv : D{};
  const bool next = c == j + 1 && c < w;
  for (int base = max(j + 1 - r0, 0) + warp * RPW; base < nr; base += kUnroll * kStride) {
    D v[kUnroll], x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int r = base + u * kStride + sub;
      v[u] = r < nr ? s[r * W + j] : D{};
      x[u] = r < nr && c >= j ? s[r * W + c] : D{};
    }
    __syncwarp();  // the trip count is the warp's; lane j's writes below follow every read
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int r = base + u * kStride + sub;
      if (r >= nr) continue;
      if (live) {
        const D l = v[u] * inv;
        if (c == j)
          s[r * W + j] = l;
        else if (c > j && c < w)
          x[u] -= l * pv, s[r * W + c] = x[u];
      }
      if (next) {
        const double mg = magnitude(x[u]);
        if (better(mg, r0 + r, mag, idx)) mag = mg, idx = r0 + r;
      }
    }
  }
}

// Per column j: each block's best candidate among its rows >= j (found while the previous
// column's update wrote them) and its row go to the block's own shared memory; one cluster
// barrier; every warp reduces the blocks' candidates the same way and reads the pivot row
// remotely; the owners of rows j and pr swap them; each block scales and updates its rows.
// The panel's columns outside the leaf are swapped by one thread each, its loads in flight
// during the update (measured on the H200: 5 % faster than gathers after the leaf). Rows are
// leaf-relative; a warp covers 32 / W rows at a time.
template <class D, int W>
__global__ void __launch_bounds__(kLeafThreads) cluster_leaf_kernel(ClusterArgs<D> p) {
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) unsigned char smem[];
  D* s = reinterpret_cast<D*>(smem);
  D* cand = s + p.rows * W;  // [2][W]
  D* rowj = cand + 2 * W;    // [2][W]
  double* cmag = reinterpret_cast<double*>(rowj + 2 * W);
  double* red_mag = cmag + 2;
  int* cidx = reinterpret_cast<int*>(red_mag + kLeafWarps + 1);
  int* red_idx = cidx + 2;
  pdl_wait();  // the stream's kernel before (pdl=on): finished, its writes visible
  const int t = threadIdx.x, lane = t % 32, c = lane % W;
  const int rank = static_cast<int>(cluster.block_rank());
  const int blocks = static_cast<int>(cluster.num_blocks());
  const BlockRows<D, W> rows(p, s, rank, blocks);
  const int r0 = rows.r0, nr = rows.nr, oc = rows.outside_column();
  rows.load();
  __syncthreads();
  double mag = 0;
  int idx = -1;
  rows.first_candidate(mag, idx);
  for (int j = 0; j < p.w; ++j) {
    const int par = j & 1;
    pdl_trigger_at(j, p.w);
    block_argmax<kLeafThreads>(mag, idx, red_mag, red_idx);
    if (t == 0) cmag[par] = mag, cidx[par] = idx;
    if (t < W) {
      if (idx >= 0) cand[par * W + t] = s[(idx - r0) * W + t];
      if (j >= r0 && j < r0 + nr) rowj[par * W + t] = s[(j - r0) * W + t];
    }
    // Publishes this block's candidate; the other parity's slots are rewritten only after the
    // next barrier, which every block reaches after its reads of this column.
    cluster.sync();
    double bm = 0;
    int bi = -1;
    if (lane < blocks) {
      bm = *cluster.map_shared_rank(cmag + par, lane);
      bi = *cluster.map_shared_rank(cidx + par, lane);
    }
    warp_argmax_all(bm, bi);
    const int pr = bi;  // the pivot row, leaf-relative
    const int bp = pr / p.rows, bj = j / p.rows;
    const D* prow = cluster.map_shared_rank(cand + par * W, bp);
    const D pv = prow[c], piv = prow[j];
    PivotStep<D> step(p, j, pr, piv, oc, rank == 0 && t == 0);
    if (t < W) {
      if (rank == bj) s[(j - r0) * W + t] = prow[t];
      if (pr != j && rank == bp)
        s[(pr - r0) * W + t] = cluster.map_shared_rank(rowj + par * W, bj)[t];
    }
    __syncthreads();
    // Scale and update rows > j; column j + 1's candidates on the way (LAPACK leaves the
    // column as it is after a zero pivot; the search still runs).
    update_rows<D, W>(s, j, p.w, r0, nr, pv, piv, mag, idx);
    step.finish();
    __syncthreads();
  }
  rows.store();
  cluster.sync();  // no block leaves while another may still read its shared memory
}

// --profile=2: where the push leaf's time goes, read by clock64 on block 0's thread 0
// and summed over the leaves into g_leaf_clock (cycles per phase, then columns, leaves).
enum LeafPhase { kPrologue, kArgmax, kPush, kWait, kPivot, kUpdate, kOutside, kEpilogue, kPhases };
__device__ unsigned long long g_leaf_clock[kPhases + 2];

template <bool On>
struct LeafClock {
  __device__ explicit LeafClock(bool) {}
  __device__ void lap(int) {}
  __device__ void finish(int) {}
};
template <>
struct LeafClock<true> {
  bool on;
  long long last;
  unsigned long long sum[kPhases];
  __device__ explicit LeafClock(bool who) {
    on = who;
    last = clock64();
    for (auto& x : sum) x = 0;
  }
  __device__ void lap(int phase) {
    if (!on) return;
    const long long now = clock64();
    sum[phase] += static_cast<unsigned long long>(now - last);
    last = now;
  }
  __device__ void finish(int columns) {
    if (!on) return;
    for (int i = 0; i < kPhases; ++i) atomicAdd(&g_leaf_clock[i], sum[i]);
    atomicAdd(&g_leaf_clock[kPhases], static_cast<unsigned long long>(columns));
    atomicAdd(&g_leaf_clock[kPhases + 1], 1ull);
  }
};

// The sync kernel's contract with no barrier across the cluster inside the column loop. Per
// column j: each block's best candidate (its warps' reduced through one block barrier) is
// pushed, warp b to block b, into every block's Candidate slot of this parity, and the owner of
// row j pushes that row too; each block waits on its own mbarrier for all those bytes, reduces
// the candidates locally, and swaps, scales and updates its rows. A parity's slots are written
// again two columns later, only by a block that has received this block's next candidate,
// which this block sends after its last read of them; so the block barrier at a column's start ends
// every hazard across blocks, and no release of global writes (the outside swaps) waits in a
// cluster barrier. Within a block, a barrier between the pushes and the wait keeps the pivot
// step's row writes after every warp's reads of the rows it pushes.
template <class D, int W, bool Timed>
__global__ void __launch_bounds__(kLeafThreads) push_leaf_kernel(ClusterArgs<D> p) {
  using Cand = Candidate<D, W>;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) unsigned char smem[];
  const int blocks = static_cast<int>(cluster.num_blocks());
  D* s = reinterpret_cast<D*>(smem);
  Cand* cands = reinterpret_cast<Cand*>(s + p.rows * W);  // [2][blocks]
  D* rowj = reinterpret_cast<D*>(cands + 2 * blocks);     // [2][W]
  double* red_mag = reinterpret_cast<double*>(rowj + 2 * W);
  int* red_idx = reinterpret_cast<int*>(red_mag + kLeafWarps);
  unsigned long long* mbar = reinterpret_cast<unsigned long long*>(red_idx + kLeafWarps);
  pdl_wait();  // the stream's kernel before (pdl=on): finished, its writes visible
  const int t = threadIdx.x, lane = t % 32, warp = t / 32, c = lane % W;
  const int rank = static_cast<int>(cluster.block_rank());
  const unsigned bytes = push_bytes<D, W>(blocks);
  LeafClock<Timed> clk(rank == 0 && t == 0);
  if (t == 0) init_push_barriers(mbar);
  const BlockRows<D, W> rows(p, s, rank, blocks);
  const int r0 = rows.r0, nr = rows.nr, oc = rows.outside_column();
  rows.load();
  cluster.sync();  // every block's mbarriers initialised before the first push; rows loaded
  clk.lap(kPrologue);
  double mag = 0;
  int idx = -1;
  rows.first_candidate(mag, idx);
  const Pusher<D, W> pusher(cands, rowj, mbar, rank, blocks);
  for (int j = 0; j < p.w; ++j) {
    const int par = j & 1;
    pdl_trigger_at(j, p.w);
    // The warp's best candidate into its slot: from every lane for column 0; after that only
    // the lanes of column j (one per row the warp covers) searched, so only they reduce.
    if (j == 0) {
      warp_argmax(mag, idx);
      if (lane == 0) red_mag[warp] = mag, red_idx[warp] = idx;
    } else {
#pragma unroll
      for (int o = W; o < 32; o *= 2) {
        const double m2 = __shfl_xor_sync(0xffffffffu, mag, o);
        const int i2 = __shfl_xor_sync(0xffffffffu, idx, o);
        if (better(m2, i2, mag, idx)) mag = m2, idx = i2;
      }
      if (lane == j) red_mag[warp] = mag, red_idx[warp] = idx;
    }
    if (t == 0) sm90::mbar_arrive_expect_tx(smem_u32(mbar + par), bytes);
    __syncthreads();  // the slots, and every row's update of column j - 1
    clk.lap(kArgmax);
    mag = lane < kLeafWarps ? red_mag[lane] : 0.0;
    idx = lane < kLeafWarps ? red_idx[lane] : -1;
    warp_argmax_all<kLeafWarps>(mag, idx);
    pusher.send(
        par, mag, idx, [&](int l) { return idx >= 0 ? s[(idx - r0) * W + l] : D{}; },
        j >= r0 && j < r0 + nr, [&](int l) { return s[(j - r0) * W + l]; });
    // Every sender warp has read its rows of s before rows j and pr are rewritten below: this
    // block's own mbarrier does not wait for what it sends to the others, so without this a warp
    // past the wait could overwrite a row another warp of the block had yet to push (seen as a
    // rare wrong factorization in single precision). Before the wait, it overlaps the exchange.
    __syncthreads();
    clk.lap(kPush);
    sm90::mbar_wait<sm90::Scope::cluster>(smem_u32(mbar + par), static_cast<unsigned>(j >> 1) & 1u);
    clk.lap(kWait);
    const Cand* cp = cands + par * blocks;
    const int pr = received_pivot(cp, blocks);  // the pivot row, leaf-relative
    const int bp = pr / p.rows, bj = j / p.rows;
    const D* prow = cp[bp].row;
    const D pv = prow[c], piv = prow[j];
    PivotStep<D> step(p, j, pr, piv, oc, rank == 0 && t == 0);
    if (t < W) {
      if (rank == bj) s[(j - r0) * W + t] = prow[t];
      if (pr != j && rank == bp) s[(pr - r0) * W + t] = rowj[par * W + t];
    }
    __syncthreads();  // rows j and pr in place before the update reads them
    clk.lap(kPivot);
    update_rows<D, W>(s, j, p.w, r0, nr, pv, piv, mag, idx);
    clk.lap(kUpdate);
    step.finish();
    clk.lap(kOutside);
  }
  __syncthreads();
  rows.store();
  cluster.sync();  // no block leaves while a push into it may be in flight
  clk.lap(kEpilogue);
  clk.finish(p.w);
}

template <class D, int W>
void set_attributes(std::size_t smem) {
  for (const auto k :
       {cluster_leaf_kernel<D, W>, push_leaf_kernel<D, W, false>, push_leaf_kernel<D, W, true>})
    allow_clusters(k, smem);
}

template <class D, int W>
void launch(const ClusterPlan& plan, const ClusterArgs<D>& args, cudaStream_t st) {
  cudaLaunchAttribute attr[2]{};
  cudaLaunchConfig_t cfg = cluster_config(plan.blocks, kLeafThreads, plan.smem, st, attr);
  with_pdl(cfg, attr + 1, plan.pdl);
  if (plan.push && plan.timed)
    MM_CUDA(cudaLaunchKernelEx(&cfg, push_leaf_kernel<D, W, true>, args));
  else if (plan.push)
    MM_CUDA(cudaLaunchKernelEx(&cfg, push_leaf_kernel<D, W, false>, args));
  else
    MM_CUDA(cudaLaunchKernelEx(&cfg, cluster_leaf_kernel<D, W>, args));
}

}  // namespace

template <class T>
void cluster_leaf_prepare(std::size_t smem) {
  using D = dev_t<T>;
  static bool set = false;  // the attributes are the kernels', set once to the device's limit
  if (!set) {
    set_attributes<D, 32>(smem);
    set_attributes<D, 16>(smem);
    set_attributes<D, 8>(smem);
    set = true;
  }
}

template <class T>
bool cluster_leaf_schedules(int blocks, std::size_t smem) {
  return cluster_schedules(cluster_leaf_kernel<dev_t<T>, 32>, blocks, kLeafThreads, smem);
}

template <class T>
std::size_t cluster_leaf_smem(int width, int rows, int blocks) {
  std::size_t bytes = 0;
  with_width(width, [&](auto w) { bytes = smem_bytes<dev_t<T>, w.value>(rows, blocks); });
  return bytes;
}

template <class T>
void cluster_leaf_factor(const ClusterPlan& plan, T* mat, Index lda, int g0, int m, int w, int pc0,
                         int pc1, int* ipiv, unsigned long long* info, cudaStream_t st) {
  using D = dev_t<T>;
  if (w > plan.width || pc1 - pc0 > kLeafThreads)
    throw DeviceError("cluster leaf: " + std::to_string(w) + " columns in a panel of " +
                      std::to_string(pc1 - pc0) + " beyond its plan");
  const ClusterArgs<D> args{
      reinterpret_cast<D*>(mat), lda, g0, m, w, plan.rows, pc0, pc1, ipiv, info, plan.timed};
  if (plan.reg)
    reg_leaf_launch<T>(plan, args, st);
  else
    with_width(plan.width, [&](auto v) { launch<D, v.value>(plan, args, st); });
}

LeafClockCounts cluster_leaf_clock_take() {
  static_assert(kPhases == LeafClockCounts::kPhases, "profile.cuh names each phase");
  return take_clock<kPhases>(g_leaf_clock);
}

#define MM_LU_CLUSTER_LEAF(T)                                                                  \
  template void cluster_leaf_prepare<T>(std::size_t);                                          \
  template bool cluster_leaf_schedules<T>(int, std::size_t);                                   \
  template std::size_t cluster_leaf_smem<T>(int, int, int);                                    \
  template void cluster_leaf_factor<T>(const ClusterPlan&, T*, Index, int, int, int, int, int, \
                                       int*, unsigned long long*, cudaStream_t);
MM_FOR_VALUE_TYPES(MM_LU_CLUSTER_LEAF)

}  // namespace mm::cuda::lu
