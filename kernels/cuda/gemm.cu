// Hand-written CUDA GEMM, C = alpha*A*B row-major: naive, shared-memory tiles, an 8x8
// register tile per thread, and tensor cores through wmma (TF32 for float, DMMA for double).
#include <mma.h>

#include <climits>
#include <type_traits>

#include "cuda/cuda_util.cuh"
#include "cuda/gemm_cuda.hpp"
#include "cuda/gemm_runner.cuh"

namespace mm {

namespace {

namespace wmma = nvcuda::wmma;
using Index = std::int64_t;

// ---- 16-byte vectors: the widest load a thread issues ---------------------------------------

template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};
template <class T>
constexpr int kVec = 16 / static_cast<int>(sizeof(T));

__device__ __forceinline__ void unpack(const float4& x, float* o) {
  o[0] = x.x, o[1] = x.y, o[2] = x.z, o[3] = x.w;
}
__device__ __forceinline__ void unpack(const double2& x, double* o) {
  o[0] = x.x, o[1] = x.y;
}
__device__ __forceinline__ float4 pack(const float* o) {
  return make_float4(o[0], o[1], o[2], o[3]);
}
__device__ __forceinline__ double2 pack(const double* o) {
  return make_double2(o[0], o[1]);
}

// E consecutive elements of row R, columns C..C+E-1, of a ROWS x COLS row-major matrix, zero
// outside it. VEC: COLS and C are multiples of the vector width, so each 16-byte vector is
// wholly inside or wholly outside (and aligned: cudaMalloc gives 256-byte alignment).
template <class T, int E, bool VEC>
__device__ __forceinline__ void load_span(const T* __restrict__ p, Index rows, Index cols, Index r,
                                          Index c, T* out) {
  constexpr int V = kVec<T>;
  if constexpr (VEC) {
    static_assert(E % V == 0, "whole vectors only");
#pragma unroll
    for (int v = 0; v < E; v += V) {
      if (r < rows && c + v < cols) {
        unpack(__ldg(reinterpret_cast<const typename Vec16<T>::type*>(p + r * cols + c + v)),
               out + v);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) out[v + e] = T{};
      }
    }
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e) out[e] = r < rows && c + e < cols ? p[r * cols + c + e] : T{};
  }
}

// ---- naive and shared-memory tiles -----------------------------------------------------------

// A thread per element of C; consecutive threads take consecutive columns (B and C coalesced).
template <class T>
__global__ void __launch_bounds__(256)
    naive_kernel(Index m, Index n, Index k, const T* __restrict__ a, const T* __restrict__ b,
                 T* __restrict__ c, T alpha) {
  const Index e = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x;
  if (e >= m * n) return;
  const Index i = e / n, j = e % n;
  T s{};
  for (Index p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
  c[e] = alpha * s;
}

// TILE x TILE threads, a thread per element of C; each k step stages a TILE x TILE block of A
// and of B in shared memory (A's row read as a broadcast, B's along the row: no conflicts).
template <class T, int TILE>
__global__ void __launch_bounds__(TILE* TILE)
    tiled_kernel(Index m, Index n, Index k, const T* __restrict__ a, const T* __restrict__ b,
                 T* __restrict__ c, T alpha) {
  __shared__ T as[TILE][TILE];
  __shared__ T bs[TILE][TILE];
  const Index tiles_n = (n + TILE - 1) / TILE;
  const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  const Index i = (blockIdx.x / tiles_n) * TILE + ty, j = (blockIdx.x % tiles_n) * TILE + tx;
  T s{};
  for (Index p0 = 0; p0 < k; p0 += TILE) {
    as[ty][tx] = i < m && p0 + tx < k ? a[i * k + p0 + tx] : T{};
    bs[ty][tx] = p0 + ty < k && j < n ? b[(p0 + ty) * n + j] : T{};
    __syncthreads();
#pragma unroll
    for (int q = 0; q < TILE; ++q) s += as[ty][q] * bs[q][tx];
    __syncthreads();
  }
  if (i < m && j < n) c[i * n + j] = alpha * s;
}

// ---- register blocking -----------------------------------------------------------------------

// 128x128 block tile, BK = 8, 256 threads each accumulating an 8x8 register tile. A thread's
// rows are ty*V + s*16V + (0..V-1) for s < 8/V (V = 16-byte vector width), its columns
// likewise with tx: each 16-byte shared read by a quarter warp covers 128 contiguous bytes
// (no bank conflicts), where 8 contiguous rows per thread would give 2-way conflicts. A is
// stored transposed (as[k][row]) so both operands are read as vectors along the tile. Two
// shared buffers: the next k step is fetched into registers during this one's arithmetic
// and stored into the other buffer, one barrier per step.
constexpr int kRbM = 128, kRbN = 128, kRbK = 8, kRbT = 8;

// float: at most 128 registers, so that two blocks (16 warps) share a multiprocessor.
template <class T, bool VEC>
__global__ void __launch_bounds__(256, sizeof(T) == 4 ? 2 : 1)
    regblock_kernel(Index m, Index n, Index k, const T* __restrict__ a, const T* __restrict__ b,
                    T* __restrict__ c, T alpha) {
  constexpr int V = kVec<T>, PAD = V;  // the pad keeps rows 16-byte aligned, spreads A's stores
  using Vec = typename Vec16<T>::type;
  __shared__ __align__(16) T as[2][kRbK][kRbM + PAD];
  __shared__ __align__(16) T bs[2][kRbK][kRbN + PAD];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const Index tiles_n = (n + kRbN - 1) / kRbN;
  const Index bm = (blockIdx.x / tiles_n) * kRbM, bn = (blockIdx.x % tiles_n) * kRbN;
  // Each step this thread fetches 4 consecutive k of one row of A and 4 columns of a row of B.
  const int a_row = t / 2, a_col = (t % 2) * 4, b_row = t / 32, b_col = (t % 32) * 4;
  T ra[4], rb[4];
  T acc[kRbT][kRbT] = {};
  const auto fetch = [&](Index p0) {
    load_span<T, 4, VEC>(a, m, k, bm + a_row, p0 + a_col, ra);
    load_span<T, 4, VEC>(b, k, n, p0 + b_row, bn + b_col, rb);
  };
  const auto stash = [&](int buf) {
#pragma unroll
    for (int e = 0; e < 4; ++e) as[buf][a_col + e][a_row] = ra[e];
#pragma unroll
    for (int e = 0; e < 4; ++e) bs[buf][b_row][b_col + e] = rb[e];
  };
  const Index steps = (k + kRbK - 1) / kRbK;
  if (steps > 0) {
    fetch(0);
    stash(0);
  }
  __syncthreads();
  for (Index s = 0; s < steps; ++s) {
    const int cur = static_cast<int>(s & 1);
    if (s + 1 < steps) fetch((s + 1) * kRbK);
#pragma unroll
    for (int q = 0; q < kRbK; ++q) {
      T fa[kRbT], fb[kRbT];
#pragma unroll
      for (int g = 0; g < kRbT / V; ++g) {
        unpack(*reinterpret_cast<const Vec*>(&as[cur][q][ty * V + g * 16 * V]), fa + g * V);
        unpack(*reinterpret_cast<const Vec*>(&bs[cur][q][tx * V + g * 16 * V]), fb + g * V);
      }
#pragma unroll
      for (int x = 0; x < kRbT; ++x)
#pragma unroll
        for (int y = 0; y < kRbT; ++y) acc[x][y] += fa[x] * fb[y];
    }
    if (s + 1 < steps) stash(cur ^ 1);  // the other buffer: its last readers passed the barrier
    __syncthreads();
  }
#pragma unroll
  for (int x = 0; x < kRbT; ++x) {
    const Index i = bm + ty * V + (x / V) * 16 * V + x % V;
    if (i >= m) continue;
#pragma unroll
    for (int g = 0; g < kRbT / V; ++g) {
      const Index j = bn + tx * V + g * 16 * V;
      T out[V];
#pragma unroll
      for (int e = 0; e < V; ++e) out[e] = alpha * acc[x][g * V + e];
      if constexpr (VEC) {
        if (j < n) *reinterpret_cast<Vec*>(c + i * n + j) = pack(out);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (j + e < n) c[i * n + j + e] = out[e];
      }
    }
  }
}

// ---- tensor cores (wmma) ---------------------------------------------------------------------

// Block tile BM x BN with 8 warps of WARPS_M x WARPS_N, each warp a grid of WM x WN fragments;
// BK of k per shared stage. float: TF32 m16n16k8 (inputs rounded to TF32 when staged, sums
// in FP32); double: DMMA m8n8k4 (full FP64).
template <class T>
struct TensorShape;
template <>
struct TensorShape<float> {
  static constexpr int WM = 16, WN = 16, WK = 8, BM = 128, BN = 128, BK = 32;
  static constexpr int WARPS_M = 2, WARPS_N = 4, PAD = 4;
  using In = wmma::precision::tf32;
};
template <>
struct TensorShape<double> {
  static constexpr int WM = 8, WN = 8, WK = 4, BM = 128, BN = 128, BK = 16;
  static constexpr int WARPS_M = 4, WARPS_N = 2, PAD = 4;
  using In = double;
};

// Shared layout of a stage: A as [BM][BK + PAD], B as [BK][BN + PAD]. wmma needs 32-byte
// aligned fragment pointers and ldm a multiple of 16 bytes: every fragment starts at a
// multiple of WM rows / WK k-rows, which with these pads is a multiple of 32 bytes.
template <class T>
struct TensorLayout {
  using S = TensorShape<T>;
  static constexpr int LDA = S::BK + S::PAD, LDB = S::BN + S::PAD;
  static constexpr int STAGE = S::BM * LDA + S::BK * LDB;  // elements
  static constexpr std::size_t BYTES = 2 * STAGE * sizeof(T);
  static_assert(STAGE * sizeof(T) % 128 == 0 && S::BM * LDA * sizeof(T) % 128 == 0);
  static_assert(S::WM * LDA * sizeof(T) % 32 == 0 && S::WK * LDB * sizeof(T) % 32 == 0);
  // 4 vectors of A and 4 of B per thread per stage.
  static_assert(S::BM * S::BK == 4 * 256 * kVec<T> && S::BK * S::BN == 4 * 256 * kVec<T>);
};

template <class T>
__device__ __forceinline__ T to_input(T x) {
  if constexpr (std::is_same_v<T, float>)
    return wmma::__float_to_tf32(x);
  else
    return x;
}

template <class T, bool VEC>
__global__ void __launch_bounds__(256)
    tensor_kernel(Index m, Index n, Index k, const T* __restrict__ a, const T* __restrict__ b,
                  T* __restrict__ c, T alpha) {
  using S = TensorShape<T>;
  using L = TensorLayout<T>;
  constexpr int V = kVec<T>, WTM = S::BM / S::WARPS_M, WTN = S::BN / S::WARPS_N;
  constexpr int FM = WTM / S::WM, FN = WTN / S::WN;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int wm = warp / S::WARPS_N, wn = warp % S::WARPS_N;
  const Index tiles_n = (n + S::BN - 1) / S::BN;
  const Index bm = (blockIdx.x / tiles_n) * S::BM, bn = (blockIdx.x % tiles_n) * S::BN;
  T ra[4][V], rb[4][V];
  const auto fetch = [&](Index p0) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int v = r * 256 + t;
      const int ar = v / (S::BK / V), ac = (v % (S::BK / V)) * V;
      const int br = v / (S::BN / V), bc = (v % (S::BN / V)) * V;
      load_span<T, V, VEC>(a, m, k, bm + ar, p0 + ac, ra[r]);
      load_span<T, V, VEC>(b, k, n, p0 + br, bn + bc, rb[r]);
    }
  };
  const auto stash = [&](int buf) {
    T* as = smem + buf * L::STAGE;
    T* bs = as + S::BM * L::LDA;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int v = r * 256 + t;
      const int ar = v / (S::BK / V), ac = (v % (S::BK / V)) * V;
      const int br = v / (S::BN / V), bc = (v % (S::BN / V)) * V;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        as[ar * L::LDA + ac + e] = to_input(ra[r][e]);
        bs[br * L::LDB + bc + e] = to_input(rb[r][e]);
      }
    }
  };
  wmma::fragment<wmma::accumulator, S::WM, S::WN, S::WK, T> acc[FM][FN];
#pragma unroll
  for (int x = 0; x < FM; ++x)
#pragma unroll
    for (int y = 0; y < FN; ++y) wmma::fill_fragment(acc[x][y], T{});
  const Index steps = (k + S::BK - 1) / S::BK;
  if (steps > 0) {
    fetch(0);
    stash(0);
  }
  __syncthreads();
  for (Index s = 0; s < steps; ++s) {
    const int cur = static_cast<int>(s & 1);
    if (s + 1 < steps) fetch((s + 1) * S::BK);
    const T* as = smem + cur * L::STAGE;
    const T* bs = as + S::BM * L::LDA;
#pragma unroll
    for (int kk = 0; kk < S::BK; kk += S::WK) {
      wmma::fragment<wmma::matrix_a, S::WM, S::WN, S::WK, typename S::In, wmma::row_major> fa[FM];
      wmma::fragment<wmma::matrix_b, S::WM, S::WN, S::WK, typename S::In, wmma::row_major> fb[FN];
#pragma unroll
      for (int x = 0; x < FM; ++x)
        wmma::load_matrix_sync(fa[x], as + (wm * WTM + x * S::WM) * L::LDA + kk, L::LDA);
#pragma unroll
      for (int y = 0; y < FN; ++y)
        wmma::load_matrix_sync(fb[y], bs + kk * L::LDB + wn * WTN + y * S::WN, L::LDB);
#pragma unroll
      for (int x = 0; x < FM; ++x)
#pragma unroll
        for (int y = 0; y < FN; ++y) wmma::mma_sync(acc[x][y], fa[x], fb[y], acc[x][y]);
    }
    if (s + 1 < steps) stash(cur ^ 1);
    __syncthreads();
  }
  // Each warp passes its fragments through its own WM x WN patch of shared memory (free
  // after the last barrier) to write only the elements inside C.
  T* patch = smem + warp * S::WM * S::WN;
#pragma unroll
  for (int x = 0; x < FM; ++x)
#pragma unroll
    for (int y = 0; y < FN; ++y) {
#pragma unroll
      for (int e = 0; e < acc[x][y].num_elements; ++e) acc[x][y].x[e] *= alpha;
      wmma::store_matrix_sync(patch, acc[x][y], S::WN, wmma::mem_row_major);
      __syncwarp();
      const Index i0 = bm + wm * WTM + x * S::WM, j0 = bn + wn * WTN + y * S::WN;
      for (int e = lane; e < S::WM * S::WN; e += 32) {
        const Index i = i0 + e / S::WN, j = j0 + e % S::WN;
        if (i < m && j < n) c[i * n + j] = patch[e];
      }
      __syncwarp();
    }
}

// ---- the Runner ------------------------------------------------------------------------------

// A 1-D grid of UNITS / PER_BLOCK blocks (one block per output tile: cuda::output_tiles).
unsigned blocks_for(Index units, Index per_block) {
  return cuda::grid_1d((units + per_block - 1) / per_block, "gemm");
}
using cuda::output_tiles;

template <class T>
class GemmCudaRunner final : public cuda::CudaRunner {
 public:
  GemmCudaRunner(const GemmProblem<T>& p, GemmCudaKernel k) : p_(p), kernel_(k) {
    gemm_check_shapes(*p.a, *p.b, *p.c);
  }

  void upload() override {
    a_ = cuda::Buffer<T>(p_.a->data.data(), p_.a->data.size());
    b_ = cuda::Buffer<T>(p_.b->data.data(), p_.b->data.size());
    c_ = cuda::Buffer<T>(p_.c->data.size());
    c_.fill_bytes(0xff);                      // poison (NaN): every element must be written
    if (kernel_ == GemmCudaKernel::tensor) {  // above the 48 KB default: asked for explicitly
      const int bytes = static_cast<int>(TensorLayout<T>::BYTES);
      MM_CUDA(cudaFuncSetAttribute(tensor_kernel<T, true>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      MM_CUDA(cudaFuncSetAttribute(tensor_kernel<T, false>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    }
  }

  void download() override { c_.download(p_.c->data.data(), p_.c->data.size()); }

 protected:
  void launch() override {
    const Index m = p_.a->rows, n = p_.b->cols, k = p_.a->cols;
    if (m == 0 || n == 0) return;
    const T *a = a_.get(), *b = b_.get();
    T* c = c_.get();
    const T alpha = p_.alpha;
    // Vector loads need rows of A and B that start on 16-byte boundaries.
    const bool vec = k % kVec<T> == 0 && n % kVec<T> == 0;
    switch (kernel_) {
      case GemmCudaKernel::naive:
        naive_kernel<T><<<blocks_for(m * n, 256), 256>>>(m, n, k, a, b, c, alpha);
        MM_CUDA_LAUNCHED("gemm naive_kernel");
        break;
      case GemmCudaKernel::tiled16:
        tiled_kernel<T, 16>
            <<<blocks_for(output_tiles(m, n, 16, 16), 1), 256>>>(m, n, k, a, b, c, alpha);
        MM_CUDA_LAUNCHED("gemm tiled_kernel<16>");
        break;
      case GemmCudaKernel::tiled32:
        tiled_kernel<T, 32>
            <<<blocks_for(output_tiles(m, n, 32, 32), 1), 1024>>>(m, n, k, a, b, c, alpha);
        MM_CUDA_LAUNCHED("gemm tiled_kernel<32>");
        break;
      case GemmCudaKernel::regblock: {
        const unsigned g = blocks_for(output_tiles(m, n, kRbM, kRbN), 1);
        if (vec)
          regblock_kernel<T, true><<<g, 256>>>(m, n, k, a, b, c, alpha);
        else
          regblock_kernel<T, false><<<g, 256>>>(m, n, k, a, b, c, alpha);
        MM_CUDA_LAUNCHED("gemm regblock_kernel");
        break;
      }
      case GemmCudaKernel::tensor: {
        using S = TensorShape<T>;
        const unsigned g = blocks_for(output_tiles(m, n, S::BM, S::BN), 1);
        const std::size_t bytes = TensorLayout<T>::BYTES;
        if (vec)
          tensor_kernel<T, true><<<g, 256, bytes>>>(m, n, k, a, b, c, alpha);
        else
          tensor_kernel<T, false><<<g, 256, bytes>>>(m, n, k, a, b, c, alpha);
        MM_CUDA_LAUNCHED("gemm tensor_kernel");
        break;
      }
    }
  }

 private:
  GemmProblem<T> p_;
  GemmCudaKernel kernel_;
  cuda::Buffer<T> a_, b_, c_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_gemm_cuda(const GemmProblem<T>& p, GemmCudaKernel k) {
  return std::make_unique<GemmCudaRunner<T>>(p, k);
}

template std::unique_ptr<Runner> make_gemm_cuda<float>(const GemmProblem<float>&, GemmCudaKernel);
template std::unique_ptr<Runner> make_gemm_cuda<double>(const GemmProblem<double>&, GemmCudaKernel);

}  // namespace mm
