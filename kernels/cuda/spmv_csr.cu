// Hand-written CUDA SpMV on CSR: a thread per row (scalar), a warp per row (vector), and row
// blocks balanced by nonzeros and staged through shared memory (adaptive), with the launches
// that spmv.cu's runner and SpmvCudaDevice share.
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/spmv_csr.cuh"
#include "cuda/spmv_device.hpp"
#include "cuda/spmv_loads.cuh"
#include "cuda/warp.cuh"
#include "instantiate.hpp"

namespace mm {

namespace spmv_csr {

// Tuning (with spmv_csr.cuh's kThreads, the threads per block): nonzeros staged per adaptive
// block, and the rows a block of few long rows hands to a warp each instead of a thread each.
constexpr int kBlockNnz = 2048;
constexpr int kWarpRowsMax = kThreads / 32;

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

namespace {

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

// HINTED: the loads under the L2 mode L2's policies (x kept by default); else plain loads.
template <bool HINTED, class I, class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_kernel(const RowBlock* __restrict__ blocks, const I* __restrict__ ptr,
                    const I* __restrict__ idx, const T* __restrict__ val, const T* __restrict__ x,
                    const T* __restrict__ y0, T* __restrict__ y, T alpha, T beta, int l2) {
  __shared__ T prod[kBlockNnz];
  const cuda::L2Policy pol = HINTED ? cuda::l2_policy(l2) : cuda::L2Policy{};
  const auto ld = [&](const auto* p) { return cuda::ld_s<HINTED>(p, pol.stream); };
  const auto ldx = [&](const T* p) { return cuda::ld_xs<HINTED>(p, pol.x); };
  const RowBlock b = blocks[blockIdx.x];
  const int t = threadIdx.x;
  if (b.kind == kDirect) {  // plain loads: hinted ones measured 0.4-0.7x here (H100)
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
    for (std::int64_t k = b.k0 + t; k < b.k1; k += kThreads)
      s += ld(val + k) * ldx(x + ld(idx + k));
    s = cuda::block_sum<kThreads>(s);
    if (t == 0) cuda::atomic_add(y + b.row0, alpha * s);
    return;
  }
  // Stage the block's products: coalesced reads of val and idx, one pass.
  const std::int64_t k0 = ld(ptr + b.row0), n = ld(ptr + b.row1) - k0;
  for (std::int64_t k = t; k < n; k += kThreads)
    prod[k] = ld(val + k0 + k) * ldx(x + ld(idx + k0 + k));
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

}  // namespace

template <class I, class T>
AdaptivePlan plan_adaptive(const Csr<I, T>& a) {
  std::vector<RowBlock> blocks;
  std::vector<std::int64_t> long_rows;
  plan_blocks(a.ptr, a.idx, a.rows, blocks, long_rows);
  AdaptivePlan p;
  p.blocks = cuda::Buffer<RowBlock>(blocks.data(), blocks.size());
  p.long_rows = cuda::Buffer<std::int64_t>(long_rows.data(), long_rows.size());
  return p;
}

template <class I, class D>
void launch_csr(SpmvCudaKernel k, std::int64_t rows, const I* ptr, const I* idx, const D* val,
                const D* x, const D* y0, D* y, D alpha, D beta, const AdaptivePlan& plan, int l2,
                cudaStream_t stream) {
  const RowBlock* blocks = plan.blocks.get();
  const std::int64_t* long_rows = plan.long_rows.get();
  const std::size_t n_blocks = plan.blocks.size(), n_long = plan.long_rows.size();
  if (rows == 0) return;
  switch (k) {
    case SpmvCudaKernel::scalar:
      scalar_kernel<I, D>
          <<<grid_for(rows), kThreads, 0, stream>>>(rows, ptr, idx, val, x, y0, y, alpha, beta);
      MM_CUDA_LAUNCHED("spmv scalar_kernel");
      break;
    case SpmvCudaKernel::vector:
      vector_kernel<I, D><<<grid_for(rows * 32), kThreads, 0, stream>>>(rows, ptr, idx, val, x, y0,
                                                                        y, alpha, beta);
      MM_CUDA_LAUNCHED("spmv vector_kernel");
      break;
    case SpmvCudaKernel::adaptive:
      if (n_long) {
        const auto n = static_cast<std::int64_t>(n_long);
        init_long_rows<D><<<grid_for(n), kThreads, 0, stream>>>(long_rows, n, y0, y, beta);
        MM_CUDA_LAUNCHED("spmv init_long_rows");
      }
      if (n_blocks) {
        const auto go =
            l2 == cuda::kL2Plain ? adaptive_kernel<false, I, D> : adaptive_kernel<true, I, D>;
        go<<<n_blocks, kThreads, 0, stream>>>(blocks, ptr, idx, val, x, y0, y, alpha, beta, l2);
        MM_CUDA_LAUNCHED("spmv adaptive_kernel");
      }
      break;
    default:
      throw std::logic_error("launch_csr: the vector-k and merge kernels run from their runner");
  }
}

}  // namespace spmv_csr

using spmv_csr::AdaptivePlan;
using spmv_csr::launch_csr;

template <class I, class T>
struct SpmvCudaDevice<I, T>::Impl {
  SpmvCudaKernel kernel;
  std::int64_t rows;
  cuda::Buffer<I> ptr, idx;
  cuda::Buffer<T> val;
  AdaptivePlan plan;
};

template <class I, class T>
SpmvCudaDevice<I, T>::SpmvCudaDevice(const Csr<I, T>& a, SpmvCudaKernel kernel)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.kernel = kernel;
  m.rows = a.rows;
  m.ptr = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
  m.idx = cuda::Buffer<I>(a.idx.data(), a.idx.size());
  m.val = cuda::Buffer<T>(a.val.data(), a.val.size());
  if (kernel == SpmvCudaKernel::adaptive) m.plan = spmv_csr::plan_adaptive(a);
}

template <class I, class T>
SpmvCudaDevice<I, T>::~SpmvCudaDevice() = default;

template <class I, class T>
std::int64_t SpmvCudaDevice<I, T>::rows() const {
  return impl_->rows;
}

template <class I, class T>
void SpmvCudaDevice<I, T>::apply(const T* x, const T* y0, T* y, T alpha, T beta,
                                 cudaStream_t stream) const {
  using D = cuda::dev_t<T>;
  const Impl& m = *impl_;
  launch_csr<I, D>(m.kernel, m.rows, m.ptr.get(), m.idx.get(), m.val.dev(),
                   reinterpret_cast<const D*>(x),
                   beta != T{} ? reinterpret_cast<const D*>(y0) : nullptr, reinterpret_cast<D*>(y),
                   cuda::to_dev(alpha), cuda::to_dev(beta), m.plan, cuda::kL2Plain, stream);
}

#define MM_SPMV_CSR(I, T)                                                            \
  template AdaptivePlan spmv_csr::plan_adaptive<I, T>(const Csr<I, T>&);             \
  template void spmv_csr::launch_csr<I, cuda::dev_t<T>>(                             \
      SpmvCudaKernel, std::int64_t, const I*, const I*, const cuda::dev_t<T>*,       \
      const cuda::dev_t<T>*, const cuda::dev_t<T>*, cuda::dev_t<T>*, cuda::dev_t<T>, \
      cuda::dev_t<T>, const AdaptivePlan&, int, cudaStream_t);                       \
  template class SpmvCudaDevice<I, T>;
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_CSR)

}  // namespace mm
