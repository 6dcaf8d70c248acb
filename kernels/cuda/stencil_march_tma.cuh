// cuda-norm's 3D sweep with its loads by the copy engine (--tune ahead=tma): each block's rows
// of the planes ahead stream into a ring of shared-memory stages by bulk copies (TMA) that one
// thread issues, so that a block keeps several planes in flight without registers; the
// threads read their points and neighbours from shared memory. Included by stencil_march.cuh.
#pragma once

#include <cstdint>

#include "cuda/l2_policy.cuh"
#include "cuda/tma.cuh"

namespace mm::stencil {

// The block covers x [xs, xs + 32 WX V) of rows [yb, yb + WY) (one row a thread, V values a
// lane, as march3v_sweep's RY = 1) and marches through planes [k0, k1). Plane p's stage
// (R.stage_values values, R.stages of them: stencil_plan.hpp's tma_stage_values) holds rows
// yb - 1 .. yb + WY (those up to the wall row n - 1) of x [gx0, gx1): the block's points and
// kTmaHaloBytes beyond each end (its end points' x neighbours; copies start on 128-byte lines
// where the rows do), clipped to the grid. Thread 0 fills the chunk's plane j (in the march's
// order, up or DOWN) into stage j % S once the block is done with the plane S before it (one
// block barrier a step). Every point is computed by update() from the same values in the same
// order as march3v_sweep's, and the change summed alike: the grid and the change bit for bit.
// With L2LAST the stages' loads are evicted last from L2 (JacobiTuning::l2; a template flag, as
// the policy at run time took the double kernels from 46-59 registers to 55-60 and changed their
// plans). Needs V sizeof(T) = 16 (rows of 16-byte multiples: n even in double, n % 4 = 0 in
// single). The kernels below are this body under two register bounds.
template <class T, int V, bool NORM, bool RANGE, bool DOWN, bool L2LAST>
__device__ __forceinline__ void march3t_body(Room r, const T* __restrict__ u, T* __restrict__ out,
                                             T src, T inv, std::int64_t chunk, int wx,
                                             const Change& c) {
  static_assert(V * sizeof(T) == 16);
  namespace s9 = cuda::sm90;
  using Vt = Vec<T, V>;
  extern __shared__ __align__(128) unsigned char tma_smem[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wy = static_cast<int>(blockDim.x / 32) / wx;
  const int stages = r.stages;
  const std::int64_t n = r.n, nn = n * n;
  const std::int64_t xs = blockIdx.x * std::int64_t{wx} * 32 * V;
  const std::int64_t x0 = xs + ((warp % wx) * 32 + lane) * V;
  const std::int64_t yb = 1 + blockIdx.y * std::int64_t{wy};
  const std::int64_t y0 = yb + warp / wx;
  const std::int64_t k0 = (RANGE ? r.k_lo : 1) + blockIdx.z * chunk;
  const std::int64_t k_end = RANGE ? r.k_hi : n - 1;
  const std::int64_t k1 = k0 + chunk < k_end ? k0 + chunk : k_end;
  const bool in_x = x0 < n;
  const bool computes = in_x && y0 <= n - 2;
  // The stage's rows and their extent along x.
  constexpr int halo = kTmaHaloBytes / sizeof(T);
  const std::int64_t xe = xs + std::int64_t{wx} * 32 * V + halo;
  const std::int64_t gx0 = xs - halo > 0 ? xs - halo : 0, gx1 = xe < n ? xe : n;
  const int len = static_cast<int>(gx1 - gx0);
  const int rows = static_cast<int>((yb + wy < n - 1 ? yb + wy : n - 1) - (yb - 1) + 1);
  const int sv = static_cast<int>(r.stage_values);
  T* const ring = reinterpret_cast<T*>(tma_smem);
  const std::uint32_t bars =
      s9::smem_u32(tma_smem + static_cast<std::size_t>(stages) * sv * sizeof(T));
  const int planes = static_cast<int>(k1 - k0) + 2;  // planes k0 - 1 .. k1
  // The chunk's planes in the march's order: J = 0 is the one before its first (k0 - 1 up,
  // k1 DOWN), then one further each step (DZ).
  const std::int64_t dz = DOWN ? -nn : nn;
  const auto plane = [&](int j) { return DOWN ? k1 - j : k0 - 1 + j; };

  unsigned interior = 0, heat = 0;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const std::int64_t i = x0 + e;
    if (computes && i >= 1 && i <= n - 2) interior |= 1u << e;
    if (within(i, r.rx0, r.rx1) && within(y0, r.ry0, r.ry1)) heat |= 1u << e;
  }

  // Plane J of the chunk (plane(J)) into stage S (thread 0), evicted last from L2 with L2LAST.
  const auto copy = [&](std::uint32_t to, const T* from, unsigned bytes, std::uint32_t bar) {
    if constexpr (L2LAST)
      s9::bulk_load(to, from, bytes, bar, cuda::l2_evict_last());
    else
      s9::bulk_load(to, from, bytes, bar);
  };
  const auto fill = [&](int j, int s) {
    const std::uint32_t bar = bars + 8u * s;
    const unsigned row_bytes = static_cast<unsigned>(len) * sizeof(T);
    s9::mbar_arrive_expect_tx(bar, row_bytes * rows);
    const T* from = u + plane(j) * nn + (yb - 1) * n + gx0;
    const std::uint32_t to = s9::smem_u32(ring + s * sv);
    if (len == n) {  // whole rows: one stretch of memory
      copy(to, from, row_bytes * rows, bar);
    } else {
      for (int q = 0; q < rows; ++q) copy(to + q * row_bytes, from + q * n, row_bytes, bar);
    }
  };
  // Plane j sits in stage j % S, filled for the (j / S + 1)-th time: the stages waited for
  // come in order, and bit s of PHASE is the parity stage s's next wait waits for.
  int next_wait = 0;
  unsigned phase = 0;
  const auto ready = [&]() {
    s9::mbar_wait(bars + 8u * next_wait, phase >> next_wait & 1u);
    phase ^= 1u << next_wait;
    next_wait = next_wait + 1 == stages ? 0 : next_wait + 1;
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) s9::mbar_init(bars + 8u * s, 1);
    s9::mbar_init_fence();
  }
  __syncthreads();
  grid_dependency_wait();  // the sweep before has finished (launch_march)
  if (threadIdx.x == 0)
    for (int j = 0; j < planes && j < stages; ++j) fill(j, j);

  // The thread's first point in a stage. Its own row of the plane below and of the centre
  // plane are kept in registers from the steps before, so a step reads the plane above's row
  // and the centre plane's neighbours, and a plane's stage is free once its step is done: S
  // stages keep S - 2 planes in flight.
  const int at = (static_cast<int>(y0 - yb) + 1) * len + static_cast<int>(x0 - gx0);
  Vt below{}, center{};
  ready(), ready();  // planes 0 and 1 (a chunk has at least one plane)
  if (computes) below = load<T, V>(ring + at), center = load<T, V>(ring + sv + at);
  __syncthreads();  // plane 0 read: its stage takes plane S
  if (threadIdx.x == 0 && stages < planes) fill(stages, 0);
  T* op = out + plane(1) * nn + y0 * n + x0;
  double change = 0;
  int sc = 1;  // the centre plane's stage
  for (int i = 1; i < planes - 1; ++i, op += dz) {
    const int sa = sc + 1 == stages ? 0 : sc + 1;
    ready();  // plane i + 1
    if (computes) {
      const T* c = ring + sc * sv + at;
      const Vt above = load<T, V>(ring + sa * sv + at), yl = load<T, V>(c - len),
               yh = load<T, V>(c + len);
      const T left = x0 > 0 ? c[-1] : T(0), right = x0 + V < n ? c[V] : T(0);
      const bool heat_z = within(plane(i), r.rz0, r.rz1);
      store<T, V>(op, step_row<T, V, NORM, DOWN>(center, left, right, yl, yh, below, above, 0,
                                                 interior, heat, heat_z, src, inv, change));
      below = center;
      center = above;
    }
    __syncthreads();  // every thread is done with plane i's stage
    if (threadIdx.x == 0 && i + stages < planes) fill(i + stages, sc);
    sc = sa;
  }
  launch_dependents();
  if constexpr (NORM) put_change<!RANGE>(change, c);
  if constexpr (!RANGE) sum_before(c);
}

// The body marching DOWN, or with ZIGZAG (order=zigzag, not RANGE) the odd chunks the other way:
// chunk k marching up ends on the planes about its top boundary as chunk k + 1, marching down,
// ends on them too (and they start together at the boundary below), so that the planes beside
// a boundary, which both read, come from memory once rather than at either end of a march.
template <class T, int V, bool NORM, bool RANGE, bool DOWN, bool ZIGZAG, bool L2LAST>
__device__ __forceinline__ void march3t_either(Room r, const T* __restrict__ u, T* __restrict__ out,
                                               T src, T inv, std::int64_t chunk, int wx,
                                               const Change& c) {
  static_assert(!(ZIGZAG && RANGE));
  if constexpr (ZIGZAG) {
    if (blockIdx.z & 1u) {
      march3t_body<T, V, NORM, RANGE, !DOWN, L2LAST>(r, u, out, src, inv, chunk, wx, c);
      return;
    }
  }
  march3t_body<T, V, NORM, RANGE, DOWN, L2LAST>(r, u, out, src, inv, chunk, wx, c);
}

// Double: blocks of up to 1024 threads, ptxas free up to 64 registers.
template <class T, int V, bool NORM, bool RANGE = false, bool DOWN = false, bool ZIGZAG = false,
          bool L2LAST = false>
__global__ void __launch_bounds__(1024)
    march3t_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                  std::int64_t chunk, int wx, Change c) {
  march3t_either<T, V, NORM, RANGE, DOWN, ZIGZAG, L2LAST>(r, u, out, src, inv, chunk, wx, c);
}

// Single: at most kTmaSingleRegisters a thread (stencil_plan.hpp), so that two blocks of 18
// warps fit a multiprocessor.
template <class T, int V, bool NORM, bool RANGE = false, bool DOWN = false, bool ZIGZAG = false,
          bool L2LAST = false>
__global__ void __maxnreg__(kTmaSingleRegisters)
    march3t_lean_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                       std::int64_t chunk, int wx, Change c) {
  march3t_either<T, V, NORM, RANGE, DOWN, ZIGZAG, L2LAST>(r, u, out, src, inv, chunk, wx, c);
}

}  // namespace mm::stencil
