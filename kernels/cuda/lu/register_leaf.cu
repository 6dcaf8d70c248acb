// The LU panel leaf for tall panels on one thread-block cluster with every row in registers:
// each thread holds R whole rows of the leaf (W values each, 256 bytes in all), so a column's
// scale and rank-1 update are register FMAs whatever the height, and the row swaps need no
// barrier. The pivot candidates travel as in the push leaf (cluster_leaf.cu): st.async into
// every block's shared memory, awaited on a local mbarrier.
#include <cooperative_groups.h>

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

constexpr int kRowBytes = 256;  // the leaf's values a thread holds

// --profile=2: block 0's thread 0 reads clock64 around the loads, the column loop and the
// stores of each timed leaf (ClusterArgs::timed); the cycles summed by phase
// (kRegLeafClockPhases), then the columns and the leaves (reg_leaf_clock_take).
__device__ unsigned long long g_reg_clock[RegLeafClockCounts::kPhases + 2];

// Rows a thread holds at width W (0: the width does not fit). Real types only: complex
// leaves stay in shared memory (cluster_leaf.cu), as each fully unrolled instance of this kernel
// is ~0.4 MB of code in every binary.
template <class D, int W>
__host__ __device__ constexpr int per_thread() {
  if (kComplex<D>) return 0;
  return kRowBytes / static_cast<int>(W * sizeof(D));
}

// Rows pass between the matrix and the registers through a tile of a row a thread, padded to
// an odd count of values so that each thread's reads of its row hit distinct banks.
template <int W>
constexpr int kTileRow = W + 1;

// Dynamic shared memory: the tile, then two parities of every block's Candidate, of row j as
// received, of each warp's best row (staged for the push), of row j as staged by its owner,
// of the warps' reduction slots, and two mbarriers.
template <class D, int W>
std::size_t reg_smem(int blocks) {
  return static_cast<std::size_t>(kLeafThreads) * kTileRow<W> * sizeof(D) +
         2 * (static_cast<std::size_t>(blocks) * sizeof(Candidate<D, W>) +
              (kLeafWarps + 2) * W * sizeof(D) + kLeafWarps * (sizeof(double) + sizeof(int))) +
         2 * sizeof(unsigned long long);
}

// The contract of push_leaf_kernel (cluster_leaf.cu) with the rows in registers: thread t of
// block b holds rows b * ROWS + k * kLeafThreads + t (leaf-relative), k < R. Per column j (the
// loop is unrolled, so every register index is a constant): each warp's best candidate is
// staged with its row in shared memory, one block barrier, the block's best pushed with row j
// (block 0's thread j holds it); after the wait every thread reduces the candidates, the
// owners of rows j and pr overwrite them from the received rows, and every thread scales and
// updates its rows below j, searching column j + 1 on the way. The staging and reduction slots
// alternate by parity: a parity is written again only after the next column's block barrier,
// which every warp reaches after its reads of this one.
template <class D, int W>
__global__ void __launch_bounds__(kLeafThreads, 1) reg_leaf_kernel(ClusterArgs<D> p) {
  constexpr int R = per_thread<D, W>();
  static_assert(R >= 1);
  using Cand = Candidate<D, W>;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) unsigned char smem[];
  const int blocks = static_cast<int>(cluster.num_blocks());
  D* tile = reinterpret_cast<D*>(smem);  // [kLeafThreads][kTileRow<W>]
  Cand* cands = reinterpret_cast<Cand*>(tile + kLeafThreads * kTileRow<W>);  // [2][blocks]
  D* rowj = reinterpret_cast<D*>(cands + 2 * blocks);                        // [2][W]
  D* stage = rowj + 2 * W;                                                   // [2][kLeafWarps][W]
  D* stagej = stage + 2 * kLeafWarps * W;                                    // [2][W]
  double* red_mag = reinterpret_cast<double*>(stagej + 2 * W);               // [2][kLeafWarps]
  int* red_idx = reinterpret_cast<int*>(red_mag + 2 * kLeafWarps);           // [2][kLeafWarps]
  unsigned long long* mbar = reinterpret_cast<unsigned long long*>(red_idx + 2 * kLeafWarps);
  pdl_wait();  // the stream's kernel before (pdl=on): finished, its writes visible
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int rank = static_cast<int>(cluster.block_rank());
  const int r0 = rank * p.rows;
  // --profile=2's clock: each phase's cycles added as it ends (one thread, no wait); the last
  // reading in shared memory, not in a register held across the column loop.
  __shared__ long long last;
  const bool clocked = p.timed && rank == 0 && t == 0;
  if (clocked) last = clock64();
  const auto lap = [&](int phase) {
    if (!clocked) return;
    const long long now = clock64();
    atomicAdd(&g_reg_clock[phase], static_cast<unsigned long long>(now - last));
    last = now;
  };
  const unsigned bytes = push_bytes<D, W>(blocks);
  if (t == 0) init_push_barriers(mbar);
  const int oc = outside_column(p, t, rank, blocks);

  // Slot k's rows through the tile, the matrix read a row after another: thread t moves column
  // t % W of rows t / W + i * kStep.
  constexpr int kStep = kLeafThreads / W;
  const int tc = t % W, tr = t / W;
  const Index step = kStep * p.lda;
  D a[R][W];
  bool have[R];  // the slot holds a row of the leaf
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int base = r0 + k * kLeafThreads;
    have[k] = base + t < p.m;
    const D* src = p.mat + static_cast<Index>(p.g0 + base + tr) * p.lda + p.g0 + tc;
#pragma unroll
    for (int i = 0; i < W; ++i) {
      const bool in = base + tr + i * kStep < p.m && tc < p.w;
      tile[(tr + i * kStep) * kTileRow<W> + tc] = in ? src[i * step] : D{};
    }
    __syncthreads();
#pragma unroll
    for (int c = 0; c < W; ++c) a[k][c] = tile[t * kTileRow<W> + c];
    __syncthreads();
  }
  double mag = 0;
  int idx = -1;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int r = r0 + k * kLeafThreads + t;
    if (have[k] && better(magnitude(a[k][0]), r, mag, idx)) mag = magnitude(a[k][0]), idx = r;
  }
  cluster.sync();  // every block's mbarriers initialised before the first push
  lap(0);
  const Pusher<D, W> pusher(cands, rowj, mbar, rank, blocks);
#pragma unroll
  for (int j = 0; j < W; ++j) {
    if (j >= p.w) break;
    const int par = j & 1;
    pdl_trigger_at(j, p.w);
    // The warp's best, in every lane; its owner stages the row, block 0's thread j row j.
    warp_argmax_all(mag, idx);
    if (lane == 0) red_mag[par * kLeafWarps + warp] = mag, red_idx[par * kLeafWarps + warp] = idx;
    D* mine = stage + (par * kLeafWarps + warp) * W;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      if (idx == r0 + k * kLeafThreads + t) {
#pragma unroll
        for (int c = 0; c < W; ++c) mine[c] = a[k][c];
      }
    }
    if (rank == 0 && t == j) {
#pragma unroll
      for (int c = 0; c < W; ++c) stagej[par * W + c] = a[0][c];
    }
    if (t == 0) sm90::mbar_arrive_expect_tx(smem_u32(mbar + par), bytes);
    __syncthreads();  // the staged rows and the warps' slots
    double bm = lane < kLeafWarps ? red_mag[par * kLeafWarps + lane] : 0.0;
    int bi = lane < kLeafWarps ? red_idx[par * kLeafWarps + lane] : -1;
    warp_argmax_all<kLeafWarps>(bm, bi);
    const int wb = bi >= 0 ? (bi - r0) % kLeafThreads / 32 : 0;  // the warp that staged it
    pusher.send(
        par, bm, bi, [&](int l) { return bi >= 0 ? stage[(par * kLeafWarps + wb) * W + l] : D{}; },
        rank == 0, [&](int l) { return stagej[par * W + l]; });
    if (pusher.alone()) __syncthreads();  // its own stores before the reads below
    sm90::mbar_wait<sm90::Scope::cluster>(smem_u32(mbar + par), static_cast<unsigned>(j >> 1) & 1u);
    const Cand* cp = cands + par * blocks;
    const int pr = received_pivot(cp, blocks);  // the pivot row, leaf-relative
    const D* prow = cp[pr / p.rows].row;
    const D piv = prow[j];
    PivotStep<D> step(p, j, pr, piv, oc, rank == 0 && t == 0);
    // Rows j and pr exchanged: block 0's thread j holds row j (slot 0), as rows < W < kLeafThreads.
    if (rank == 0 && t == j) {
#pragma unroll
      for (int c = 0; c < W; ++c) a[0][c] = prow[c];
    }
    if (pr != j) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        if (pr == r0 + k * kLeafThreads + t) {
#pragma unroll
          for (int c = 0; c < W; ++c) a[k][c] = rowj[par * W + c];
        }
      }
    }
    // Scale and update the rows below j (LAPACK leaves the column as it is after a zero
    // pivot; the search still runs), column j + 1's candidates on the way.
    const bool live = piv != D{};
    const D inv = live ? D(1) / piv : D{};
    mag = 0, idx = -1;
    D l[R];
    bool upd[R];  // rows above j (U's) and absent ones keep their values, Inf and NaN included
#pragma unroll
    for (int k = 0; k < R; ++k) {
      upd[k] = live && have[k] && r0 + k * kLeafThreads + t > j;
      l[k] = upd[k] ? a[k][j] * inv : D{};
      if (upd[k]) a[k][j] = l[k];
    }
#pragma unroll
    for (int c = j + 1; c < W; ++c) {
      const D pv = prow[c];
#pragma unroll
      for (int k = 0; k < R; ++k)
        if (upd[k]) a[k][c] -= l[k] * pv;
    }
    if (j + 1 < W) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        const int r = r0 + k * kLeafThreads + t;
        if (have[k] && r > j && better(magnitude(a[k][j + 1]), r, mag, idx))
          mag = magnitude(a[k][j + 1]), idx = r;
      }
    }
    step.finish();
  }
  lap(1);
  // Back through the tile (last read before the first column).
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int base = r0 + k * kLeafThreads;
#pragma unroll
    for (int c = 0; c < W; ++c) tile[t * kTileRow<W> + c] = a[k][c];
    __syncthreads();
    D* dst = p.mat + static_cast<Index>(p.g0 + base + tr) * p.lda + p.g0 + tc;
#pragma unroll
    for (int i = 0; i < W; ++i) {
      if (base + tr + i * kStep < p.m && tc < p.w)
        dst[i * step] = tile[(tr + i * kStep) * kTileRow<W> + tc];
    }
    __syncthreads();
  }
  cluster.sync();  // no block leaves while a push into it may be in flight
  lap(2);
  if (clocked) {
    constexpr int P = RegLeafClockCounts::kPhases;
    atomicAdd(&g_reg_clock[P], static_cast<unsigned long long>(p.w));
    atomicAdd(&g_reg_clock[P + 1], 1ull);
  }
}

template <class D, int W>
void set_attributes() {
  if constexpr (per_thread<D, W>() >= 1) {
    allow_clusters(reg_leaf_kernel<D, W>, reg_smem<D, W>(kClusterMostBlocks));
  }
}

template <class D, int W>
void launch(const ClusterPlan& plan, const ClusterArgs<D>& args, cudaStream_t st) {
  if constexpr (per_thread<D, W>() >= 1) {
    cudaLaunchAttribute attr[2]{};
    cudaLaunchConfig_t cfg = cluster_config(plan.blocks, kLeafThreads, plan.smem, st, attr);
    with_pdl(cfg, attr + 1, plan.pdl);
    MM_CUDA(cudaLaunchKernelEx(&cfg, reg_leaf_kernel<D, W>, args));
  } else {
    throw DeviceError("register leaf: width " + std::to_string(W) + " does not fit");
  }
}

}  // namespace

RegLeafClockCounts reg_leaf_clock_take() {
  return take_clock<RegLeafClockCounts::kPhases>(g_reg_clock);
}

template <class T>
bool reg_leaf_prepare(int blocks) {
  using D = dev_t<T>;
  if constexpr (per_thread<D, 8>() < 1) {
    return false;
  } else {
    static bool set = false;
    if (!set) {
      set_attributes<D, 32>();
      set_attributes<D, 16>();
      set_attributes<D, 8>();
      set_attributes<D, 4>();
      set = true;
    }
    return cluster_schedules(reg_leaf_kernel<D, 32>, blocks, kLeafThreads, reg_smem<D, 32>(blocks));
  }
}

template <class T>
int reg_leaf_rows(int width) {
  int rows = 0;
  with_width<4>(width, [&](auto w) { rows = per_thread<dev_t<T>, w.value>() * kLeafThreads; });
  return rows;
}

template <class T>
std::size_t reg_leaf_smem(int width, int blocks) {
  std::size_t bytes = 0;
  with_width<4>(width, [&](auto w) { bytes = reg_smem<dev_t<T>, w.value>(blocks); });
  return bytes;
}

template <class T>
void reg_leaf_launch(const ClusterPlan& plan, const ClusterArgs<dev_t<T>>& args, cudaStream_t st) {
  with_width<4>(plan.width, [&](auto w) { launch<dev_t<T>, w.value>(plan, args, st); });
}

#define MM_LU_REG_LEAF(T)                          \
  template bool reg_leaf_prepare<T>(int);          \
  template int reg_leaf_rows<T>(int);              \
  template std::size_t reg_leaf_smem<T>(int, int); \
  template void reg_leaf_launch<T>(const ClusterPlan&, const ClusterArgs<dev_t<T>>&, cudaStream_t);
MM_FOR_VALUE_TYPES(MM_LU_REG_LEAF)

}  // namespace mm::cuda::lu
