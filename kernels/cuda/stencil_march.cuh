// The vectorised marching heated-room sweeps (cuda-norm) and their one-kernel change
// reduction, with the change helpers every stencil kernel uses. Which of them a run takes, its
// plan and its launch: stencil_rows.hpp (the room as the kernels take it: stencil_plan.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda/std/complex>
#include <type_traits>

#include "cuda/cuda_util.cuh"
#include "cuda/stencil_plan.hpp"
#include "cuda/warp.cuh"

namespace mm::stencil {

// V in [LO, HI], compared in I (64 bits unless a caller that indexes in 32 names int).
template <class I = std::int64_t>
__device__ __forceinline__ bool within(std::type_identity_t<I> v, std::int64_t lo,
                                       std::int64_t hi) {
  return v >= static_cast<I>(lo) && v <= static_cast<I>(hi);
}

// |v - old|^2 in double, the difference taken in the value type as the reference does: of V
// rounded (never contracted with the arithmetic that made V into one FMA, which ptxas may do
// in one kernel and not in another: the time-tiled sweep's fused change then moved off
// cuda-norm's by 1e-8 relative in single).
__device__ __forceinline__ double sq_change(float v, float old) {
  const double d = __fsub_rn(v, old);
  return d * d;
}
__device__ __forceinline__ double sq_change(double v, double old) {
  const double d = __dsub_rn(v, old);
  return d * d;
}
template <class R>
__device__ __forceinline__ double sq_change(::cuda::std::complex<R> v,
                                            ::cuda::std::complex<R> old) {
  const auto d = v - old;
  const double re = d.real(), im = d.imag();
  return re * re + im * im;
}

// V consecutive values read or written as one access of V * sizeof(T) bytes (8 or 16).
template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

template <class T, int V>
__device__ __forceinline__ Vec<T, V> load(const T* p) {
  return *reinterpret_cast<const Vec<T, V>*>(p);
}
template <class T, int V>
__device__ __forceinline__ void store(T* p, const Vec<T, V>& x) {
  *reinterpret_cast<Vec<T, V>*>(p) = x;
}

// Sum over the block, any whole number of warps up to 32; thread 0 holds it. The order is
// fixed by the block's shape, so the same inputs give the same sum.
__device__ __forceinline__ double block_sum(double v) {
  __shared__ double part[32];
  v = cuda::group_sum<32>(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) part[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
  if (warp == 0) v = cuda::group_sum<32>(v);
  __syncthreads();  // part may be reused by the next call
  return v;
}

// Every marching sweep may be launched as a programmatic dependent of the kernel before it
// (launch_march): its blocks may start while that kernel's last blocks finish. They wait for
// all of that kernel's memory before their first read (a no-op when not launched so), and let
// the next sweep launch once done with their points (before the change's reduction).
__device__ __forceinline__ void grid_dependency_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;");
}

// The block's index in its grid, and the grid's blocks (2D grids too).
__device__ __forceinline__ std::int64_t grid_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + std::int64_t{gridDim.y} * blockIdx.z);
}
__device__ __forceinline__ std::int64_t grid_blocks() {
  return std::int64_t{gridDim.x} * gridDim.y * gridDim.z;
}

// The sum of PARTIALS[0, BLOCKS) in a fixed order for the block's shape (thread t the partials
// t, t + threads, ..., then block_sum): thread 0 holds it. Every thread calls this (barriers).
// AHEAD: four loads in flight a thread, added in the same order (the same bits); the slabs' and
// the time-tiled sweep's last block keep one (four cost their kernels registers).
template <bool AHEAD = false>
__device__ __forceinline__ double partials_sum(const double* partials, std::int64_t blocks) {
  const std::int64_t step = blockDim.x;
  double s = 0;
  std::int64_t b = threadIdx.x;
  if constexpr (AHEAD)
    for (; b + 3 * step < blocks; b += 4 * step) {
      const double p0 = __ldcg(partials + b), p1 = __ldcg(partials + b + step),
                   p2 = __ldcg(partials + b + 2 * step), p3 = __ldcg(partials + b + 3 * step);
      s += p0;
      s += p1;
      s += p2;
      s += p3;
    }
  for (; b < blocks; b += step) s += __ldcg(partials + b);  // from L2: other blocks wrote them
  return block_sum(s);
}

// The block's squared change into PARTIALS[BLOCK]; the last block of the grid to finish sums
// all partials in a fixed order (the same norm on every run, whichever block is last) into
// *SLOT and resets *COUNTER for the next sweep: no second kernel between sweeps. Every
// thread of the block calls this (it holds barriers).
__device__ __forceinline__ void reduce_change(double change, double* slot, double* partials,
                                              unsigned* counter, std::int64_t block,
                                              std::int64_t blocks) {
  __shared__ bool last;
  change = block_sum(change);
  if (threadIdx.x == 0) {
    partials[block] = change;
    __threadfence();  // the partial is visible device-wide before the count says so
    last = atomicAdd(counter, 1u) == static_cast<unsigned>(blocks - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const double s = partials_sum(partials, blocks);
  if (threadIdx.x == 0) {
    *slot = s;
    *counter = 0;
  }
}

// A marching sweep's change as C says (stencil_plan.hpp's Change): summed now, or the block's
// partial left for the next launch (DEFERRABLE: not a slab's sweep, which always sums now).
// Deferred, the sweep ends on plain stores: no fence, no count, no last block summing while the
// next sweep waits for this one to finish (H200, double, the change every sweep: N = 256 0.877
// -> 0.907 of the copy with the partials left unsummed, 384 0.924 -> 0.935, 512 and 768
// unchanged; bench/results/issue16_twentythird_pass_2026-11-29_e038b3c.md).
template <bool DEFERRABLE>
__device__ __forceinline__ void put_change(double change, const Change& c) {
  if (!DEFERRABLE || c.counter)
    return reduce_change(change, c.slot, c.partials, c.counter, grid_block(), grid_blocks());
  change = block_sum(change);
  if (threadIdx.x == 0) c.partials[grid_block()] = change;
}

// Deferred: the launch's first block sums the sweep before's partials into its slot, at its
// end. H200, N = 256, double: 0.903 of the copy against 0.897-0.899 with the last block (the
// last chunk, often the shortest, but the last to start). Placed before the march, the sum cost
// the sweep's kernels registers (double, the change, marching up: 61 against 56; 5 blocks of 6
// warps a multiprocessor instead of 6 at N = 384, 0.83 of the copy against 0.92).
__device__ __forceinline__ void sum_before(const Change& c) {
  if (!c.before_slot || grid_block() != 0) return;
  const double s = partials_sum<true>(c.before, grid_blocks());
  if (threadIdx.x == 0) *c.before_slot = s;
}

// The neighbours summed in the reference's order (x-1, x+1, y-1, y+1, z-1, z+1, then h^2 f),
// so that both round alike.
template <class T>
__device__ __forceinline__ T neighbours(T l, T r, T yl, T yh, T zl, T zh) {
  T v = l + r;
  v = v + yl;
  v = v + yh;
  v = v + zl;
  return v + zh;
}
template <class T>
__device__ __forceinline__ T update(T l, T r, T yl, T yh, T zl, T zh, T f, T inv) {
  return (neighbours(l, r, yl, yh, zl, zh) + f) * inv;
}
// update() with h^2 f given as H F, H 0 or 1 and F >= 0 (the heated room's source, or 0): the
// product is exact (+0 or F), so the fused add rounds as update()'s v + f does, the same bits as
// update(..., H ? F : 0, inv), and a sweep that holds H and F needs no select a point.
template <class T>
__device__ __forceinline__ T update_fma(T l, T r, T yl, T yh, T zl, T zh, T h, T f, T inv) {
  const T v = neighbours(l, r, yl, yh, zl, zh);
  if constexpr (sizeof(T) == 4)
    return __fmaf_rn(h, f, v) * inv;
  else
    return __fma_rn(h, f, v) * inv;
}
// The same for a march along z: BEHIND and AHEAD the planes before and after the centre in
// the march's direction (DOWN: z decreasing, so AHEAD is z - 1).
template <bool DOWN, class T>
__device__ __forceinline__ T update_z(T l, T r, T yl, T yh, T behind, T ahead, T f, T inv) {
  if constexpr (DOWN) return update(l, r, yl, yh, ahead, behind, f, inv);
  return update(l, r, yl, yh, behind, ahead, f, inv);
}
template <class T>
__device__ __forceinline__ T update(T l, T r, T yl, T yh, T f, T inv) {
  T v = l + r;
  v = v + yl;
  v = v + yh;
  return (v + f) * inv;
}

// The value beyond a lane's vector along x that no lane of its warp holds: lane 0's left
// neighbour, lane 31's right one, read from memory (L1/L2); 0 for every other lane and for the
// walls' sides (x0 = 0, x0 + V = n). P points at the lane's first value, whose x is X0.
template <class T, int V>
__device__ __forceinline__ T x_end(const T* p, std::int64_t x0, std::int64_t n, bool loadable,
                                   int lane) {
  const bool edge = loadable && ((lane == 0 && x0 > 0) || (lane == 31 && x0 + V < n));
  return edge ? p[lane == 0 ? -1 : V] : T(0);
}

// The x neighbours of a row held as one vector per lane, V values a lane along x: the value
// left of element 0 comes from the lane before, the value right of element V-1 from the lane
// after; lanes 0 and 31 take E (x_end) instead.
template <class T, int V>
__device__ __forceinline__ void x_neighbours(const Vec<T, V>& row, T e, int lane, T& left,
                                             T& right) {
  left = __shfl_up_sync(0xffffffffu, row.v[V - 1], 1);
  right = __shfl_down_sync(0xffffffffu, row.v[0], 1);
  if (lane == 0) left = e;
  if (lane == 31) right = e;
}
template <class T, int V>
__device__ __forceinline__ void x_neighbours(const Vec<T, V>& row, const T* p, std::int64_t x0,
                                             std::int64_t n, bool loadable, int lane, T& left,
                                             T& right) {
  x_neighbours<T, V>(row, x_end<T, V>(p, x0, n, loadable, lane), lane, left, right);
}

// One step of a row vector of the 3D marching sweeps: the V points of CENTER from their x
// neighbours (LEFT and RIGHT beyond its ends), the rows beside along y (YL, YH) and along z
// (BELOW, ABOVE: the plane marched from and the one marched to). Bits SHIFT + e of INTERIOR
// and HEAT say which points are updated and which heated (on a HEAT_Z plane); the others keep
// their value. NORM: the squared change of the updated points is added to CHANGE.
template <class T, int V, bool NORM, bool DOWN>
__device__ __forceinline__ Vec<T, V> step_row(const Vec<T, V>& center, T left, T right,
                                              const Vec<T, V>& yl, const Vec<T, V>& yh,
                                              const Vec<T, V>& below, const Vec<T, V>& above,
                                              int shift, unsigned interior, unsigned heat,
                                              bool heat_z, T src, T inv, double& change) {
  Vec<T, V> res;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const unsigned bit = 1u << (shift + e);
    const T l = e == 0 ? left : center.v[e > 0 ? e - 1 : 0];
    const T rr = e == V - 1 ? right : center.v[e < V - 1 ? e + 1 : 0];
    const T f = heat_z && (heat & bit) ? src : T(0);
    const T v = update_z<DOWN>(l, rr, yl.v[e], yh.v[e], below.v[e], above.v[e], f, inv);
    res.v[e] = interior & bit ? v : center.v[e];
    if constexpr (NORM)
      if (interior & bit) change += sq_change(v, center.v[e]);
  }
  return res;
}

// 3D. A block is WX x WY warps (runtime, at most 8): a warp spans 32 V points of x (walls
// included: x tiles start at 0, so every vector access is aligned when V divides N), each
// thread RY rows of y; WX warps side by side cover whole rows where they can, so that a block
// reads WY * RY whole rows of a plane, one contiguous stretch of memory, each step. The block
// marches along z through planes [k0, k1), holding planes k-1, k, k+1 of its rows in
// registers: every point is read from memory once per sweep, except the rows just above and
// below the thread's RY (L1/L2 hits, loaded by the neighbouring threads) and one scalar per
// row at the warp's two x ends. Wall points inside a vector are written back unchanged (both
// buffers hold the same walls). The change accumulates in registers and is reduced once per
// block. Measured on the H200 (double, change every sweep, N = 256 / 384 / 512, fraction of
// a device copy's bandwidth): RY 1 0.83 / 0.84 / 0.82 with the chunks cut by wave fill
// (stencil_plan.hpp, march_chunks; 0.81 / 0.82 / 0.78 with one wave of whole chunks); RY 2 0.74 /
// 0.74 / 0.69; RY 4 0.61 / 0.58 / 0.55 (registers: fewer warps, fewer loads in flight); RY 2
// on 64 x 16 tiles of one warp along x 0.74 / 0.74 / 0.70; the old cuda-partials 0.57 / 0.67 /
// 0.67. The 2D sweep 0.85. Single precision RY 1: 0.73 / 0.84 / 0.87.
// Bounded for 512 threads (--tune warps=16), and RY 1 for three such blocks a
// multiprocessor: ptxas then gives it 40 registers in both precisions (44 before). Single
// precision ran at 0.87 of the copy at N = 512 with 40 against 0.78 with 44; double at 0.83
// against 0.81 at N = 256, the same at 384 and 512 (H200, same run).
// Blocks of 512 threads a multiprocessor the 3D sweep is bounded for: 3 for RY 1 (at most 42
// registers a thread), 1 for the wider RY that need more; 2 with AHEAD (its loads of the next
// step take about 14 registers more in double).
template <int RY, bool AHEAD = false>
constexpr int march3v_min_blocks() {
  return RY == 1 ? (AHEAD ? 2 : 3) : 1;
}

// AHEAD (--tune ahead=regs; the H100's default where tma is not, stencil_plan.hpp): the loads of
// step k + 1 (plane k + 2's rows, plane k + 1's rows beside and row ends) are issued before step k
// is computed, into registers, so that each thread has two steps' loads in flight instead of one;
// the values and their order are the same, so is the grid and the change, bit for bit. H100
// (double, the change every sweep, N = 256 / 384 / 512 / 768, fraction of the copy): 0.85 / 0.87 /
// 0.86 / 0.81 against 0.79 / 0.85 / 0.74 / 0.63 without (60 registers with the change, 4 blocks of
// 256 or 5 of 192 threads a multiprocessor, against 40 and 6 or 8). Without it, ncu counted
// 1.26 (N = 512) and 1.6 (768) times the sweep's least DRAM bytes: the rows beside a thread's
// were fetched again after their neighbours' loads had left L2; with it, 1.0 at 768. Tried
// and dropped: the same through per-thread shared-memory stages filled by cp.async (one or
// two steps ahead, 40 registers): 0.41-0.70 of the copy, slower than no step ahead.
template <class T, int V, int RY, bool NORM, bool RANGE = false, bool AHEAD = false,
          bool DOWN = false>
__global__ void __launch_bounds__(512, march3v_min_blocks<RY, AHEAD>())
    march3v_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                  std::int64_t chunk, int wx, Change c) {
  using Vt = Vec<T, V>;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wy = static_cast<int>(blockDim.x / 32) / wx;
  const std::int64_t n = r.n, nn = n * n;
  const std::int64_t x0 = ((blockIdx.x * std::int64_t{wx} + warp % wx) * 32 + lane) * V;
  const std::int64_t y0 = 1 + (blockIdx.y * std::int64_t{wy} + warp / wx) * RY;
  const std::int64_t k0 = (RANGE ? r.k_lo : 1) + blockIdx.z * chunk;
  const std::int64_t k_end = RANGE ? r.k_hi : n - 1;
  const std::int64_t k1 = k0 + chunk < k_end ? k0 + chunk : k_end;
  const bool in_x = x0 < n;
  // Rows y0 + q, q < RY: loadable up to the wall row n-1, computed up to n-2. What depends
  // only on the thread's points is decided once, as bit q*V + e of two masks (few registers).
  const auto row_ok = [&](int q) { return in_x && y0 + q <= n - 1; };
  // The rows just below and above them likewise (a block's last warps may hold rows past the
  // grid: with only in_x, row y0 - 1 was read past the array's end; compute-sanitizer).
  const bool lo_ok = in_x && y0 - 1 <= n - 1, hi_ok = in_x && y0 + RY <= n - 1;
  static_assert(RY * V <= 32);
  unsigned interior = 0, heat = 0;
#pragma unroll
  for (int q = 0; q < RY; ++q)
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const std::int64_t i = x0 + e, j = y0 + q;
      if (in_x && j <= n - 2 && i >= 1 && i <= n - 2) interior |= 1u << (q * V + e);
      if (within(i, r.rx0, r.rx1) && within(j, r.ry0, r.ry1)) heat |= 1u << (q * V + e);
    }
  // The thread's first point of the plane before the chunk (k0 - 1, or k1 marching DOWN),
  // then one plane further each step (DZ).
  const std::int64_t dz = DOWN ? -nn : nn, kf = DOWN ? k1 : k0 - 1;
  const T* up = u + kf * nn + y0 * n + x0;
  T* op = out + kf * nn + dz + y0 * n + x0;
  Vt below[RY], center[RY], above[RY];
  const auto load_plane = [&](const T* p, Vt(&v)[RY]) {
#pragma unroll
    for (int q = 0; q < RY; ++q) v[q] = row_ok(q) ? load<T, V>(p + q * n) : Vt{};
  };
  // What a step reads of the plane at P besides the thread's rows: the rows just below and
  // above them, and each row's ends (x_end).
  const auto load_beside = [&](const T* p, Vt& lo, Vt& hi, T(&ends)[RY]) {
    lo = lo_ok ? load<T, V>(p - n) : Vt{};
    hi = hi_ok ? load<T, V>(p + RY * n) : Vt{};
#pragma unroll
    for (int q = 0; q < RY; ++q) ends[q] = x_end<T, V>(p + q * n, x0, n, row_ok(q), lane);
  };
  grid_dependency_wait();
  load_plane(up, below);
  up += dz;  // the chunk's first plane
  load_plane(up, center);
  Vt lo, hi;
  T ends[RY];
  if constexpr (AHEAD) {
    if (k0 < k1) {
      load_beside(up, lo, hi, ends);
      load_plane(up + dz, above);
    }
  }
  double change = 0;
  // BELOW and ABOVE: the planes before and after the centre in the march's direction.
  for (std::int64_t k = k0; k < k1; ++k, up += dz, op += dz) {
    [[maybe_unused]] Vt next_lo, next_hi, next_above[RY];
    [[maybe_unused]] T next_ends[RY];
    [[maybe_unused]] const bool more = k + 1 < k1;  // AHEAD: a next step (plane k + 2 <= k1)
    if constexpr (AHEAD) {
      if (more) {
        load_beside(up + dz, next_lo, next_hi, next_ends);
        load_plane(up + 2 * dz, next_above);
      }
    } else {
      load_plane(up + dz, above);
      load_beside(up, lo, hi, ends);
    }
    const bool heat_z = within(DOWN ? k0 + k1 - 1 - k : k, r.rz0, r.rz1);
#pragma unroll
    for (int q = 0; q < RY; ++q) {
      T left, right;
      x_neighbours<T, V>(center[q], ends[q], lane, left, right);
      const Vt& yl = q == 0 ? lo : center[q > 0 ? q - 1 : 0];
      const Vt& yh = q == RY - 1 ? hi : center[q < RY - 1 ? q + 1 : 0];
      const Vt res = step_row<T, V, NORM, DOWN>(center[q], left, right, yl, yh, below[q], above[q],
                                                q * V, interior, heat, heat_z, src, inv, change);
      if (in_x && y0 + q <= n - 2) store<T, V>(op + q * n, res);
    }
#pragma unroll
    for (int q = 0; q < RY; ++q) {
      below[q] = center[q];
      center[q] = above[q];
    }
    if constexpr (AHEAD)
      if (more) {
#pragma unroll
        for (int q = 0; q < RY; ++q) above[q] = next_above[q], ends[q] = next_ends[q];
        lo = next_lo, hi = next_hi;
      }
  }
  launch_dependents();
  if constexpr (NORM) put_change<!RANGE>(change, c);
  if constexpr (!RANGE) sum_before(c);
}

// 2D: the same with rows for planes. A block is 32 x BY threads, each thread V points of x,
// marching along y through rows [j0, j1) with rows j-1, j, j+1 in registers.
template <class T, int V, int BY, bool NORM, bool RANGE = false>
__global__ void __launch_bounds__(32 * BY)
    march2v_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                  std::int64_t chunk, int /*wx: the 3D sweep's*/, Change c) {
  using Vt = Vec<T, V>;
  const int lane = threadIdx.x % 32, ty = threadIdx.x / 32;
  const std::int64_t n = r.n;
  const std::int64_t x0 = (blockIdx.x * std::int64_t{32 * BY} + ty * 32 + lane) * V;
  const std::int64_t j0 = (RANGE ? r.k_lo : 1) + blockIdx.y * chunk;
  const std::int64_t j_end = RANGE ? r.k_hi : n - 1;
  const std::int64_t j1 = j0 + chunk < j_end ? j0 + chunk : j_end;
  const bool in_x = x0 < n;
  grid_dependency_wait();
  Vt below = in_x ? load<T, V>(u + (j0 - 1) * n + x0) : Vt{};
  Vt center = in_x ? load<T, V>(u + j0 * n + x0) : Vt{};
  double change = 0;
  for (std::int64_t j = j0; j < j1; ++j) {
    const std::int64_t c = j * n + x0;
    const Vt above = in_x ? load<T, V>(u + c + n) : Vt{};
    const bool heat_y = within(j, r.ry0, r.ry1);
    T left, right;
    x_neighbours<T, V>(center, u + c, x0, n, in_x, lane, left, right);
    Vt res;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const std::int64_t i = x0 + e;
      const T l = e == 0 ? left : center.v[e > 0 ? e - 1 : 0];
      const T rr = e == V - 1 ? right : center.v[e < V - 1 ? e + 1 : 0];
      const T f = heat_y && within(i, r.rx0, r.rx1) ? src : T(0);
      const T v = update(l, rr, below.v[e], above.v[e], f, inv);
      const bool interior = i >= 1 && i <= n - 2;
      res.v[e] = interior ? v : center.v[e];
      if constexpr (NORM)
        if (interior) change += sq_change(v, center.v[e]);
    }
    if (in_x) store<T, V>(out + c, res);
    below = center;
    center = above;
  }
  launch_dependents();
  if constexpr (NORM) put_change<!RANGE>(change, c);
  if constexpr (!RANGE) sum_before(c);
}

}  // namespace mm::stencil

// The same sweep with its loads by the copy engine (ahead=tma): it shares the helpers above.
#include "cuda/stencil_march_tma.cuh"
