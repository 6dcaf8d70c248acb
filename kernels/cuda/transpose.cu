// Hand-written CUDA dense transposes: a thread per element (naive), 32x32 shared tiles (tiled32),
// 64x64 tiles moved as pairs (tiled64; tiled for float, swizzled), and mirrored tile pairs in
// place (square); the `tiled` kernel is also cuda::transpose_device, for other CUDA code
// (cuSOLVER's LU). CSR -> CSC is in transpose_csr.cu.
#include <cub/cub.cuh>

#include <algorithm>
#include <type_traits>

#include "cuda/cuda_util.cuh"
#include "cuda/transpose_bits.cuh"
#include "cuda/transpose_cuda.hpp"
#include "cuda/transpose_device.cuh"

namespace mm {

namespace {

using namespace cuda::transpose_bits;

// Tuning: 32x32 tiles, 32x8 threads a block, each thread moving 4 rows of its tile (enough
// loads in flight per thread without the register cost of a whole column).
constexpr int kTile = 32;
constexpr int kRows = 8;
constexpr int kThreads = kTile * kRows;
constexpr unsigned kMaxGridY = 65535;

template <bool Complex, class B>
__global__ void __launch_bounds__(kThreads)
    naive_kernel(std::int64_t rows, std::int64_t cols, const B* __restrict__ in,
                 B* __restrict__ out, bool conj) {
  const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x;
  if (j >= cols) return;
  // Reads coalesced along A's rows; writes strided by ROWS (what the tiled kernel avoids).
  for (std::int64_t i = blockIdx.y * static_cast<std::int64_t>(kRows) + threadIdx.y; i < rows;
       i += static_cast<std::int64_t>(gridDim.y) * kRows)
    out[j * rows + i] = conj_bits<Complex>(in[i * cols + j], conj);
}

template <bool Complex, class B>
__global__ void __launch_bounds__(kThreads)
    tiled_kernel(std::int64_t rows, std::int64_t cols, const B* __restrict__ in,
                 B* __restrict__ out, bool conj) {
  // One padding column: a warp reading a tile column hits 32 different banks.
  __shared__ B tile[kTile][kTile + 1];
  const std::int64_t j0 = blockIdx.x * static_cast<std::int64_t>(kTile);
  const int x = threadIdx.x;
  // i0 is the same for the whole block, so every thread reaches the barriers.
  for (std::int64_t i0 = blockIdx.y * static_cast<std::int64_t>(kTile); i0 < rows;
       i0 += static_cast<std::int64_t>(gridDim.y) * kTile) {
    for (int r = threadIdx.y; r < kTile; r += kRows)  // tile[r][x] = A(i0 + r, j0 + x)
      if (i0 + r < rows && j0 + x < cols) tile[r][x] = in[(i0 + r) * cols + j0 + x];
    __syncthreads();
    for (int r = threadIdx.y; r < kTile; r += kRows)  // B(j0 + r, i0 + x) = A(i0 + x, j0 + r)
      if (j0 + r < cols && i0 + x < rows)
        out[(j0 + r) * rows + i0 + x] = conj_bits<Complex>(tile[x][r], conj);
    __syncthreads();  // the next iteration refills the tile
  }
}

// Pairs of values a thread access (8 or 16 bytes), 32x8 threads over 64x64 tiles: each thread
// moves eight pairs in and eight out, and a warp's row segments are 64 values long. ROWS and
// COLS are even, so a pair is wholly inside or outside and aligned. The shared tile is of
// single values with one pad column (for 4-byte values the column read is a 2-way bank
// conflict). Measured on the H200 at 8192^2: 0.85 of copy for float (the 32x32 kernel 0.78),
// 0.86 for double (the 32x32 kernel 0.90).
template <class B>
struct alignas(2 * sizeof(B)) Pair {
  B v[2];
};

template <bool Complex, class B>
__global__ void __launch_bounds__(kThreads)
    tiled64_kernel(std::int64_t rows, std::int64_t cols, const B* __restrict__ in,
                   B* __restrict__ out, bool conj) {
  constexpr int S = 2 * kTile;
  __shared__ B tile[S][S + 1];
  const std::int64_t j0 = blockIdx.x * static_cast<std::int64_t>(S);
  const int x = threadIdx.x;
  for (std::int64_t i0 = blockIdx.y * static_cast<std::int64_t>(S); i0 < rows;
       i0 += static_cast<std::int64_t>(gridDim.y) * S) {
    Pair<B> r[S / kRows] = {};  // all loads issued before any shared store
#pragma unroll
    for (int q = 0; q < S / kRows; ++q) {
      const int row = threadIdx.y + q * kRows;
      if (i0 + row < rows && j0 + 2 * x < cols)
        r[q] = *reinterpret_cast<const Pair<B>*>(in + (i0 + row) * cols + j0 + 2 * x);
    }
#pragma unroll
    for (int q = 0; q < S / kRows; ++q)
#pragma unroll
      for (int e = 0; e < 2; ++e) tile[threadIdx.y + q * kRows][2 * x + e] = r[q].v[e];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < S / kRows; ++q) {  // B(j0 + row, i0 + 2x + e) = A(i0 + 2x + e, j0 + row)
      const int row = threadIdx.y + q * kRows;
      if (j0 + row < cols && i0 + 2 * x < rows) {
        Pair<B> w;
#pragma unroll
        for (int e = 0; e < 2; ++e) w.v[e] = conj_bits<Complex>(tile[2 * x + e][row], conj);
        *reinterpret_cast<Pair<B>*>(out + (j0 + row) * rows + i0 + 2 * x) = w;
      }
    }
    __syncthreads();  // the next iteration refills the tile
  }
}

// 4-byte values (float), 64x64 tiles moved as the double kernel moves its 32x32 ones: every
// access 8 bytes, global and shared. A thread reads a pair from rows 2p and 2p+1 of A, the
// 2x2 block [a b; c d], and transposes it in registers: (a, c) and (b, d) are pairs of rows
// 2x and 2x+1 of the transpose. The shared tile holds the transpose as 64 rows of 32 pairs,
// pair column p of row R stored at p ^ ((R / 2) % 16): the pair stores of a half warp (rows
// 2x, x = 0..15, one p) and the row reads (one R, p = lane) then fall in 16 different 8-byte
// banks, no conflict either way.
__device__ __forceinline__ int swizzle(int row, int p) {
  return p ^ ((row >> 1) & 15);
}

constexpr int kPairSide = 2 * kTile;  // a float tile of the pair kernels: 64 x 64 values
constexpr int kPairRow = kTile;       // its rows in shared memory: 32 pairs

// One thread's share of a 64x64 float tile at A(I0, J0) of a ROWS x COLS row-major A (both even),
// the block being 32 x TY threads: rows 2p and 2p + 1 (p = y + TY q), the pair of columns J0 + 2x.
template <int TY = kRows>
struct PairRegs {
  float2 top[kPairRow / TY], bottom[kPairRow / TY];
};

template <int TY>
__device__ __forceinline__ void pairs_fetch(PairRegs<TY>& r, const float* __restrict__ in,
                                            std::int64_t rows, std::int64_t cols, std::int64_t i0,
                                            std::int64_t j0) {
  const int x = threadIdx.x;
#pragma unroll
  for (int q = 0; q < kPairRow / TY; ++q) {
    const int p = threadIdx.y + q * TY;
    r.top[q] = r.bottom[q] = make_float2(0.f, 0.f);
    if (i0 + 2 * p < rows && j0 + 2 * x < cols) {  // rows even: row 2p + 1 exists too
      const float* a = in + (i0 + 2 * p) * cols + j0 + 2 * x;
      r.top[q] = *reinterpret_cast<const float2*>(a);
      r.bottom[q] = *reinterpret_cast<const float2*>(a + cols);
    }
  }
}

// The fetched 2x2 blocks transposed into TILE: row R of the tile's transpose, 32 pairs.
template <int TY>
__device__ __forceinline__ void pairs_stage(const PairRegs<TY>& r, float2 (*tile)[kPairRow]) {
  const int x = threadIdx.x;
#pragma unroll
  for (int q = 0; q < kPairRow / TY; ++q) {
    const int p = threadIdx.y + q * TY;
    tile[2 * x][swizzle(2 * x, p)] = make_float2(r.top[q].x, r.bottom[q].x);
    tile[2 * x + 1][swizzle(2 * x + 1, p)] = make_float2(r.top[q].y, r.bottom[q].y);
  }
}

// TILE (the transpose of A's tile at (I0, J0)) written to OUT(J0 + R, I0 + 2x), OUT being
// COLS x ROWS row-major; the block is 32 x TY threads.
template <int TY = kRows>
__device__ __forceinline__ void pairs_store(const float2 (*tile)[kPairRow], float* __restrict__ out,
                                            std::int64_t rows, std::int64_t cols, std::int64_t i0,
                                            std::int64_t j0) {
  const int x = threadIdx.x;
#pragma unroll
  for (int q = 0; q < kPairSide / TY; ++q) {  // row R of the tile's transpose, pair x
    const int R = threadIdx.y + q * TY;
    if (j0 + R < cols && i0 + 2 * x < rows)
      *reinterpret_cast<float2*>(out + (j0 + R) * rows + i0 + 2 * x) = tile[R][swizzle(R, x)];
  }
}

__global__ void __launch_bounds__(kThreads)
    pairs_kernel(std::int64_t rows, std::int64_t cols, const float* __restrict__ in,
                 float* __restrict__ out) {
  __shared__ float2 tile[kPairSide][kPairRow];
  const std::int64_t j0 = blockIdx.x * static_cast<std::int64_t>(kPairSide);
  for (std::int64_t i0 = blockIdx.y * static_cast<std::int64_t>(kPairSide); i0 < rows;
       i0 += static_cast<std::int64_t>(gridDim.y) * kPairSide) {
    PairRegs<> r;
    pairs_fetch(r, in, rows, cols, i0, j0);
    pairs_stage(r, tile);
    __syncthreads();
    pairs_store(tile, out, rows, cols, i0, j0);
    __syncthreads();  // the next iteration refills the tile
  }
}

// Tile pair K = J(J+1)/2 + I, I <= J, of the upper triangle of tiles, numbered column by column.
__device__ __forceinline__ void tile_pair(std::int64_t k, std::int64_t& I, std::int64_t& J) {
  J = static_cast<std::int64_t>((sqrt(8.0 * static_cast<double>(k) + 1.0) - 1.0) / 2.0);
  while (J * (J + 1) / 2 > k) --J;  // the double estimate may be one off either way
  while ((J + 1) * (J + 2) / 2 <= k) ++J;
  I = k - J * (J + 1) / 2;
}

// Square float in place, N even: the 32x32 in-place kernel's tile pairs, each tile moved as
// pairs_kernel moves it (64x64, every access 8 bytes). Both tiles are fetched before either is
// staged (the 32x32 kernel at 4 bytes reached 0.57 of copy on the H200, its double twin 0.90).
// 32 x kInplaceRows threads a block: with 32x8 both tiles took 98 registers a thread, two blocks
// (16 warps) a multiprocessor, so that often no block of it had loads in flight: 0.95 of copy on
// the H100 but 0.82 on the H200. With 32x16 a thread holds half as many pairs (38 registers at
// three blocks a multiprocessor, no spills): 48 warps, three blocks' phases to overlap.
constexpr int kInplaceRows = 16;
constexpr int kInplaceThreads = kTile * kInplaceRows;

__global__ void __launch_bounds__(kInplaceThreads, 3)
    inplace_pairs_kernel(std::int64_t n, std::int64_t pairs, float* __restrict__ a) {
  __shared__ float2 s1[kPairSide][kPairRow];
  __shared__ float2 s2[kPairSide][kPairRow];
  for (std::int64_t k = blockIdx.x; k < pairs; k += gridDim.x) {
    std::int64_t I, J;
    tile_pair(k, I, J);
    const std::int64_t r0 = I * kPairSide, c0 = J * kPairSide;  // tile (I, J) at A(r0, c0)
    const bool pair = I != J;
    PairRegs<kInplaceRows> t1, t2;
    pairs_fetch(t1, a, n, n, r0, c0);
    if (pair) pairs_fetch(t2, a, n, n, c0, r0);
    pairs_stage(t1, s1);
    if (pair) pairs_stage(t2, s2);
    __syncthreads();
    pairs_store<kInplaceRows>(s1, a, n, n, r0, c0);  // A'(c0 + R, r0 + 2x..) = A(r0 + 2x.., c0 + R)
    if (pair) pairs_store<kInplaceRows>(s2, a, n, n, c0, r0);
    __syncthreads();
  }
}

// Square in place. Block work item K names the tile pair (I, J), I <= J, numbered column by
// column (K = J(J+1)/2 + I), so that the grid covers only the upper triangle of tiles. Both
// tiles are read before the barrier and written after it; no other block touches them.
template <bool Complex, class B>
__global__ void __launch_bounds__(kThreads)
    inplace_kernel(std::int64_t n, std::int64_t pairs, B* __restrict__ a, bool conj) {
  __shared__ B s1[kTile][kTile + 1];
  __shared__ B s2[kTile][kTile + 1];
  const int x = threadIdx.x;
  for (std::int64_t k = blockIdx.x; k < pairs; k += gridDim.x) {
    std::int64_t I, J;
    tile_pair(k, I, J);
    const std::int64_t r0 = I * kTile, c0 = J * kTile;  // tile (I, J) starts at A(r0, c0)
    const bool pair = I != J;
    for (int r = threadIdx.y; r < kTile; r += kRows) {
      if (r0 + r < n && c0 + x < n) s1[r][x] = a[(r0 + r) * n + c0 + x];          // A(r0+r, c0+x)
      if (pair && c0 + r < n && r0 + x < n) s2[r][x] = a[(c0 + r) * n + r0 + x];  // A(c0+r, r0+x)
    }
    __syncthreads();
    for (int r = threadIdx.y; r < kTile; r += kRows) {
      if (c0 + r < n && r0 + x < n)  // A'(c0+r, r0+x) = A(r0+x, c0+r)
        a[(c0 + r) * n + r0 + x] = conj_bits<Complex>(s1[x][r], conj);
      if (pair && r0 + r < n && c0 + x < n)  // A'(r0+r, c0+x) = A(c0+x, r0+r)
        a[(r0 + r) * n + c0 + x] = conj_bits<Complex>(s2[x][r], conj);
    }
    __syncthreads();
  }
}

template <class B>
__global__ void conj_kernel(std::int64_t n, B* __restrict__ v) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    v[k] = conj_bits<true>(v[k], true);
}

// Queues kernel K for OUT = IN^T (ROWS x COLS, neither 0) on stream ST: the runner's launch,
// and transpose_device's with K = tiled. tiled: float (the one 4-byte type: no sign to flip)
// with both sides even by pairs_kernel, else as tiled32; tiled64: 4- or 8-byte values with
// both sides even, else as tiled32. Tile rows beyond the grid's y limit: the kernels loop.
template <bool Complex, class B>
void launch_dense(TransposeCudaKernel k, std::int64_t rows, std::int64_t cols, const B* in, B* out,
                  bool conj, cudaStream_t st) {
  const auto grid = [&](int col_step, int row_step) {  // a block a COL_STEP x ROW_STEP tile
    return dim3(
        static_cast<unsigned>((cols + col_step - 1) / col_step),
        static_cast<unsigned>(std::min<std::int64_t>((rows + row_step - 1) / row_step, kMaxGridY)));
  };
  const dim3 block(kTile, kRows);
  const bool even = rows % 2 == 0 && cols % 2 == 0;
  if (k == TransposeCudaKernel::naive) {
    naive_kernel<Complex, B><<<grid(kTile, kRows), block, 0, st>>>(rows, cols, in, out, conj);
    MM_CUDA_LAUNCHED("transpose naive_kernel");
  } else if (k == TransposeCudaKernel::tiled && sizeof(B) == 4 && even) {
    pairs_kernel<<<grid(2 * kTile, 2 * kTile), block, 0, st>>>(
        rows, cols, reinterpret_cast<const float*>(in), reinterpret_cast<float*>(out));
    MM_CUDA_LAUNCHED("transpose pairs_kernel");
  } else if (k == TransposeCudaKernel::tiled64 && sizeof(B) <= 8 && even) {
    if constexpr (sizeof(B) <= 8) {
      tiled64_kernel<Complex, B>
          <<<grid(2 * kTile, 2 * kTile), block, 0, st>>>(rows, cols, in, out, conj);
      MM_CUDA_LAUNCHED("transpose tiled64_kernel");
    }
  } else {
    tiled_kernel<Complex, B><<<grid(kTile, kTile), block, 0, st>>>(rows, cols, in, out, conj);
    MM_CUDA_LAUNCHED("transpose tiled_kernel");
  }
}

template <class T>
std::int64_t elements(const DenseTransposeProblem<T>& p) {
  return p.rows * p.cols;
}

template <class T>
class DenseRunner final : public cuda::CudaRunner {
 public:
  DenseRunner(const DenseTransposeProblem<T>& p, TransposeCudaKernel k) : p_(p), kernel_(k) {}

  void upload() override {
    const auto n = static_cast<std::size_t>(elements(p_));
    in_ = cuda::Buffer<T>(p_.in, n);
    out_ = cuda::Buffer<T>(n);
    out_.fill_bytes(0xff);  // poison: every element must be written
  }
  void download() override { out_.download(p_.out, static_cast<std::size_t>(elements(p_))); }

 private:
  using B = bits_t<T>;

 protected:
  void launch() override {
    if (elements(p_) == 0) return;
    launch_dense<is_complex_v<T>>(kernel_, p_.rows, p_.cols, reinterpret_cast<const B*>(in_.get()),
                                  reinterpret_cast<B*>(out_.get()), p_.conjugate, cudaStream_t{});
  }

 private:
  DenseTransposeProblem<T> p_;
  TransposeCudaKernel kernel_;
  cuda::Buffer<T> in_, out_;
};

// Runs alternate between A and A^T (as the CPU in-place runners do); download() adds one
// untimed run after an even count so that OUT ends as A^T.
template <class T>
class InplaceRunner final : public cuda::CudaRunner {
 public:
  explicit InplaceRunner(const DenseTransposeProblem<T>& p) : p_(p) {}

  void upload() override {
    const auto n = static_cast<std::size_t>(elements(p_));
    a_ = cuda::Buffer<T>(p_.in ? p_.in : p_.out, n);
  }
  void download() override {
    if (runs_ % 2 == 0) run();
    a_.download(p_.out, static_cast<std::size_t>(elements(p_)));
  }

 protected:
  void launch() override {
    ++runs_;
    if (p_.rows == 0) return;
    using B = bits_t<T>;
    if constexpr (std::is_same_v<T, float>) {
      if (p_.rows % 2 == 0) {  // 64x64 tiles of pairs: every access 8 bytes
        const std::int64_t tiles = (p_.rows + kPairSide - 1) / kPairSide;
        const std::int64_t pairs = tiles * (tiles + 1) / 2;
        inplace_pairs_kernel<<<blocks_for(pairs, 1), dim3(kTile, kInplaceRows)>>>(
            p_.rows, pairs, reinterpret_cast<float*>(a_.get()));
        MM_CUDA_LAUNCHED("transpose inplace_pairs_kernel");
        return;
      }
    }
    const std::int64_t tiles = (p_.rows + kTile - 1) / kTile, pairs = tiles * (tiles + 1) / 2;
    inplace_kernel<is_complex_v<T>, B><<<blocks_for(pairs, 1), dim3(kTile, kRows)>>>(
        p_.rows, pairs, reinterpret_cast<B*>(a_.get()), p_.conjugate);
    MM_CUDA_LAUNCHED("transpose inplace_kernel");
  }

 private:
  DenseTransposeProblem<T> p_;
  cuda::Buffer<T> a_;
  long runs_ = 0;
};

}  // namespace

void cuda_conjugate_bits(void* values, std::int64_t n, std::size_t value_size) {
  if (n == 0) return;
  if (value_size == 8)
    conj_kernel<<<blocks_for(n, 256), 256>>>(n, static_cast<unsigned long long*>(values));
  else if (value_size == 16)
    conj_kernel<<<blocks_for(n, 256), 256>>>(n, static_cast<ulonglong2*>(values));
  else
    throw std::logic_error("cuda_conjugate_bits: complex values are 8 or 16 bytes");
  MM_CUDA_LAUNCHED("transpose conj_kernel");
}

void cuda::transpose_device(const void* in, void* out, std::int64_t rows, std::int64_t cols,
                            std::size_t value_size, cudaStream_t st) {
  constexpr auto k = TransposeCudaKernel::tiled;
  if (rows == 0 || cols == 0) return;
  if (value_size == 4)
    launch_dense<false>(k, rows, cols, static_cast<const unsigned*>(in),
                        static_cast<unsigned*>(out), false, st);
  else if (value_size == 8)
    launch_dense<false>(k, rows, cols, static_cast<const unsigned long long*>(in),
                        static_cast<unsigned long long*>(out), false, st);
  else if (value_size == 16)
    launch_dense<false>(k, rows, cols, static_cast<const ulonglong2*>(in),
                        static_cast<ulonglong2*>(out), false, st);
  else
    throw std::logic_error("cuda::transpose_device: values are 4, 8 or 16 bytes");
}

template <class T>
std::unique_ptr<Runner> make_transpose_cuda(const DenseTransposeProblem<T>& p,
                                            TransposeCudaKernel k) {
  return std::make_unique<DenseRunner<T>>(p, k);
}

template <class T>
std::unique_ptr<Runner> make_transpose_cuda_inplace(const DenseTransposeProblem<T>& p) {
  // Checked before the runner exists: its events need a GPU, the refusal does not.
  if (p.rows != p.cols)
    throw InputError("an in-place transpose needs a square matrix, not " + std::to_string(p.rows) +
                     " x " + std::to_string(p.cols));
  return std::make_unique<InplaceRunner<T>>(p);
}

#define MM_TRANSPOSE_CUDA_DENSE(T)                                                         \
  template std::unique_ptr<Runner> make_transpose_cuda<T>(const DenseTransposeProblem<T>&, \
                                                          TransposeCudaKernel);            \
  template std::unique_ptr<Runner> make_transpose_cuda_inplace<T>(const DenseTransposeProblem<T>&);
MM_TRANSPOSE_VALUE_TYPES(MM_TRANSPOSE_CUDA_DENSE)

}  // namespace mm
