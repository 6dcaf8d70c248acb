// CUDA Jacobi: the heated-room stencil runner (naive, coalesced, partials kernels here; the
// vectorised marching ones in stencil_march.cuh) and the fused sparse-system sweep, driven by a
// host loop that reads the change only at checks (jacobi_drive.cuh).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/jacobi_cuda.hpp"
#include "cuda/jacobi_drive.cuh"
#include "cuda/stencil_march.cuh"
#include "cuda/warp.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm {

namespace {

using cuda::dev_t;

// Tuning. A block is 256 threads; the coalesced stencil lays them out as a 32 x 8 tile of
// (x, y), a warp along x (256 B of doubles per row). The 3D tile marches along z through a
// chunk of planes; the chunks are cut so that the grid holds kWaves full waves of blocks
// (one wave: every multiprocessor full, 2048 threads each), enough loads in flight.
constexpr int kThreads = 256;
constexpr int kTileX = 32;
constexpr int kTileY = kThreads / kTileX;
constexpr int kWaves = 4;
constexpr std::int64_t kMaxGridYZ = 65535;
// The final reduction is one block: wide, so each thread has only a few partials to load
// (it sits between two sweeps when the change is wanted every sweep).
constexpr int kReduceThreads = 1024;

// How a sweep hands back its squared change: not at all, one atomicAdd per block into the
// slot (zeroed before), or one partial per block summed by sum_partials into the slot.
enum class NormMode { none, atomic, partial };

using stencil::Room;
using stencil::sq_change;
using stencil::within;

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
__global__ void __launch_bounds__(kReduceThreads)
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
  hand_back<M>(
      change, slot, partials,
      blockIdx.x + gridDim.x * (blockIdx.y + static_cast<std::int64_t>(gridDim.y) * blockIdx.z));
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

using jacobi_host::ChangeSlots;
using jacobi_host::drive;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// ---- the stencil runner ------------------------------------------------------------------------

template <class T>
class StencilCudaRunner final : public cuda::CudaRunner {
  // A marching sweep: its arguments are the same for every V, RY and NORM, 2D and 3D.
  using MarchFn = void (*)(Room, const T*, T*, T, T, std::int64_t, int, double*, double*,
                           unsigned*);

 public:
  StencilCudaRunner(const StencilProblem<T>& p, StencilCudaKernel k) : p_(p), kernel_(k) {
    const HeatedRoom& r = p.room;
    room_ = {r.n, r.rx.lo, r.rx.hi, r.ry.lo, r.ry.hi, r.rz.lo, r.rz.hi};
    // The widest vector (8 or 16 bytes) whose width divides N: rows start aligned.
    const std::int64_t n = r.n;
    vec_ = sizeof(T) == 4 && n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
    require_device_memory();
  }

  void upload() override {
    const auto points = static_cast<std::size_t>(p_.room.points());
    grid_[0] = cuda::Buffer<T>(points);
    grid_[1] = cuda::Buffer<T>(points);
    // Buffer 1 keeps its walls for good; its interior starts as NaN, so a point that no
    // sweep writes shows in the result.
    init(grid_[1], std::numeric_limits<T>::quiet_NaN());
    plan();
    partials_ = cuda::Buffer<double>(static_cast<std::size_t>(blocks_));
    counter_ = cuda::Buffer<unsigned>(1);
    counter_.fill_bytes(0);
    slots_ = std::make_unique<ChangeSlots>(marching());
  }

  void download() override {
    grid_[result_].download(p_.u, static_cast<std::size_t>(p_.room.points()));
  }

 protected:
  void launch() override {
    if (!slots_) upload();
    init(grid_[0], T(0));  // x_0, every run
    *p_.result = drive(
        p_.stop, *slots_, [this](int src, int slot) { sweep(src, slot); }, result_);
  }

 private:
  // A room whose two grids exceed the free device memory is refused here, when the runner is
  // made and before upload allocates anything, with the bytes asked and free (exit 4).
  void require_device_memory() const {
    const long double need = 2.0L * static_cast<long double>(p_.room.points()) * sizeof(T);
    std::size_t free = 0, total = 0;
    MM_CUDA(cudaMemGetInfo(&free, &total));
    if (need <= static_cast<long double>(free)) return;
    std::ostringstream s;
    s << std::fixed << std::setprecision(0) << "out of device memory: asked " << need
      << " bytes (two " << p_.room.n << "^" << p_.room.dim << " grids of " << sizeof(T)
      << "-byte values), " << free << " free of " << total;
    throw DeviceError(s.str());
  }

  bool marching() const {
    return kernel_ == StencilCudaKernel::march || kernel_ == StencilCudaKernel::march_ry2 ||
           kernel_ == StencilCudaKernel::march_ry4 || kernel_ == StencilCudaKernel::march_col;
  }
  // Rows of y per thread of the 3D marching sweep.
  int rows_per_thread() const {
    return kernel_ == StencilCudaKernel::march_ry4 ? 4
           : kernel_ == StencilCudaKernel::march   ? 1
                                                   : 2;
  }

  template <int V, bool NORM>
  MarchFn march_as() const {
    if (p_.room.dim == 2) return &stencil::march2v_sweep<T, V, 4, NORM>;
    switch (rows_per_thread()) {
      case 1:
        return &stencil::march3v_sweep<T, V, 1, NORM>;
      case 4:
        return &stencil::march3v_sweep<T, V, 4, NORM>;
      default:
        return &stencil::march3v_sweep<T, V, 2, NORM>;
    }
  }
  template <bool NORM>
  MarchFn march_fn() const {
    if constexpr (sizeof(T) == 4)
      if (vec_ == 4) return march_as<4, NORM>();
    return vec_ == 2 ? march_as<2, NORM>() : march_as<1, NORM>();
  }

  void init(cuda::Buffer<T>& g, T interior) {
    const std::int64_t blocks = std::min<std::int64_t>(ceil_div(p_.room.points(), kThreads),
                                                       8 * std::int64_t{cuda::multiprocessors()});
    init_room<T><<<blocks, kThreads>>>(p_.room.n, p_.room.dim, g.get(), interior);
    MM_CUDA_LAUNCHED("jacobi init_room");
  }

  // Warps a block of the 3D marching sweep (MM_JACOBI_WARPS: 8, the default, or 16). On the
  // H200 (double, the change every sweep, fraction of the copy), 16 warps ran at 0.76 / 0.83 /
  // 0.79 at N = 256 / 384 / 512; 8 warps at 0.79 at 512 in the same run, 0.81 / 0.82 at 256 /
  // 384 in earlier ones.
  static int march_warps() {
    const int w = cuda::env_int("MM_JACOBI_WARPS", 8);
    if (w != 8 && w != 16)
      throw UsageError("MM_JACOBI_WARPS must be 8 or 16, not " + std::to_string(w));
    return w;
  }

  // Chunks of planes (rows in 2D) each column of TILES tiles is cut into, at most MOST, for
  // RESIDENT block slots: the fewest whose blocks fill their waves to 95% or more (up to four
  // waves), else the best filling found, so that no slot idles for the whole sweep (at N = 512
  // in double one chunk left 510 blocks on 792 slots). MM_JACOBI_CHUNKS sets it (0: this rule).
  static std::int64_t march_chunks(std::int64_t tiles, std::int64_t resident, std::int64_t most) {
    if (const int c = cuda::env_int("MM_JACOBI_CHUNKS", 0); c > 0)
      return std::min<std::int64_t>(c, most);
    std::int64_t best = 1;
    double best_fill = 0;
    for (std::int64_t c = 1; c <= most && (c == 1 || tiles * c <= 4 * resident); ++c) {
      const std::int64_t blocks = tiles * c, waves = ceil_div(blocks, resident);
      const double fill = static_cast<double>(blocks) / static_cast<double>(waves * resident);
      if (fill >= 0.95) return c;
      if (fill > best_fill) best = c, best_fill = fill;
    }
    return best;
  }

  // The launch shape of the sweep kernel, and its block count (one partial each).
  void plan() {
    const std::int64_t n = p_.room.n, m = n - 2;
    if (marching()) {
      // One wave: every block resident at once, each marching one chunk of planes (rows in
      // 2D); the two planes before a chunk are the only ones read twice.
      std::int64_t gx, gy = 1;
      if (p_.room.dim == 3) {
        // Warps side by side along x (at most 8 a block) to cover whole rows, the rest of the
        // 8 along y; march_col: one warp along x, 8 along y (64 doubles x 16 rows).
        const std::int64_t row_warps = ceil_div(n, 32 * std::int64_t{vec_});
        gx = kernel_ == StencilCudaKernel::march_col ? row_warps : ceil_div(row_warps, 8);
        wx_ = static_cast<int>(ceil_div(row_warps, gx));
        const int wy = std::max(1, march_warps() / wx_);
        threads_ = 32 * wx_ * wy;
        gy = ceil_div(m, std::int64_t{wy} * rows_per_thread());
        if (gy > kMaxGridYZ) throw DeviceError("--poisson3d grid too large for the CUDA tiling");
      } else {
        threads_ = 32 * 4;
        gx = ceil_div(n, std::int64_t{threads_} * vec_);
      }
      int per_sm = 0;
      MM_CUDA(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, march_fn<true>(), threads_, 0));
      const std::int64_t resident =
          std::max<std::int64_t>(1, per_sm) * std::int64_t{cuda::multiprocessors()};
      std::int64_t chunks = march_chunks(gx * gy, resident, std::min(m, kMaxGridYZ));
      chunk_ = ceil_div(m, chunks);
      chunks = ceil_div(m, chunk_);  // no empty chunk at the end
      grid_dim_ = p_.room.dim == 3 ? dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                                          static_cast<unsigned>(chunks))
                                   : dim3(static_cast<unsigned>(gx), static_cast<unsigned>(chunks));
    } else if (kernel_ == StencilCudaKernel::naive) {
      grid_dim_ = dim3(static_cast<unsigned>(ceil_div(p_.room.interior(), kThreads)));
    } else if (p_.room.dim == 2) {
      grid_dim_ = dim3(static_cast<unsigned>(ceil_div(m, kTileX)),
                       static_cast<unsigned>(std::min(ceil_div(m, kTileY), kMaxGridYZ)));
    } else {
      const std::int64_t gx = ceil_div(m, kTileX), gy = ceil_div(m, kTileY);
      if (gy > kMaxGridYZ) throw DeviceError("--poisson3d grid too large for the CUDA tiling");
      const std::int64_t wave = std::int64_t{cuda::multiprocessors()} * (2048 / kThreads);
      std::int64_t chunks =
          std::clamp<std::int64_t>(ceil_div(kWaves * wave, gx * gy), 1, std::min(m, kMaxGridYZ));
      chunk_ = ceil_div(m, chunks);
      chunks = ceil_div(m, chunk_);  // no empty chunk at the end
      grid_dim_ =
          dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(chunks));
    }
    blocks_ = std::int64_t{grid_dim_.x} * grid_dim_.y * grid_dim_.z;
  }

  void sweep(int src, int slot) {
    double* s = slot < 0 ? nullptr : slots_->slot(slot);
    if (marching()) {
      const T inv = p_.room.dim == 3 ? T(1) / T(6) : T(1) / T(4);
      const MarchFn fn = slot < 0 ? march_fn<false>() : march_fn<true>();
      fn<<<grid_dim_, threads_>>>(room_, grid_[src].get(), grid_[1 - src].get(),
                                  static_cast<T>(p_.room.h2f), inv, chunk_, wx_, s, partials_.get(),
                                  counter_.get());
      MM_CUDA_LAUNCHED("jacobi march_sweep");
    } else if (slot < 0) {
      sweep_as<NormMode::none>(src, s);
    } else if (kernel_ == StencilCudaKernel::partials) {
      sweep_as<NormMode::partial>(src, s);
    } else {
      sweep_as<NormMode::atomic>(src, s);
    }
  }

  template <NormMode M>
  void sweep_as(int src, double* slot) {
    const T* u = grid_[src].get();
    T* out = grid_[1 - src].get();
    const T srcv = static_cast<T>(p_.room.h2f);
    const T inv = p_.room.dim == 3 ? T(1) / T(6) : T(1) / T(4);
    double* partials = partials_.get();
    if constexpr (M == NormMode::atomic) MM_CUDA(cudaMemsetAsync(slot, 0, sizeof(double)));
    if (kernel_ == StencilCudaKernel::naive) {
      if (p_.room.dim == 3)
        naive_sweep<T, 3, M><<<grid_dim_, kThreads>>>(room_, u, out, srcv, inv, slot, partials);
      else
        naive_sweep<T, 2, M><<<grid_dim_, kThreads>>>(room_, u, out, srcv, inv, slot, partials);
      MM_CUDA_LAUNCHED("jacobi naive_sweep");
    } else if (p_.room.dim == 3) {
      march3_sweep<T, M><<<grid_dim_, kThreads>>>(room_, u, out, srcv, inv, chunk_, slot, partials);
      MM_CUDA_LAUNCHED("jacobi march3_sweep");
    } else {
      tile2_sweep<T, M><<<grid_dim_, kThreads>>>(room_, u, out, srcv, inv, slot, partials);
      MM_CUDA_LAUNCHED("jacobi tile2_sweep");
    }
    if constexpr (M == NormMode::partial) {
      sum_partials<<<1, kReduceThreads>>>(partials, blocks_, slot);
      MM_CUDA_LAUNCHED("jacobi sum_partials");
    }
  }

  StencilProblem<T> p_;
  StencilCudaKernel kernel_;
  Room room_{};
  cuda::Buffer<T> grid_[2];
  cuda::Buffer<double> partials_;
  cuda::Buffer<unsigned> counter_;
  std::unique_ptr<ChangeSlots> slots_;
  dim3 grid_dim_;
  std::int64_t chunk_ = 1, blocks_ = 0;
  int vec_ = 1, threads_ = kThreads, wx_ = 1, result_ = 0;
};

// ---- the system runner ----------------------------------------------------------------------

template <class I, class T>
class JacobiCudaRunner final : public cuda::CudaRunner {
 public:
  explicit JacobiCudaRunner(const JacobiProblem<I, T>& p) : p_(p) {}

  // The split into off-diagonal part and 1/diag is set-up, as on the CPU.
  void upload() override {
    Csr<I, T> off;
    std::vector<T> inv;
    jacobi_split_diagonal(*p_.a, off, inv);
    rows_ = off.rows;
    const auto n = static_cast<std::size_t>(rows_);
    ptr_ = cuda::Buffer<I>(off.ptr.data(), off.ptr.size());
    idx_ = cuda::Buffer<I>(off.idx.data(), off.idx.size());
    val_ = cuda::Buffer<T>(off.val.data(), off.val.size());
    inv_ = cuda::Buffer<T>(inv.data(), n);
    b_ = cuda::Buffer<T>(p_.b, n);
    x_[0] = cuda::Buffer<T>(n);
    x_[1] = cuda::Buffer<T>(n);
    x_[1].fill_bytes(0xff);  // poison: every row must be written
    // Lanes per row from the mean off-diagonal count: few lanes idle on short rows.
    const double mean = rows_ ? static_cast<double>(off.nnz()) / static_cast<double>(rows_) : 0;
    width_ = mean > 16 ? 32 : mean > 8 ? 16 : mean > 4 ? 8 : 4;
    blocks_ = ceil_div(rows_ * width_, kThreads);
    partials_ = cuda::Buffer<double>(static_cast<std::size_t>(blocks_));
    slots_ = std::make_unique<ChangeSlots>();
  }

  void download() override { x_[result_].download(p_.x, static_cast<std::size_t>(rows_)); }

 protected:
  void launch() override {
    if (!slots_) upload();
    if (rows_) MM_CUDA(cudaMemsetAsync(x_[0].get(), 0, x_[0].size() * sizeof(T)));  // x_0 = 0
    *p_.result = drive(
        p_.stop, *slots_, [this](int src, int slot) { sweep(src, slot); }, result_);
  }

 private:
  void sweep(int src, int slot) {
    if (rows_) {
      switch (width_) {
        case 4:
          sweep_as<4>(src, slot >= 0);
          break;
        case 8:
          sweep_as<8>(src, slot >= 0);
          break;
        case 16:
          sweep_as<16>(src, slot >= 0);
          break;
        default:
          sweep_as<32>(src, slot >= 0);
          break;
      }
    }
    if (slot >= 0) {  // zero rows: the change is 0, still written
      sum_partials<<<1, kReduceThreads>>>(partials_.get(), rows_ ? blocks_ : 0, slots_->slot(slot));
      MM_CUDA_LAUNCHED("jacobi sum_partials");
    }
  }

  template <int W>
  void sweep_as(int src, bool norm) {
    using D = dev_t<T>;
    const D* xo = x_[src].dev();
    D* xn = x_[1 - src].dev();
    if (norm)
      system_sweep<W, true, I, D><<<blocks_, kThreads>>>(
          rows_, ptr_.get(), idx_.get(), val_.dev(), inv_.dev(), b_.dev(), xo, xn, partials_.get());
    else
      system_sweep<W, false, I, D><<<blocks_, kThreads>>>(rows_, ptr_.get(), idx_.get(), val_.dev(),
                                                          inv_.dev(), b_.dev(), xo, xn, nullptr);
    MM_CUDA_LAUNCHED("jacobi system_sweep");
  }

  JacobiProblem<I, T> p_;
  std::int64_t rows_ = 0, blocks_ = 0;
  int width_ = 4, result_ = 0;
  cuda::Buffer<I> ptr_, idx_;
  cuda::Buffer<T> val_, inv_, b_, x_[2];
  cuda::Buffer<double> partials_;
  std::unique_ptr<ChangeSlots> slots_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_stencil_cuda(const StencilProblem<T>& p, StencilCudaKernel k) {
  return std::make_unique<StencilCudaRunner<T>>(p, k);
}

template <class I, class T>
std::unique_ptr<Runner> make_jacobi_cuda(const JacobiProblem<I, T>& p) {
  return std::make_unique<JacobiCudaRunner<I, T>>(p);
}

template std::unique_ptr<Runner> make_stencil_cuda<float>(const StencilProblem<float>&,
                                                          StencilCudaKernel);
template std::unique_ptr<Runner> make_stencil_cuda<double>(const StencilProblem<double>&,
                                                           StencilCudaKernel);
#define MM_JACOBI_CUDA(I, T) \
  template std::unique_ptr<Runner> make_jacobi_cuda<I, T>(const JacobiProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_JACOBI_CUDA)

}  // namespace mm
