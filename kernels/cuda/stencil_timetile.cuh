// The time-tiled heated-room sweep (cuda-timetile): L Jacobi sweeps of the 3D room in one pass
// through memory, the grid bit for bit that of L plain sweeps (the same update() as cuda-norm's
// march). Included by kernels/cuda/jacobi_timetile.cu; the launch shape is timetile_plan.hpp's.
#pragma once

#include <cstdint>

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
// One step of timetile3_sweep: its rows through the levels. The shared loads of a row (its
// neighbours along x and the centre of the row after, for every level) are issued before the
// stores of the row before: the compiler keeps shared loads and stores in program order (it
// cannot tell that CUR and NEXT never overlap), so loading a row ahead is what lets their
// latency hide behind the row before's arithmetic.
template <class T, int L, int R, bool NORM>
__device__ __forceinline__ void timetile_step(const T* cur, T* next, const T* __restrict__ p,
                                              T* __restrict__ o, bool more, bool write,
                                              std::int64_t s, std::int64_t n, const Room& r,
                                              unsigned loadable, unsigned interior, unsigned heat,
                                              unsigned written, T (&bl)[L][R], T (&ahead)[R],
                                              double& change, T src, T inv) {
  constexpr int P = kTileX + 2;
  constexpr int PLANE = (kThreadsY * R + 2) * P;
  // Per level: its plane inside the room's interior, and in the radiator's range of z.
  bool z_in[L], heat_z[L];
#pragma unroll
  for (int t = 0; t < L; ++t) {
    const std::int64_t z = s - 1 - t;
    z_in[t] = z >= 1 && z <= n - 2;
    heat_z[t] = within(z, r.rz0, r.rz1);
  }
  // Each level's centre values of rows q-1 and q (sliding along q), and row q's neighbours
  // along x and the centre of row q+1, loaded a row ahead.
  T c_lo[L], c_mid[L], xl[L], xr[L], c_hi[L];
#pragma unroll
  for (int t = 0; t < L; ++t) {
    const T* const c = cur + t * PLANE;
    c_lo[t] = c[-P];
    c_mid[t] = c[0];
    xl[t] = c[-1];
    xr[t] = c[1];
    c_hi[t] = c[P];
  }
#pragma unroll
  for (int q = 0; q < R; ++q) {
    T nxl[L], nxr[L], nhi[L];
    if (q + 1 < R)
#pragma unroll
      for (int t = 0; t < L; ++t) {
        const T* const c = cur + t * PLANE + (q + 1) * P;
        nxl[t] = c[-1];
        nxr[t] = c[1];
        nhi[t] = c[P];
      }
    T v = ahead[q];  // level 0's plane s
    if (more) ahead[q] = loadable >> q & 1u ? p[q * n] : T(0);
    next[q * P] = v;
#pragma unroll
    for (int t = 0; t < L; ++t) {  // level t + 1 from level t
      const T f = heat_z[t] && (heat >> q & 1u) ? src : T(0);
      const T w = stencil::update(xl[t], xr[t], c_lo[t], c_hi[t], bl[t][q], v, f, inv);
      const T res = z_in[t] && (interior >> q & 1u) ? w : c_mid[t];
      if constexpr (NORM)
        if (t == L - 1 && write && (written >> q & 1u)) change += stencil::sq_change(w, c_mid[t]);
      bl[t][q] = c_mid[t];
      if (t < L - 1) next[(t + 1) * PLANE + q * P] = res;
      v = res;
    }
    if (write && (written >> q & 1u)) o[q * n] = v;
#pragma unroll
    for (int t = 0; t < L; ++t) {
      c_lo[t] = c_mid[t];
      c_mid[t] = c_hi[t];
      if (q + 1 < R) xl[t] = nxl[t], xr[t] = nxr[t], c_hi[t] = nhi[t];
    }
  }
}

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

  const int tx = threadIdx.x % kTileX, ty = threadIdx.x / kTileX;
  const std::int64_t n = r.n, nn = n * n;
  const std::int64_t x = 1 + blockIdx.x * std::int64_t{kTileX - 2 * L} - L + tx;
  const std::int64_t y0 = 1 + blockIdx.y * std::int64_t{H - 2 * L} - L + ty * R;
  const std::int64_t z0 = 1 + blockIdx.z * chunk;
  const std::int64_t z1 = z0 + chunk < n - 1 ? z0 + chunk : n - 1;
  const std::int64_t first = z0 - L > 0 ? z0 - L : 0;  // the first plane read
  const std::int64_t last = z1 - 1 + L;                // the last step
  const std::int64_t last_read = last < n - 1 ? last : n - 1;
  // What depends on the thread's points only, as bit q of four masks.
  unsigned loadable = 0, interior = 0, heat = 0, written = 0;
  const bool out_x = tx >= L && tx < kTileX - L;
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const std::int64_t j = y0 + q;
    const int row = ty * R + q;
    if (x >= 0 && x < n && j >= 0 && j < n) loadable |= 1u << q;
    if (x >= 1 && x <= n - 2 && j >= 1 && j <= n - 2) interior |= 1u << q;
    if (within(x, r.rx0, r.rx1) && within(j, r.ry0, r.ry1)) heat |= 1u << q;
    if ((interior >> q & 1u) && out_x && row >= L && row < H - L) written |= 1u << q;
  }
  const std::int64_t col = y0 * n + x;  // the thread's first point in a plane (may be < 0)

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
  for (std::int64_t s = first; s <= last; ++s) {
    const T* const cur = sh + (s & 1) * (L * PLANE) + me;  // the centre planes, levels 0..L-1
    T* const next = sh + (~s & 1) * (L * PLANE) + me;      // the next step's
    const bool more = s + 1 <= last_read;
    const T* const p = u + ((s + 1) * nn + col);
    T* const o = out + ((s - L) * nn + col);
    const bool write = s - L >= z0 && s - L < z1;
    __syncthreads();  // the centre planes of step s are complete (and step s-1's are read)
    timetile_step<T, L, R, NORM>(cur, next, p, o, more, write, s, n, r, loadable, interior, heat,
                                 written, bl, ahead, change, src, inv);
  }
  if constexpr (NORM)
    stencil::reduce_change(
        change, slot, partials, counter,
        blockIdx.x + gridDim.x * (blockIdx.y + std::int64_t{gridDim.y} * blockIdx.z),
        std::int64_t{gridDim.x} * gridDim.y * gridDim.z);
}

}  // namespace mm::timetile
