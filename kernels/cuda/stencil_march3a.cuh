// cuda-norm's 3D march with its loads issued ahead as asynchronous copies into shared memory
// (march3a_sweep, --tune ahead=async1|async2), and on the host the choice of cuda-norm's
// marching kernel (one row a thread) for a tuning and its launch, shared by cuda-norm's and
// cuda-timetile's runners (kernels/cuda/jacobi.cu, jacobi_timetile.cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/cuda_util.cuh"
#include "cuda/stencil_march.cuh"
#include "cuda/stencil_plan.hpp"

namespace mm::stencil {

// Asynchronous copies global -> shared (cp.async, sm_80 on): BYTES (4, 8 or 16) in the
// thread's current group; 16-byte copies bypass L1 (.cg). copy_commit closes the group,
// copy_wait<N> waits until at most N of the thread's groups are still in flight.
template <int BYTES>
__device__ __forceinline__ void copy_async(void* dst, const void* src) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16);
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(src), "n"(BYTES)
                 : "memory");
}
__device__ __forceinline__ void copy_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void copy_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// The 3D march of march3v_sweep (one row a thread: the same blocks, threads, points, update
// and change, so the same grid and change bit for bit), its loads issued D steps ahead as
// asynchronous copies into shared memory (--tune ahead=async1|async2): step p's unit, the
// thread's row of plane p + 1, the rows beside it of plane p and the row's end value, lands
// in stage p mod (D + 1), private to the thread (no barrier). Its in-flight data takes no
// registers (march3v's AHEAD holds the next step's in registers: 60 instead of 40 in double,
// 4-5 blocks a multiprocessor instead of 6-8), so D units a thread are in flight at the
// occupancy of the plain march, bounded by the shared memory instead (stencil_plan.hpp,
// march_async_shared: D = 1, 112 bytes a thread in double; D = 2, 168).
template <class T, int V, bool NORM, bool RANGE = false, int D = 1>
__global__ void __launch_bounds__(512, 3)
    march3a_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                  std::int64_t chunk, int wx, double* slot, double* partials, unsigned* counter) {
  using Vt = Vec<T, V>;
  constexpr int S = D + 1;
  static_assert(D >= 1 && V <= 32);
  extern __shared__ __align__(16) unsigned char march3a_smem[];
  const int nt = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  // Stage s: vecs[(3 s + 0..2) nt + t] the row above, the row below, the row after (y);
  // ends[s nt + t] the row's end value.
  Vt* const vecs = reinterpret_cast<Vt*>(march3a_smem);
  T* const ends = reinterpret_cast<T*>(vecs + 3 * S * nt);
  const int lane = t % 32, warp = t / 32;
  const int wy = nt / 32 / wx;
  const std::int64_t n = r.n, nn = n * n;
  const std::int64_t x0 = ((blockIdx.x * std::int64_t{wx} + warp % wx) * 32 + lane) * V;
  const std::int64_t y0 = 1 + blockIdx.y * std::int64_t{wy} + warp / wx;
  const std::int64_t k0 = (RANGE ? r.k_lo : 1) + blockIdx.z * chunk;
  const std::int64_t k_end = RANGE ? r.k_hi : n - 1;
  const std::int64_t k1 = k0 + chunk < k_end ? k0 + chunk : k_end;
  const bool in_x = x0 < n;
  const bool row_ok = in_x && y0 <= n - 1, lo_ok = in_x, hi_ok = in_x && y0 + 1 <= n - 1;
  const bool end_ok = row_ok && ((lane == 0 && x0 > 0) || (lane == 31 && x0 + V < n));
  const int end_at = lane == 0 ? -1 : V;
  unsigned interior = 0, heat = 0;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const std::int64_t i = x0 + e;
    if (in_x && y0 <= n - 2 && i >= 1 && i <= n - 2) interior |= 1u << e;
    if (within(i, r.rx0, r.rx1) && within(y0, r.ry0, r.ry1)) heat |= 1u << e;
  }
  // What is never copied reads as 0 (march3v's loads it does not make).
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if (!row_ok) vecs[(3 * s) * nt + t] = Vt{};
    if (!lo_ok) vecs[(3 * s + 1) * nt + t] = Vt{};
    if (!hi_ok) vecs[(3 * s + 2) * nt + t] = Vt{};
    if (!end_ok) ends[s * nt + t] = T(0);
  }
  // Steps k0 + i, i < steps, with 32-bit counts; the radiator's planes as steps.
  const int steps = static_cast<int>(k1 - k0);
  const int hz0 = static_cast<int>(r.rz0 - k0 < -1 ? -1 : r.rz0 - k0);
  const int hz1 = static_cast<int>(r.rz1 - k0 < steps ? r.rz1 - k0 : steps);
  const int rn = static_cast<int>(n);
  Vt* const mine = vecs + t;  // the thread's vectors of stage 0
  T* const my_end = ends + t;
  const int stage = 3 * nt;  // vectors from one stage of the thread's to the next
  // Step k0 + i's unit into stage S_, from C: the thread's point of plane k0 + i.
  const auto issue = [&](const T* c, int s_) {
    if (row_ok) copy_async<sizeof(Vt)>(mine + s_ * stage, c + nn);
    if (lo_ok) copy_async<sizeof(Vt)>(mine + s_ * stage + nt, c - rn);
    if (hi_ok) copy_async<sizeof(Vt)>(mine + s_ * stage + 2 * nt, c + rn);
    if (end_ok) copy_async<sizeof(T)>(my_end + s_ * nt, c + end_at);
  };
  const T* c = u + k0 * nn + y0 * n + x0;  // plane k0, then the plane of the next unit issued
  Vt below = row_ok ? load<T, V>(c - nn) : Vt{};
  Vt center = row_ok ? load<T, V>(c) : Vt{};
#pragma unroll
  for (int i = 0; i < D; ++i, c += nn) {
    if (i < steps) issue(c, i);
    copy_commit();
  }
  T* op = out + k0 * nn + y0 * n + x0;
  double change = 0;
  int s = 0;  // step i's stage
  for (int i = 0; i < steps; ++i, op += nn, c += nn) {
    // Step i + D's unit into the stage step i - 1 read (S = D + 1: no other is free).
    if (i + D < steps) issue(c, s == 0 ? S - 1 : s - 1);
    copy_commit();
    copy_wait<D>();  // step i's unit is in
    const Vt* const got = mine + s * stage;
    const Vt above = got[0], lo = got[nt], hi = got[2 * nt];
    T left, right;
    x_neighbours<T, V>(center, my_end[s * nt], lane, left, right);
    const bool heat_z = i >= hz0 && i <= hz1;
    Vt res;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const unsigned bit = 1u << e;
      const T l = e == 0 ? left : center.v[e > 0 ? e - 1 : 0];
      const T rr = e == V - 1 ? right : center.v[e < V - 1 ? e + 1 : 0];
      const T f = heat_z && (heat & bit) ? src : T(0);
      const T v = update(l, rr, lo.v[e], hi.v[e], below.v[e], above.v[e], f, inv);
      res.v[e] = interior & bit ? v : center.v[e];
      if constexpr (NORM)
        if (interior & bit) change += sq_change(v, center.v[e]);
    }
    if (in_x && y0 <= n - 2) store<T, V>(op, res);
    below = center;
    center = above;
    s = s == S - 1 ? 0 : s + 1;
  }
  if constexpr (NORM)
    reduce_change(change, slot, partials, counter,
                  blockIdx.x + gridDim.x * (blockIdx.y + std::int64_t{gridDim.y} * blockIdx.z),
                  std::int64_t{gridDim.x} * gridDim.y * gridDim.z);
}

// ---- host: which marching kernel, and its launch ------------------------------------------

// A marching sweep: its arguments are the same for every V, RY, NORM and way of loading.
template <class T>
using MarchFn = void (*)(Room, const T*, T*, T, T, std::int64_t, int, double*, double*, unsigned*);

// cuda-norm's sweep of one row a thread (2D: march2v) for vectors of VEC values, its loads
// issued as A says (3D).
template <class T, int V, bool NORM, bool RANGE>
MarchFn<T> march_row_as(int dim, Ahead a) {
  if (dim == 2) return &march2v_sweep<T, V, kMarch2Warps, NORM, RANGE>;
  switch (a) {
    case Ahead::regs:
      return &march3v_sweep<T, V, 1, NORM, RANGE, true>;
    case Ahead::async1:
      return &march3a_sweep<T, V, NORM, RANGE, 1>;
    case Ahead::async2:
      return &march3a_sweep<T, V, NORM, RANGE, 2>;
    default:
      return &march3v_sweep<T, V, 1, NORM, RANGE>;
  }
}
template <class T, bool NORM, bool RANGE = false>
MarchFn<T> march_row_fn(int dim, int vec, Ahead a) {
  if constexpr (sizeof(T) == 4)
    if (vec == 4) return march_row_as<T, 4, NORM, RANGE>(dim, a);
  return vec == 2 ? march_row_as<T, 2, NORM, RANGE>(dim, a)
                  : march_row_as<T, 1, NORM, RANGE>(dim, a);
}

// cuda-norm's launch of ROOM (one row a thread) under tuning T_, planned by plan_march with
// the occupancy of the kernel the tuning picks: both its forms (with and without the change)
// may take the launch's dynamic shared memory.
template <class T, bool RANGE = false>
Launch plan_march_rows(const HeatedRoom& room, int vec, const JacobiTuning& t_,
                       std::int64_t planes = -1) {
  const Ahead a = march_ahead(t_);
  const int depth = room.dim == 3 ? march_async_depth(a) : 0;
  const MarchFn<T> with = march_row_fn<T, true, RANGE>(room.dim, vec, a);
  const MarchFn<T> without = march_row_fn<T, false, RANGE>(room.dim, vec, a);
  Launch l = plan_march(
      room, vec, 1, false, t_, cuda::multiprocessors(),
      [&](int threads) {
        const std::size_t shared = march_async_shared(sizeof(T), vec, depth, threads);
        for (const MarchFn<T> f : {with, without})
          MM_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(f),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared)));
        int per_sm = 0;
        MM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, with, threads, shared));
        return per_sm;
      },
      planes);
  l.shared = march_async_shared(sizeof(T), vec, depth, l.threads);
  return l;
}

}  // namespace mm::stencil
