// Hand-written CUDA SpMV: a thread per row (scalar), a warp per row (vector), and row
// blocks balanced by nonzeros and staged through shared memory (adaptive).
#include <algorithm>
#include <climits>

#include "cuda/cuda_util.cuh"
#include "cuda/spmv_cuda.hpp"
#include "cuda/warp.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using cuda::dev_t;

// Tuning: threads per block, nonzeros staged per adaptive block, and the rows a block of
// few long rows hands to a warp each instead of a thread each.
constexpr int kThreads = 256;
constexpr int kBlockNnz = 2048;
constexpr int kWarpRowsMax = kThreads / 32;

template <class I, class T>
__global__ void __launch_bounds__(kThreads)
    scalar_kernel(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ idx,
                  const T* __restrict__ val, const T* __restrict__ x, const T* __restrict__ y0,
                  T* __restrict__ y, T alpha, T beta) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows) return;
  T s{};
  for (I k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k] * cuda::ldg(x + idx[k]);
  y[i] = y0 ? alpha * s + beta * y0[i] : alpha * s;
}

template <class I, class T>
__global__ void __launch_bounds__(kThreads)
    vector_kernel(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ idx,
                  const T* __restrict__ val, const T* __restrict__ x, const T* __restrict__ y0,
                  T* __restrict__ y, T alpha, T beta) {
  const std::int64_t i = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (i >= rows) return;
  T s{};
  for (I k = ptr[i] + lane; k < ptr[i + 1]; k += 32) s += val[k] * cuda::ldg(x + idx[k]);
  s = cuda::group_sum<32>(s);
  if (lane == 0) y[i] = y0 ? alpha * s + beta * y0[i] : alpha * s;
}

// One unit of adaptive work, by kind:
//  staged: rows [row0, row1) whose nonzeros fit the shared staging buffer;
//  direct: up to kThreads short rows whose columns lie close together, a thread per row
//          reading straight from memory (x stays in cache, so staging only costs);
//  chunk:  part [k0, k1) of one row too long for a block, added atomically.
enum BlockKind : int { kStaged = 0, kChunk = 1, kDirect = 2 };
struct RowBlock {
  std::int64_t row0, row1, k0, k1;
  int kind;
};
// A direct block's rows are at most this long, and its columns span at most this many
// (64K doubles: 512 KB of x, well inside L2).
constexpr int kDirectRowMax = 32;
constexpr std::int64_t kDirectSpan = 1 << 16;

template <class I, class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_kernel(const RowBlock* __restrict__ blocks, const I* __restrict__ ptr,
                    const I* __restrict__ idx, const T* __restrict__ val, const T* __restrict__ x,
                    const T* __restrict__ y0, T* __restrict__ y, T alpha, T beta) {
  __shared__ T prod[kBlockNnz];
  const RowBlock b = blocks[blockIdx.x];
  const int t = threadIdx.x;
  if (b.kind == kDirect) {
    const std::int64_t i = b.row0 + t;
    if (i < b.row1) {
      T s{};
      for (I k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k] * cuda::ldg(x + idx[k]);
      y[i] = y0 ? alpha * s + beta * y0[i] : alpha * s;
    }
    return;
  }
  if (b.kind == kChunk) {  // part of a row too long for one block: partial sums meet in y
    T s{};
    for (std::int64_t k = b.k0 + t; k < b.k1; k += kThreads) s += val[k] * cuda::ldg(x + idx[k]);
    s = cuda::block_sum<kThreads>(s);
    if (t == 0) cuda::atomic_add(y + b.row0, alpha * s);
    return;
  }
  // Stage the block's products: coalesced reads of val and idx, one pass.
  const std::int64_t k0 = ptr[b.row0], n = ptr[b.row1] - k0;
  for (std::int64_t k = t; k < n; k += kThreads) prod[k] = val[k0 + k] * cuda::ldg(x + idx[k0 + k]);
  __syncthreads();
  const std::int64_t nrows = b.row1 - b.row0;
  if (nrows <= kWarpRowsMax) {  // few, longer rows: a warp reduces each
    const int warp = t / 32, lane = t % 32;
    if (warp < nrows) {
      const std::int64_t i = b.row0 + warp;
      T s{};
      for (std::int64_t k = ptr[i] - k0 + lane; k < ptr[i + 1] - k0; k += 32) s += prod[k];
      s = cuda::group_sum<32>(s);
      if (lane == 0) y[i] = y0 ? alpha * s + beta * y0[i] : alpha * s;
    }
    return;
  }
  for (std::int64_t r = t; r < nrows; r += kThreads) {  // many short rows: a thread each
    const std::int64_t i = b.row0 + r;
    T s{};
    for (std::int64_t k = ptr[i] - k0; k < ptr[i + 1] - k0; ++k) s += prod[k];
    y[i] = y0 ? alpha * s + beta * y0[i] : alpha * s;
  }
}

// y = beta*y0 (or 0) on the rows that chunks will add into.
template <class T>
__global__ void init_long_rows(const std::int64_t* __restrict__ rows, std::int64_t n,
                               const T* __restrict__ y0, T* __restrict__ y, T beta) {
  const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (j < n) y[rows[j]] = y0 ? beta * y0[rows[j]] : T{};
}

// Cuts the rows into blocks: direct where kThreads short rows with nearby columns follow,
// else staged blocks of at most kBlockNnz nonzeros; a longer row becomes chunks.
template <class I>
void plan_blocks(const std::vector<I>& ptr, const std::vector<I>& idx, std::int64_t rows,
                 std::vector<RowBlock>& blocks, std::vector<std::int64_t>& long_rows) {
  std::int64_t i = 0;
  while (i < rows) {
    const std::int64_t end = std::min<std::int64_t>(i + kThreads, rows);
    bool direct = true;
    std::int64_t lo = INT64_MAX, hi = -1;
    for (std::int64_t r = i; r < end && direct; ++r) {
      direct = ptr[r + 1] - ptr[r] <= kDirectRowMax;
      for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
        lo = std::min<std::int64_t>(lo, idx[k]);
        hi = std::max<std::int64_t>(hi, idx[k]);
      }
    }
    if (direct && hi - lo < kDirectSpan) {
      blocks.push_back({i, end, 0, 0, kDirect});
      i = end;
      continue;
    }
    const std::int64_t len = ptr[i + 1] - ptr[i];
    if (len > kBlockNnz) {
      long_rows.push_back(i);
      for (std::int64_t k = ptr[i]; k < ptr[i + 1]; k += 4 * kBlockNnz)
        blocks.push_back(
            {i, i + 1, k, std::min<std::int64_t>(k + 4 * kBlockNnz, ptr[i + 1]), kChunk});
      ++i;
      continue;
    }
    std::int64_t j = i + 1;
    while (j < rows && ptr[j + 1] - ptr[i] <= kBlockNnz && j - i < kBlockNnz) ++j;
    blocks.push_back({i, j, 0, 0, kStaged});
    i = j;
  }
}

std::int64_t grid_for(std::int64_t threads) {
  return (threads + kThreads - 1) / kThreads;
}

template <class I, class T>
class SpmvCudaRunner final : public cuda::CudaRunner {
 public:
  SpmvCudaRunner(const SpmvProblem<I, T>& p, SpmvCudaKernel k) : p_(p), kernel_(k) {}

  void upload() override {
    const Csr<I, T>& a = *p_.full;
    ptr_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    idx_ = cuda::Buffer<I>(a.idx.data(), a.idx.size());
    val_ = cuda::Buffer<T>(a.val.data(), a.val.size());
    x_ = cuda::Buffer<T>(p_.x, static_cast<std::size_t>(a.cols));
    if (p_.beta != T{}) y0_ = cuda::Buffer<T>(p_.y0, static_cast<std::size_t>(a.rows));
    y_ = cuda::Buffer<T>(static_cast<std::size_t>(a.rows));
    y_.fill_bytes(0xff);  // poison: every row must be written
    if (kernel_ == SpmvCudaKernel::adaptive) {
      std::vector<RowBlock> blocks;
      std::vector<std::int64_t> long_rows;
      plan_blocks(a.ptr, a.idx, a.rows, blocks, long_rows);
      blocks_ = cuda::Buffer<RowBlock>(blocks.data(), blocks.size());
      long_rows_ = cuda::Buffer<std::int64_t>(long_rows.data(), long_rows.size());
    }
  }

  void download() override { y_.download(p_.y, static_cast<std::size_t>(p_.full->rows)); }

 protected:
  void launch() override {
    using D = dev_t<T>;
    const std::int64_t rows = p_.full->rows;
    const D alpha = cuda::to_dev(p_.alpha), beta = cuda::to_dev(p_.beta);
    const D* y0 = p_.beta != T{} ? y0_.dev() : nullptr;
    if (rows == 0) return;
    switch (kernel_) {
      case SpmvCudaKernel::scalar:
        scalar_kernel<I, D><<<grid_for(rows), kThreads>>>(rows, ptr_.get(), idx_.get(), val_.dev(),
                                                          x_.dev(), y0, y_.dev(), alpha, beta);
        MM_CUDA_LAUNCHED("spmv scalar_kernel");
        break;
      case SpmvCudaKernel::vector:
        vector_kernel<I, D><<<grid_for(rows * 32), kThreads>>>(
            rows, ptr_.get(), idx_.get(), val_.dev(), x_.dev(), y0, y_.dev(), alpha, beta);
        MM_CUDA_LAUNCHED("spmv vector_kernel");
        break;
      case SpmvCudaKernel::adaptive:
        if (long_rows_.size()) {
          const auto n = static_cast<std::int64_t>(long_rows_.size());
          init_long_rows<D><<<grid_for(n), kThreads>>>(long_rows_.get(), n, y0, y_.dev(), beta);
          MM_CUDA_LAUNCHED("spmv init_long_rows");
        }
        if (blocks_.size()) {
          adaptive_kernel<I, D><<<blocks_.size(), kThreads>>>(blocks_.get(), ptr_.get(), idx_.get(),
                                                              val_.dev(), x_.dev(), y0, y_.dev(),
                                                              alpha, beta);
          MM_CUDA_LAUNCHED("spmv adaptive_kernel");
        }
        break;
    }
  }

 private:
  SpmvProblem<I, T> p_;
  SpmvCudaKernel kernel_;
  cuda::Buffer<I> ptr_, idx_;
  cuda::Buffer<T> val_, x_, y0_, y_;
  cuda::Buffer<RowBlock> blocks_;
  cuda::Buffer<std::int64_t> long_rows_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_spmv_cuda(const SpmvProblem<I, T>& p, SpmvCudaKernel k) {
  return std::make_unique<SpmvCudaRunner<I, T>>(p, k);
}

#define MM_SPMV_CUDA(I, T) \
  template std::unique_ptr<Runner> make_spmv_cuda<I, T>(const SpmvProblem<I, T>&, SpmvCudaKernel);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_CUDA)

}  // namespace mm
