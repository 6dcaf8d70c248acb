// The plain CUDA Jacobi kernels: the heated room's start grid and its naive, coalesced 3D
// and 2D tile sweeps, the sparse system's fused sweep, and the block-partial change reduction
// they share. Included by kernels/cuda/jacobi.cu only (the vectorised marching sweeps are in
// stencil_march.cuh, the launch shapes in stencil_plan.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "cuda/cuda_util.cuh"
#include "cuda/stencil_march.cuh"
#include "cuda/stencil_plan.hpp"
#include "cuda/warp.cuh"

namespace mm::jacobi_kernels {

using stencil::kThreads;
using stencil::kTileX;
using stencil::kTileY;
using stencil::Room;
using stencil::sq_change;
using stencil::within;

// The final reduction is one block: wide, so each thread has only a few partials to load
// (it sits between two sweeps when the change is wanted every sweep).
constexpr int kReduceThreads = 1024;

// How a sweep hands back its squared change: not at all, one atomicAdd per block into the
// slot (zeroed before), or one partial per block summed by sum_partials into the slot.
enum class NormMode { none, atomic, partial };

// Every thread of the block calls this (it holds barriers).
template <NormMode M>
__device__ __forceinline__ void hand_back(double change, double* slot, double* partials,
                                          std::int64_t block) {
  if constexpr (M != NormMode::none) {
    change = cuda::block_sum<kThreads>(change);
    if (threadIdx.x == 0) {
      if constexpr (M == NormMode::atomic)
        atomicAdd(slot, change);
      else
        partials[block] = change;
    }
  }
}

// One block sums COUNT partials in a fixed order (the norm is the same every run).
static __global__ void __launch_bounds__(kReduceThreads)
    sum_partials(const double* __restrict__ partials, std::int64_t count,
                 double* __restrict__ slot) {
  double s = 0;
#pragma unroll 4
  for (std::int64_t b = threadIdx.x; b < count; b += kReduceThreads) s += partials[b];
  s = cuda::block_sum<kReduceThreads>(s);
  if (threadIdx.x == 0) *slot = s;
}

// The starting grid: walls as heated_room_init sets them, INTERIOR inside.
template <class T>
__global__ void __launch_bounds__(kThreads)
    init_room(std::int64_t n, int dim, T* __restrict__ u, T interior) {
  const std::int64_t points = dim == 3 ? n * n * n : n * n;
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; t < points;
       t += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const std::int64_t i = t % n, j = t / n % n, k = t / (n * n);
    const bool wall =
        i == 0 || i == n - 1 || j == 0 || j == n - 1 || (dim == 3 && (k == 0 || k == n - 1));
    u[t] = !wall ? interior : j == 0 ? T(0) : T(20);
  }
}

// Queues init_room over ROOM's grid G (on the default stream): at most 8 blocks a multiprocessor.
template <class T>
void fill_room(const HeatedRoom& room, T* g, T interior) {
  const std::int64_t blocks = std::min<std::int64_t>(stencil::ceil_div(room.points(), kThreads),
                                                     8 * std::int64_t{cuda::multiprocessors()});
  init_room<T><<<blocks, kThreads>>>(room.n, room.dim, g, interior);
  MM_CUDA_LAUNCHED("jacobi init_room");
}

// The room's two grids on the device, which a run's sweeps read and write in turn (cuda-norm's
// and cuda-timetile's runners). Grid 1 keeps its walls for good; its interior starts as NaN,
// so that a point no sweep writes shows in the result. start() sets grid 0 to x_0 (every run).
template <class T>
class RoomGrids {
 public:
  void allocate(const HeatedRoom& room) {
    room_ = room;
    grid_[0] = cuda::Buffer<T>(points());
    grid_[1] = cuda::Buffer<T>(points());
    poison();
  }
  void start() { fill_room(room_, grid_[0].get(), T(0)); }
  // Grid 1's interior NaN again (after sweeps run outside a run: cuda-norm's plan search).
  void poison() { fill_room(room_, grid_[1].get(), std::numeric_limits<T>::quiet_NaN()); }
  T* operator[](int i) { return grid_[i].get(); }
  void download(int i, T* u) const { grid_[i].download(u, points()); }

 private:
  std::size_t points() const { return static_cast<std::size_t>(room_.points()); }
  HeatedRoom room_{};
  cuda::Buffer<T> grid_[2];
};

// The course's mapping: a thread per interior point, consecutive threads along the slowest
// index (z in 3D, y in 2D), so a warp's accesses lie N^2 (N) elements apart.
template <class T, int DIM, NormMode M>
__global__ void __launch_bounds__(kThreads)
    naive_sweep(Room r, const T* u, T* out, T src, T inv, double* slot, double* partials) {
  const std::int64_t n = r.n, m = n - 2;
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  double change = 0;
  if (t < (DIM == 3 ? m * m * m : m * m)) {
    std::int64_t i, j, k = 0;
    if constexpr (DIM == 3) {
      k = 1 + t % m;
      j = 1 + t / m % m;
      i = 1 + t / (m * m);
    } else {
      j = 1 + t % m;
      i = 1 + t / m;
    }
    const std::int64_t c = (k * n + j) * n + i;
    // The neighbours summed in the reference's order: both round alike.
    T v = u[c - 1] + u[c + 1];
    v = v + u[c - n];
    v = v + u[c + n];
    bool heat = within(i, r.rx0, r.rx1) && within(j, r.ry0, r.ry1);
    if constexpr (DIM == 3) {
      v = v + u[c - n * n];
      v = v + u[c + n * n];
      heat = heat && within(k, r.rz0, r.rz1);
    }
    v = (v + (heat ? src : T(0))) * inv;
    out[c] = v;
    if constexpr (M != NormMode::none) change = sq_change(v, u[c]);
  }
  hand_back<M>(change, slot, partials, blockIdx.x);
}

// 3D, coalesced: a 32 x 8 tile of (x, y) marches along z through planes [k0, k1), keeping
// the point below, the point itself and the point above in registers; the four in-plane
// neighbours come from the cache (the tile's own loads of the plane).
template <class T, NormMode M>
__global__ void __launch_bounds__(kThreads)
    march3_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv,
                 std::int64_t chunk, double* slot, double* partials) {
  const std::int64_t n = r.n, nn = n * n;
  const std::int64_t i = 1 + blockIdx.x * static_cast<std::int64_t>(kTileX) + threadIdx.x % kTileX;
  const std::int64_t j = 1 + blockIdx.y * static_cast<std::int64_t>(kTileY) + threadIdx.x / kTileX;
  const std::int64_t k0 = 1 + blockIdx.z * chunk;
  const std::int64_t k1 = k0 + chunk < n - 1 ? k0 + chunk : n - 1;
  double change = 0;
  if (i < n - 1 && j < n - 1 && k0 < n - 1) {
    const bool heat_xy = within(i, r.rx0, r.rx1) && within(j, r.ry0, r.ry1);
    std::int64_t c = (k0 * n + j) * n + i;
    T below = u[c - nn], center = u[c];
#pragma unroll 2
    for (std::int64_t k = k0; k < k1; ++k, c += nn) {
      const T above = u[c + nn];
      T v = u[c - 1] + u[c + 1];
      v = v + u[c - n];
      v = v + u[c + n];
      v = v + below;
      v = v + above;
      v = (v + (heat_xy && within(k, r.rz0, r.rz1) ? src : T(0))) * inv;
      out[c] = v;
      if constexpr (M != NormMode::none) change += sq_change(v, center);
      below = center;
      center = above;
    }
  }
  hand_back<M>(change, slot, partials, stencil::grid_block());
}

// 2D, coalesced: 32 x 8 tiles of (x, y), the grid striding along y past 65535 tiles.
template <class T, NormMode M>
__global__ void __launch_bounds__(kThreads)
    tile2_sweep(Room r, const T* __restrict__ u, T* __restrict__ out, T src, T inv, double* slot,
                double* partials) {
  const std::int64_t n = r.n;
  const std::int64_t i = 1 + blockIdx.x * static_cast<std::int64_t>(kTileX) + threadIdx.x % kTileX;
  double change = 0;
  if (i < n - 1) {
    const bool heat_x = within(i, r.rx0, r.rx1);
    for (std::int64_t j = 1 + blockIdx.y * static_cast<std::int64_t>(kTileY) + threadIdx.x / kTileX;
         j < n - 1; j += static_cast<std::int64_t>(gridDim.y) * kTileY) {
      const std::int64_t c = j * n + i;
      T v = u[c - 1] + u[c + 1];
      v = v + u[c - n];
      v = v + u[c + n];
      v = (v + (heat_x && within(j, r.ry0, r.ry1) ? src : T(0))) * inv;
      out[c] = v;
      if constexpr (M != NormMode::none) change += sq_change(v, u[c]);
    }
  }
  hand_back<M>(change, slot, partials,
               blockIdx.x + static_cast<std::int64_t>(gridDim.x) * blockIdx.y);
}

// The system: W lanes per row (W divides 32), x_new = (b - offdiag x_old) * (1/a_ii), the
// squared change reduced in the same kernel into one partial per block.
template <int W, bool NORM, class I, class T>
__global__ void __launch_bounds__(kThreads)
    system_sweep(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ idx,
                 const T* __restrict__ val, const T* __restrict__ inv_diag, const T* __restrict__ b,
                 const T* __restrict__ xo, T* __restrict__ xn, double* __restrict__ partials) {
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  const std::int64_t row = t / W;
  const int lane = threadIdx.x % W;
  T s{};
  if (row < rows)
    for (I q = ptr[row] + lane; q < ptr[row + 1]; q += W) s += val[q] * cuda::ldg(xo + idx[q]);
  s = cuda::group_sum<W>(s);  // every lane of the warp takes part, rows past the end too
  double change = 0;
  if (row < rows && lane == 0) {
    const T v = (b[row] - s) * inv_diag[row];
    if constexpr (NORM) change = sq_change(v, xo[row]);
    xn[row] = v;
  }
  if constexpr (NORM) hand_back<NormMode::partial>(change, nullptr, partials, blockIdx.x);
}

}  // namespace mm::jacobi_kernels
