// The time-tiled heated-room sweep (cuda-timetile): L Jacobi sweeps of the 3D room in one pass
// through memory, the grid bit for bit that of L plain sweeps (the same update() as cuda-norm's
// march). Included by kernels/cuda/jacobi_timetile.cu; the launch shape is timetile_plan.hpp's.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/stencil_march.cuh"
#include "cuda/timetile_plan.hpp"

namespace mm::timetile {

using stencil::Room;
using stencil::within;

// 2.5D blocking. A block owns a tile of 64 x 8R points of (x, y), its halo of L points a side
// included (timetile_plan.hpp), and marches along z through the planes [z0 - L, z1 + L) that
// its chunk [z0, z1) of output planes needs. A thread holds a column of x and R rows of y.
// At step s it takes plane s of u (read one step ahead, AHEAD), and level t = 1..L computes
// plane s - t from level t-1's planes s-t-1 (BL: the thread's own points, registers), s-t (the
// centre plane: in shared memory, written at the step before, read for the neighbours along
// x and y and the point itself) and s-t+1 (the point's own value just computed at level t-1,
// or taken from u). Each new value goes to the other shared buffer as the next step's centre
// plane of its level (one barrier a step: the two buffers alternate), and level L's is
// written to OUT inside the tile's output part and its chunk. A thread walks its rows, and
// each row through the levels, so that only the rows' BL stay in registers between steps
// (L R values; the centre values along y slide through three registers a level).
// Each point of u is so read once and written once a pass (the halo's points are read by the
// two tiles beside, the second time mostly from L2), and every level computes each point with
// the plain sweep's update() from the same values, so the result is that of L plain sweeps
// bit for bit. Points outside the tile's valid region at a level (its outer L - t points, the
// planes before the chunk's first) hold values that no written point depends on. Walls keep
// their value at every level (the point's centre is passed on), as both grids hold the walls.
// With NORM the squared change of level L (against level L-1) over the written points is
// reduced by the grid's last block into *SLOT (stencil::reduce_change).
template <class T, int L, int R, bool NORM>
__global__ void __launch_bounds__(kThreads, 1)
    timetile3_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                    std::int64_t chunk, double* slot, double* partials, unsigned* counter) {
  static_assert(L >= 1 && R >= 1 && R <= 32 && 2 * L < kThreadsY * R);
  constexpr int H = kThreadsY * R;  // rows of the tile
  constexpr int P = kTileX + 2;     // a shared row: the tile's 64 points and a border point
  constexpr int PLANE = (H + 2) * P;
  extern __shared__ __align__(16) unsigned char timetile_smem[];
  T* const sh = reinterpret_cast<T*>(timetile_smem);

  // Indices within the room (Ix: 32 bits up to kMaxIndex32Levels) and the offsets of points within
  // a plane.
  using Ix = std::conditional_t<L <= kMaxIndex32Levels, int, std::int64_t>;
  // The plane tests of a step as masks (MASKS): fewer integer instructions a point (ncu: the
  // integer pipe the busiest), more registers. H200, fraction of the copy bound at N = 256..768
  // in one call: single K = 4 0.90 / 1.09 / 1.00 / 1.13 against 0.77 / 0.94 / 0.85 / 0.98 (every
  // K gained 0.10-0.15), double K = 4 0.95 / 1.15 / 1.16 / 1.21 against 0.91 / 1.10 / 1.11 / 1.14;
  // double lost 0.04-0.12 at K = 1..3, which test at each point as before (the same code).
  // H100: single K = 4 1.24 / 1.49 / 1.38 / 1.54 against 1.08 / 1.31 / 1.19 / 1.38, double
  // K = 4 1.33 / 1.58 / 1.60 / 1.66 against 1.24 / 1.50 / 1.51 / 1.55 (bench/results/
  // issue16_sixth_pass_2026-11-25_8fc74d1.md, issue16_seventh_pass_2026-11-25_36f51a4.md).
  constexpr bool masks = sizeof(T) == 4 || L >= 4;
  using Mask = std::conditional_t<L * R <= 32, unsigned, unsigned long long>;
  const int tx = threadIdx.x % kTileX, ty = threadIdx.x / kTileX;
  const Ix n = static_cast<Ix>(r.n);
  const std::int64_t nn = r.n * r.n;
  const Ix x = 1 + static_cast<Ix>(blockIdx.x) * Ix{kTileX - 2 * L} - L + tx;
  const Ix y0 = 1 + static_cast<Ix>(blockIdx.y) * Ix{H - 2 * L} - L + ty * R;
  const Ix z0 = 1 + static_cast<Ix>(blockIdx.z * chunk);
  const Ix z1 = z0 + chunk < n - 1 ? z0 + static_cast<Ix>(chunk) : n - 1;
  const Ix first = z0 - L > 0 ? z0 - L : 0;  // the first plane read
  const Ix last = z1 - 1 + L;                // the last step
  const Ix last_read = last < n - 1 ? last : n - 1;
  // What depends on the thread's points only, as bit q of four masks.
  unsigned loadable = 0, interior = 0, heat = 0, written = 0;
  const bool out_x = tx >= L && tx < kTileX - L;
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const Ix j = y0 + q;
    const int row = ty * R + q;
    if (x >= 0 && x < n && j >= 0 && j < n) loadable |= 1u << q;
    if (x >= 1 && x <= n - 2 && j >= 1 && j <= n - 2) interior |= 1u << q;
    if (within<Ix>(x, r.rx0, r.rx1) && within<Ix>(j, r.ry0, r.ry1)) heat |= 1u << q;
    if ((interior >> q & 1u) && out_x && row >= L && row < H - L) written |= 1u << q;
  }
  const Ix col = y0 * n + x;  // the thread's first point in a plane (may be < 0)

  T bl[L][R], ahead[R];
#pragma unroll
  for (int t = 0; t < L; ++t)
#pragma unroll
    for (int q = 0; q < R; ++q) bl[t][q] = T(0);
  {
    const T* p = u + (first * nn + col);
#pragma unroll
    for (int q = 0; q < R; ++q, p += n) ahead[q] = loadable >> q & 1u ? *p : T(0);
  }
  const int me = (ty * R + 1) * P + tx + 1;  // the thread's first point in a shared plane
  double change = 0;
  for (Ix s = first; s <= last; ++s) {
    const T* const cur = sh + (s & 1) * (L * PLANE) + me;  // the centre planes, levels 0..L-1
    T* const next = sh + (~s & 1) * (L * PLANE) + me;      // the next step's
    const bool more = s + 1 <= last_read;
    const T* p = u + ((s + 1) * nn + col);
    T* o = out + ((s - L) * nn + col);
    const bool write = s - L >= z0 && s - L < z1;
    // Which points level t + 1 updates and heats on its plane (z = s - 1 - t) and which the
    // step writes: with MASKS, bits of this step's masks (bit t R + q for the thread's row q),
    // else tested at each point.
    Mask upd = 0, hot = 0;
    if constexpr (masks) {
#pragma unroll
      for (int t = 0; t < L; ++t) {
        const Ix z = s - 1 - t;
        if (z >= 1 && z <= n - 2) upd |= Mask{interior} << (t * R);
        if (within<Ix>(z, r.rz0, r.rz1)) hot |= Mask{heat} << (t * R);
      }
    }
    const unsigned wr = write ? written : 0u;
    // The centre values of rows q-1, q, q+1 of each level, sliding along q.
    T c_lo[L], c_mid[L];
    __syncthreads();  // the centre planes of step s are complete (and step s-1's are read)
#pragma unroll
    for (int t = 0; t < L; ++t) {
      c_lo[t] = cur[t * PLANE - P];
      c_mid[t] = cur[t * PLANE];
    }
#pragma unroll
    for (int q = 0; q < R; ++q, p += n, o += n) {
      T v = ahead[q];  // level 0's plane s
      if (more) ahead[q] = loadable >> q & 1u ? *p : T(0);
      next[q * P] = v;
#pragma unroll
      for (int t = 0; t < L; ++t) {  // level t + 1 from level t, plane z
        const Ix z = s - 1 - t;
        const T* const c = cur + t * PLANE + q * P;
        const T c_hi = c[P];
        const bool hot_tq = masks ? (hot >> (t * R + q) & 1u) != 0
                                  : within<Ix>(z, r.rz0, r.rz1) && (heat >> q & 1u);
        const T f = hot_tq ? src : T(0);
        const T w = stencil::update(c[-1], c[1], c_lo[t], c_hi, bl[t][q], v, f, inv);
        const bool upd_tq =
            masks ? (upd >> (t * R + q) & 1u) != 0 : z >= 1 && z <= n - 2 && (interior >> q & 1u);
        const T res = upd_tq ? w : c_mid[t];
        if constexpr (NORM && masks) {
          if (t == L - 1 && (wr >> q & 1u)) change += stencil::sq_change(w, c_mid[t]);
        } else if constexpr (NORM) {
          if (t == L - 1 && write && (written >> q & 1u)) change += stencil::sq_change(w, c_mid[t]);
        }
        bl[t][q] = c_mid[t];
        c_lo[t] = c_mid[t];
        c_mid[t] = c_hi;
        if (t < L - 1) next[(t + 1) * PLANE + q * P] = res;
        v = res;
      }
      if (masks ? (wr >> q & 1u) != 0 : write && (written >> q & 1u)) *o = v;
    }
  }
  if constexpr (NORM)
    stencil::reduce_change(
        change, slot, partials, counter,
        blockIdx.x + gridDim.x * (blockIdx.y + std::int64_t{gridDim.y} * blockIdx.z),
        std::int64_t{gridDim.x} * gridDim.y * gridDim.z);
}

}  // namespace mm::timetile
