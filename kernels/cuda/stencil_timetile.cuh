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

// The W points at P into A, those of BITS (bit e: point e) read, the others 0: one access of
// 8 or 16 bytes with VEC (then all W are in the room or none), else one a point.
template <class T, int W, bool VEC>
__device__ __forceinline__ void read_points(const T* p, unsigned bits, T (&a)[W]) {
  if constexpr (VEC) {
    const stencil::Vec<T, W> v = bits ? stencil::load<T, W>(p) : stencil::Vec<T, W>{};
#pragma unroll
    for (int e = 0; e < W; ++e) a[e] = v.v[e];
  } else {
#pragma unroll
    for (int e = 0; e < W; ++e) a[e] = bits >> e & 1u ? p[e] : T(0);
  }
}

// The shared planes of a sweep's block: the dynamic shared memory, as values of T.
template <class T>
__device__ __forceinline__ T* tile_planes() {
  extern __shared__ __align__(16) unsigned char timetile_smem[];
  return reinterpret_cast<T*>(timetile_smem);
}

// 2.5D blocking. A block owns a tile of 64 x H points of (x, y), its halo of L points a side
// included (timetile_plan.hpp), and marches along z through the planes [z0 - L, z1 + L) that
// its chunk [z0, z1) of output planes needs. A thread holds W points of x in each of R rows of
// y. At step s it takes plane s of u (read one step ahead, AHEAD), and level t = 1..L computes
// plane s - t from level t-1's planes s-t-1 (BL: the thread's own points, registers), s-t (the
// centre plane: in shared memory, written at the step before, read for the neighbours along
// x and y and the points themselves) and s-t+1 (the points' own values just computed at level
// t-1, or taken from u). Each new value goes to the other shared buffer as the next step's
// centre plane of its level (one barrier a step: the two buffers alternate), and level L's is
// written to OUT inside the tile's output part and its chunk. A thread walks its rows, and
// each row through the levels, so that only the rows' BL stay in registers between steps
// (L W R values; the centre values along y slide through three registers a level and point).
// Each point of u is so read once and written once a pass (the halo's points are read by the
// two tiles beside, the second time mostly from L2), and every level computes each point with
// the plain sweep's update() from the same values, so the result is that of L plain sweeps
// bit for bit. Points outside the tile's valid region at a level (its outer L - t points but on
// a wall's side, the planes before the chunk's first) hold values that no written point depends
// on. Walls keep their value at every level (the point's centre is passed on), as both grids
// hold the walls: so the tiles at a wall write up to it (timetile_plan.hpp: Axis).
// With NORM the squared change of level L (against level L-1) over the written points is added
// to CHANGE. With VEC (W = 2 and N even: the host's choice) a thread's points are one 16-byte
// access in memory too. march_column marches the tile (BX, BY) through its chunk of output
// planes [z0, z1): from 1 + FROM, PLANES of them, at most up to n - 2; the tiles along y start
// at Y_FIRST (timetile_plan.hpp's y_axis).
template <class T, int L, int W, int R, bool NORM, bool VEC>
__device__ __forceinline__ void march_column(const Room& r, const T* __restrict__ u,
                                             T* __restrict__ out, T src, T inv, std::int64_t bx,
                                             std::int64_t by, int y_first, std::int64_t from,
                                             std::int64_t planes, double& change) {
  constexpr Shape S{W, R};
  static_assert((W == 1 || W == 2) && (W == 2 || !VEC) && R >= 1 && W * R <= 32 && S.out_y(L) > 0);
  constexpr int TX = S.threads_x();
  constexpr int P = S.shared_row();            // a shared row
  constexpr int PLANE = S.plane_values();      // a shared plane: a border row above and below
  constexpr unsigned kPoints = (1u << W) - 1;  // the bits of one row's points
  using Vw = stencil::Vec<T, W>;
  T* const sh = tile_planes<T>();

  // Indices within the room (Ix: 32 bits up to kMaxIndex32Levels) and the offsets of points within
  // a plane.
  using Ix = std::conditional_t<L <= kMaxIndex32Levels, int, std::int64_t>;
  // The plane tests of a step as masks (MASKS): fewer integer instructions a point (ncu: the
  // integer pipe the busiest), more registers. H200, fraction of the copy bound at N = 256..768
  // in one call (W = 1): single K = 4 0.90 / 1.09 / 1.00 / 1.13 against 0.77 / 0.94 / 0.85 /
  // 0.98 (every K gained 0.10-0.15), double K = 4 0.95 / 1.15 / 1.16 / 1.21 against 0.91 / 1.10
  // / 1.11 / 1.14; double lost 0.04-0.12 at K = 1..3, which test at each point as before (the
  // same code). H100: single K = 4 1.24 / 1.49 / 1.38 / 1.54 against 1.08 / 1.31 / 1.19 / 1.38,
  // double K = 4 1.33 / 1.58 / 1.60 / 1.66 against 1.24 / 1.50 / 1.51 / 1.55 (bench/results/
  // issue16_sixth_pass_2026-11-25_8fc74d1.md, issue16_seventh_pass_2026-11-25_36f51a4.md).
  constexpr bool masks = sizeof(T) == 4 || L >= 4;
  using Mask = std::conditional_t<L * W * R <= 32, unsigned, unsigned long long>;
  // Plane indices (z, the steps) in 32 bits at every level (a room of 2^31 planes would hold
  // 2^93 points): only the offsets into the room need 64 (Ix). H200, fraction of the copy bound
  // at N = 256 / 384 / 512 / 768, K = 4, one call (bench/results/issue16_fortyfourth_pass_*.md):
  // double 1.369 / 1.714 / 1.887 / 1.921 against 1.321 / 1.658 / 1.832 / 1.869 (ptxas, double at
  // 4 levels and R = 2: 110 registers against 116).
  using Iz = int;
  // In single (with MASKS) h^2 f is H F: H 0 or 1 a point (HW), F this step's source at the
  // level's plane, 0 off the radiator's planes (FZ), added by one FMA (stencil::update_fma, the
  // same bits) instead of a mask test and a select a point and level. H200, K = 4, with Iz: single
  // 1.127 / 1.479 / 1.498 / 1.596 against 1.082 / 1.432 / 1.451 / 1.555 (Iz alone) and 1.038 /
  // 1.374 / 1.395 / 1.497 (neither). A predicated add instead lost in single (1.104 / 1.458 /
  // 1.478 / 1.582) and in double (1.294 / 1.622 / 1.791 / 1.832); in double H spills (ptxas).
  constexpr bool heat_fma = masks && sizeof(T) == 4;
  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const Ix n = static_cast<Ix>(r.n);
  const std::int64_t nn = r.n * r.n;
  // The tiles along x and y (Axis), the thread's points x .. x + W - 1 of rows y0 .. y0 + R - 1,
  // and the part of the tile it writes.
  // Y_FIRST where the plan chooses it (y_start_planned: single at 4 levels), the other sweeps'
  // from the wall as a constant: at run time it changed their code (ptxas), and double at 4
  // levels lost 0.3-0.6 of the copy bound on the H200
  // (bench/results/issue16_fortysecond_pass_*.md).
  constexpr Axis AX = x_axis(sizeof(T), L);
  const Axis AY{S.tile_y(), L, y_start_planned(sizeof(T), L) ? y_first : 0};
  const Ix x = static_cast<Ix>(AX.start(bx)) + W * tx;
  const Ix y0 = static_cast<Ix>(AY.start(by)) + ty * R;
  const int col_from = AX.written_from(bx), col_to = AX.written_to(bx, r.n);
  const int row_from = AY.written_from(by), row_to = AY.written_to(by, r.n);
  const Iz nz = static_cast<Iz>(r.n);
  const Iz z0 = 1 + static_cast<Iz>(from);
  const Iz z1 = z0 + planes < nz - 1 ? z0 + static_cast<Iz>(planes) : nz - 1;
  const Iz first = z0 - L > 0 ? z0 - L : 0;  // the first plane read
  const Iz last = z1 - 1 + L;                // the last step
  const Iz last_read = last < nz - 1 ? last : nz - 1;
  // What depends on the thread's points only, as bit W q + e (row q, point e) of four masks.
  unsigned loadable = 0, interior = 0, heat = 0, written = 0;
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const Ix j = y0 + q;
    const int row = ty * R + q;
#pragma unroll
    for (int e = 0; e < W; ++e) {
      const Ix i = x + e;
      const int b = W * q + e, col = W * tx + e;
      if (i >= 0 && i < n && j >= 0 && j < n) loadable |= 1u << b;
      if (i >= 1 && i <= n - 2 && j >= 1 && j <= n - 2) interior |= 1u << b;
      if (within<Ix>(i, r.rx0, r.rx1) && within<Ix>(j, r.ry0, r.ry1)) heat |= 1u << b;
      if ((interior >> b & 1u) && col >= col_from && col < col_to && row >= row_from &&
          row < row_to)
        written |= 1u << b;
    }
  }
  T hw[R][W];  // heat_fma: H, 1 where the point is the radiator's along x and y
  if constexpr (heat_fma) {
#pragma unroll
    for (int q = 0; q < R; ++q)
#pragma unroll
      for (int e = 0; e < W; ++e) hw[q][e] = heat >> (W * q + e) & 1u ? T(1) : T(0);
  }
  // Where pinned_masks, the masks opaque to the compiler from here: one register each.
  if constexpr (pinned_masks(sizeof(T), L)) {
    if constexpr (heat_fma)
      asm("" : "+r"(loadable), "+r"(interior), "+r"(written));
    else
      asm("" : "+r"(loadable), "+r"(interior), "+r"(heat), "+r"(written));
  }
  const Ix col = y0 * n + x;  // the thread's first point in a plane (may be < 0)

  T bl[L][R][W], ahead[R][W];
  // The change of point e added to sums[e % kSums] (change_sums), or to CHANGE itself where one.
  constexpr int kSums = change_sums(sizeof(T), W);
  [[maybe_unused]] double sums[kSums] = {};
  const auto add_change = [&](int e, double sq) {
    if constexpr (kSums == 1)
      change += sq;
    else
      sums[e % kSums] += sq;
  };
#pragma unroll
  for (int t = 0; t < L; ++t)
#pragma unroll
    for (int q = 0; q < R; ++q)
#pragma unroll
      for (int e = 0; e < W; ++e) bl[t][q][e] = T(0);
  {
    const T* p = u + (first * nn + col);
#pragma unroll
    for (int q = 0; q < R; ++q, p += n)
      read_points<T, W, VEC>(p, loadable >> (W * q) & kPoints, ahead[q]);
  }
  const int me = (ty * R + 1) * P + W + W * tx;  // the thread's first point in a shared plane
  for (Iz s = first; s <= last; ++s) {
    const T* const cur = sh + (s & 1) * (L * PLANE) + me;  // the centre planes, levels 0..L-1
    T* const next = sh + (~s & 1) * (L * PLANE) + me;      // the next step's
    const bool more = s + 1 <= last_read;
    const T* p = u + ((s + 1) * nn + col);
    T* o = out + ((s - L) * nn + col);
    const bool write = s - L >= z0 && s - L < z1;
    // Which points level t + 1 updates and heats on its plane (z = s - 1 - t) and which the
    // step writes: with MASKS, bits of this step's masks (bit t W R + W q + e for the thread's
    // row q, point e; heat_fma: the level's source FZ instead of HOT), else tested at each point.
    Mask upd = 0, hot = 0;
    T fz[L];
    if constexpr (masks) {
#pragma unroll
      for (int t = 0; t < L; ++t) {
        const Iz z = s - 1 - t;
        if (z >= 1 && z <= nz - 2) upd |= Mask{interior} << (t * W * R);
        if constexpr (heat_fma)
          fz[t] = within<Iz>(z, r.rz0, r.rz1) ? src : T(0);
        else if (within<Iz>(z, r.rz0, r.rz1))
          hot |= Mask{heat} << (t * W * R);
      }
    }
    const unsigned wr = write ? written : 0u;
    // The centre values of rows q-1, q, q+1 of each level, sliding along q.
    Vw c_lo[L], c_mid[L];
    __syncthreads();  // the centre planes of step s are complete (and step s-1's are read)
#pragma unroll
    for (int t = 0; t < L; ++t) {
      c_lo[t] = stencil::load<T, W>(cur + t * PLANE - P);
      c_mid[t] = stencil::load<T, W>(cur + t * PLANE);
    }
#pragma unroll
    for (int q = 0; q < R; ++q, p += n, o += n) {
      Vw v;  // level 0's plane s
#pragma unroll
      for (int e = 0; e < W; ++e) v.v[e] = ahead[q][e];
      if (more) read_points<T, W, VEC>(p, loadable >> (W * q) & kPoints, ahead[q]);
      stencil::store<T, W>(next + q * P, v);
#pragma unroll
      for (int t = 0; t < L; ++t) {  // level t + 1 from level t, plane z
        const Iz z = s - 1 - t;
        const T* const c = cur + t * PLANE + q * P;
        const Vw hi = stencil::load<T, W>(c + P);
        // A row of the tile is one warp where TX = 32 (W = 2): in double the x neighbours are
        // the lanes beside, by shuffles rather than two more shared-memory loads a level (ncu:
        // the sweep is held by the shared-memory pipe, 71-74% of its peak). Lane 0's left and
        // lane 31's right are the tile's outer halo, whose results no written point depends on
        // (as the shared border they read before). H200, fraction of the copy bound at N = 256
        // / 384 / 512 / 768 in one call: double K = 4 1.12 / 1.40 / 1.56 / 1.50 against 1.08 /
        // 1.35 / 1.51 / 1.45, K = 3 gained as much; single lost (K = 3 -0.01 to 0, K = 4 0.07-0.10:
        // its 8-byte pairs read the neighbours in two wavefronts already), so it keeps the loads
        // (bench/results/issue16_twentyfourth_pass_2026-11-29_45c6ac6.md).
        T left, right;
        if constexpr (TX == 32 && sizeof(T) == 8) {
          left = __shfl_up_sync(0xffffffffu, c_mid[t].v[W - 1], 1);
          right = __shfl_down_sync(0xffffffffu, c_mid[t].v[0], 1);
        } else {
          left = c[-1], right = c[W];
        }
        Vw res;
#pragma unroll
        for (int e = 0; e < W; ++e) {
          const int b = W * q + e;
          const T west = e == 0 ? left : c_mid[t].v[e > 0 ? e - 1 : 0];
          const T east = e == W - 1 ? right : c_mid[t].v[e + 1 < W ? e + 1 : 0];
          T w;
          if constexpr (heat_fma) {
            w = stencil::update_fma(west, east, c_lo[t].v[e], hi.v[e], bl[t][q][e], v.v[e],
                                    hw[q][e], fz[t], inv);
          } else {
            const bool hot_b = masks ? (hot >> (t * W * R + b) & 1u) != 0
                                     : within<Iz>(z, r.rz0, r.rz1) && (heat >> b & 1u);
            const T f = hot_b ? src : T(0);
            w = stencil::update(west, east, c_lo[t].v[e], hi.v[e], bl[t][q][e], v.v[e], f, inv);
          }
          const bool upd_b = masks ? (upd >> (t * W * R + b) & 1u) != 0
                                   : z >= 1 && z <= nz - 2 && (interior >> b & 1u);
          res.v[e] = upd_b ? w : c_mid[t].v[e];
          if constexpr (NORM && masks) {
            if constexpr (selected_change(L)) {
              if (t == L - 1)
                add_change(e,
                           stencil::sq_change((wr >> b & 1u) ? w : c_mid[t].v[e], c_mid[t].v[e]));
            } else if (t == L - 1 && (wr >> b & 1u)) {
              add_change(e, stencil::sq_change(w, c_mid[t].v[e]));
            }
          } else if constexpr (NORM) {
            if (t == L - 1 && write && (written >> b & 1u))
              add_change(e, stencil::sq_change(w, c_mid[t].v[e]));
          }
          bl[t][q][e] = c_mid[t].v[e];
        }
        c_lo[t] = c_mid[t];
        c_mid[t] = hi;
        if (t < L - 1) stencil::store<T, W>(next + (t + 1) * PLANE + q * P, res);
        v = res;
      }
      const unsigned wb = masks   ? wr >> (W * q) & kPoints
                          : write ? written >> (W * q) & kPoints
                                  : 0u;
      if (VEC && wb == kPoints) {
        stencil::store<T, W>(o, v);
      } else {
#pragma unroll
        for (int e = 0; e < W; ++e)
          if (wb >> e & 1u) o[e] = v.v[e];
      }
    }
  }
  if constexpr (kSums > 1) {
#pragma unroll
    for (int i = 0; i < kSums; ++i) change += sums[i];
  }
}

// The time-tiled sweep: each block marches its chunk of a column (a 3D grid), or where
// even_split(L) its planes of the Split (a 1D grid), a column at a time; with NORM the squared
// change of its written points is reduced by the grid's last block into *SLOT
// (stencil::reduce_change). Successive columns need no barrier between them: each step begins
// with one, and its threads read and write shared memory after it only.
template <class T, int L, int W, int R, bool NORM, bool VEC>
__global__ void __launch_bounds__(kThreads, 1)
    timetile3_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv, Split sp,
                    double* slot, double* partials, unsigned* counter) {
  double change = 0;
  if constexpr (NORM && selected_change(L)) {
    // The sweep then adds the change of every point of the last level, +0 where not written,
    // from values that must be finite there too: the shared planes start at 0, not at what the
    // memory held (the halo's outer points and the first steps read them before any write).
    constexpr int kShared = Shape{W, R}.shared_values(L);
    T* const sh = tile_planes<T>();
    for (int i = threadIdx.x; i < kShared; i += kThreads) sh[i] = T(0);
  }
  if constexpr (even_split(L)) {
    for_each_share(sp, blockIdx.x, r.n - 2, [&](std::int64_t c, std::int64_t z0, std::int64_t z1) {
      march_column<T, L, W, R, NORM, VEC>(r, u, out, src, inv, c % sp.gx, c / sp.gx, sp.y_first,
                                          z0 - 1, z1 - z0, change);
    });
  } else {
    march_column<T, L, W, R, NORM, VEC>(r, u, out, src, inv, blockIdx.x, blockIdx.y, sp.y_first,
                                        blockIdx.z * sp.span, sp.span, change);
  }
  if constexpr (NORM)
    stencil::reduce_change(change, slot, partials, counter, stencil::grid_block(),
                           stencil::grid_blocks());
}

}  // namespace mm::timetile
