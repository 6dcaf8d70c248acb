// Hand-written CUDA addition C = alpha*A + beta*B: the seed's variants for dense operands
// (sequential, a thread per element, shared-memory tiles, 16-byte grid-stride loop), dense +
// sparse, and sparse + sparse by a per-row union count, a scan and a fill.
#include <cub/cub.cuh>

#include <algorithm>
#include <limits>

#include "cuda/add_cuda.hpp"
#include "cuda/cuda_util.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using cuda::dev_t;

// Tuning: 16x16 blocks for the 2D kernels (the seed's shape), 256 threads elsewhere.
constexpr int kSide = 16;
constexpr int kThreads = 256;
constexpr unsigned kMaxGridY = 65535;

// Products and sums rounded one by one, never fused into an FMA: the results then match the
// CPU kernels (and NumPy) bit for bit on finite values, so a sum that nearly cancels keeps
// the same relative error on both devices. Complex products are (ac - bd, ad + bc), as the
// host's std::complex computes finite ones.
__device__ __forceinline__ float mul(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ double mul(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ __forceinline__ float add(float a, float b) {
  return __fadd_rn(a, b);
}
__device__ __forceinline__ double add(double a, double b) {
  return __dadd_rn(a, b);
}
template <class R>
__device__ __forceinline__ ::cuda::std::complex<R> mul(::cuda::std::complex<R> a,
                                                       ::cuda::std::complex<R> b) {
  return {add(mul(a.real(), b.real()), -mul(a.imag(), b.imag())),
          add(mul(a.real(), b.imag()), mul(a.imag(), b.real()))};
}
template <class R>
__device__ __forceinline__ ::cuda::std::complex<R> add(::cuda::std::complex<R> a,
                                                       ::cuda::std::complex<R> b) {
  return {add(a.real(), b.real()), add(a.imag(), b.imag())};
}
// alpha*a + beta*b
template <class T>
__device__ __forceinline__ T axpby(T alpha, T a, T beta, T b) {
  return add(mul(alpha, a), mul(beta, b));
}

template <class T>
__global__ void seq_kernel(std::int64_t n, const T* __restrict__ a, const T* __restrict__ b,
                           T* __restrict__ c, T alpha, T beta) {
  for (std::int64_t k = 0; k < n; ++k) c[k] = axpby(alpha, a[k], beta, b[k]);
}

// x along columns (coalesced), y along rows; rows beyond the grid's 65535 blocks loop.
template <class T>
__global__ void __launch_bounds__(kSide* kSide)
    naive_kernel(std::int64_t rows, std::int64_t cols, const T* __restrict__ a,
                 const T* __restrict__ b, T* __restrict__ c, T alpha, T beta) {
  const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(kSide) + threadIdx.x;
  if (j >= cols) return;
  for (std::int64_t i = blockIdx.y * static_cast<std::int64_t>(kSide) + threadIdx.y; i < rows;
       i += static_cast<std::int64_t>(gridDim.y) * kSide) {
    const std::int64_t k = i * cols + j;
    c[k] = axpby(alpha, a[k], beta, b[k]);
  }
}

// As the seed did: both tiles staged through shared memory first. Every element is used
// once, so the staging only adds a barrier (kept for comparison, not for speed).
template <class T>
__global__ void __launch_bounds__(kSide* kSide)
    shared_kernel(std::int64_t rows, std::int64_t cols, const T* __restrict__ a,
                  const T* __restrict__ b, T* __restrict__ c, T alpha, T beta) {
  // Raw bytes: complex values have constructors, which __shared__ arrays may not run.
  __shared__ __align__(16) unsigned char raw[2 * kSide * kSide * sizeof(T)];
  T* sa = reinterpret_cast<T*>(raw);
  T* sb = sa + kSide * kSide;
  const int t = threadIdx.y * kSide + threadIdx.x;
  const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(kSide) + threadIdx.x;
  // i0 is the same for the whole block, so every thread reaches the barriers.
  for (std::int64_t i0 = blockIdx.y * static_cast<std::int64_t>(kSide); i0 < rows;
       i0 += static_cast<std::int64_t>(gridDim.y) * kSide) {
    const std::int64_t i = i0 + threadIdx.y;
    const bool inside = i < rows && j < cols;
    if (inside) {
      sa[t] = a[i * cols + j];
      sb[t] = b[i * cols + j];
    }
    __syncthreads();
    if (inside) c[i * cols + j] = axpby(alpha, sa[t], beta, sb[t]);
    __syncthreads();
  }
}

// 16 bytes of values: float4-, double2-sized packs, loaded and stored whole.
template <class T>
struct alignas(16) Pack {
  T v[16 / sizeof(T)];
};

// C = alpha*A + beta*B over N elements (or C = alpha*A when B is null), W values a thread
// at a time in a grid-stride loop, then the tail of fewer than W elements.
template <class T>
__global__ void __launch_bounds__(kThreads)
    vec_kernel(std::int64_t n, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
               T alpha, T beta) {
  constexpr int W = 16 / sizeof(T);
  const std::int64_t packs = n / W;
  const std::int64_t start = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const auto* pa = reinterpret_cast<const Pack<T>*>(a);
  const auto* pb = reinterpret_cast<const Pack<T>*>(b);
  auto* pc = reinterpret_cast<Pack<T>*>(c);
  if (b) {
    for (std::int64_t k = start; k < packs; k += stride) {
      const Pack<T> x = pa[k], y = pb[k];
      Pack<T> z;
#pragma unroll
      for (int w = 0; w < W; ++w) z.v[w] = axpby(alpha, x.v[w], beta, y.v[w]);
      pc[k] = z;
    }
    for (std::int64_t k = packs * W + start; k < n; k += stride)
      c[k] = axpby(alpha, a[k], beta, b[k]);
  } else {
    for (std::int64_t k = start; k < packs; k += stride) {
      const Pack<T> x = pa[k];
      Pack<T> z;
#pragma unroll
      for (int w = 0; w < W; ++w) z.v[w] = mul(alpha, x.v[w]);
      pc[k] = z;
    }
    for (std::int64_t k = packs * W + start; k < n; k += stride) c[k] = mul(alpha, a[k]);
  }
}

// C += ss*S, a thread per row (columns within a row are unique: no two threads meet).
template <class I, class T>
__global__ void __launch_bounds__(kThreads)
    scatter_rows(std::int64_t rows, std::int64_t cols, const I* __restrict__ ptr,
                 const I* __restrict__ idx, const T* __restrict__ val, T* __restrict__ c, T ss) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    for (I k = ptr[i]; k < ptr[i + 1]; ++k)
      c[i * cols + idx[k]] = add(c[i * cols + idx[k]], mul(ss, val[k]));
}

// Pass 1 of sparse + sparse: the size of each row's union of columns.
template <class I>
__global__ void __launch_bounds__(kThreads)
    union_count(std::int64_t rows, const I* __restrict__ ap, const I* __restrict__ ai,
                const I* __restrict__ bp, const I* __restrict__ bi, I* __restrict__ count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    I p = ap[i], q = bp[i], n = 0;
    const I pe = ap[i + 1], qe = bp[i + 1];
    while (p < pe && q < qe) {
      const I ja = ai[p], jb = bi[q];
      p += ja <= jb;
      q += jb <= ja;
      ++n;
    }
    count[i] = n + (pe - p) + (qe - q);
  }
}

// Pass 2: each row's merge written from its offset (the scanned counts).
template <class I, class T>
__global__ void __launch_bounds__(kThreads)
    union_fill(std::int64_t rows, const I* __restrict__ ap, const I* __restrict__ ai,
               const T* __restrict__ av, const I* __restrict__ bp, const I* __restrict__ bi,
               const T* __restrict__ bv, const I* __restrict__ cp, I* __restrict__ ci,
               T* __restrict__ cv, T alpha, T beta) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    I p = ap[i], q = bp[i], o = cp[i];
    const I pe = ap[i + 1], qe = bp[i + 1];
    while (p < pe && q < qe) {
      const I ja = ai[p], jb = bi[q];
      if (ja < jb) {
        ci[o] = ja;
        cv[o] = mul(alpha, av[p++]);
      } else if (jb < ja) {
        ci[o] = jb;
        cv[o] = mul(beta, bv[q++]);
      } else {
        ci[o] = ja;
        cv[o] = axpby(alpha, av[p++], beta, bv[q++]);
      }
      ++o;
    }
    for (; p < pe; ++p, ++o) {
      ci[o] = ai[p];
      cv[o] = mul(alpha, av[p]);
    }
    for (; q < qe; ++q, ++o) {
      ci[o] = bi[q];
      cv[o] = mul(beta, bv[q]);
    }
  }
}

unsigned blocks_for(std::int64_t work, std::int64_t cap) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((work + kThreads - 1) / kThreads, 1, cap));
}

template <class T>
dev_t<T> dev_value(const T& v) {
  return cuda::to_dev(v);
}

// A CSR matrix in device memory.
template <class I, class T>
struct DeviceCsr {
  cuda::Buffer<I> ptr, idx;
  cuda::Buffer<T> val;
  explicit DeviceCsr(const Csr<I, T>& a)
      : ptr(a.ptr.data(), a.ptr.size()),
        idx(a.idx.data(), a.idx.size()),
        val(a.val.data(), a.val.size()) {}
};

// Dense results: dense + dense by any of the four kernels; dense + sparse by vec.
template <class I, class T>
class DenseRunner final : public cuda::CudaRunner {
 public:
  DenseRunner(const AddProblem<I, T>& p, AddCudaKernel k) : p_(p), kernel_(k) {}

  void upload() override {
    const Dense<T>* d = p_.a.dense ? p_.a.dense : p_.b.dense;
    d_ = cuda::Buffer<T>(d->data.data(), d->data.size());
    if (p_.a.dense && p_.b.dense)
      b_ = cuda::Buffer<T>(p_.b.dense->data.data(), p_.b.dense->data.size());
    else
      s_ = std::make_unique<DeviceCsr<I, T>>(p_.a.sparse ? *p_.a.sparse : *p_.b.sparse);
    c_ = cuda::Buffer<T>(d->data.size());
    c_.fill_bytes(0xff);  // poison: every element must be written
  }
  void download() override { c_.download(p_.dense_out->data.data(), c_.size()); }

 protected:
  void launch() override {
    using D = dev_t<T>;
    const Dense<T>& d = p_.a.dense ? *p_.a.dense : *p_.b.dense;
    const std::int64_t rows = d.rows, cols = d.cols, n = rows * cols;
    if (n == 0) return;
    const D alpha = dev_value(p_.alpha), beta = dev_value(p_.beta);
    const unsigned wide = static_cast<unsigned>(cuda::multiprocessors()) * 8;
    if (s_) {  // C = ds*D, then ss*S added row by row
      const D ds = p_.a.dense ? alpha : beta, ss = p_.a.dense ? beta : alpha;
      vec_kernel<D><<<blocks_for(n / (16 / sizeof(T)) + 1, wide), kThreads>>>(n, d_.dev(), nullptr,
                                                                              c_.dev(), ds, D{});
      MM_CUDA_LAUNCHED("add vec_kernel (scale)");
      scatter_rows<I, D><<<blocks_for(rows, 1 << 20), kThreads>>>(
          rows, cols, s_->ptr.get(), s_->idx.get(), s_->val.dev(), c_.dev(), ss);
      MM_CUDA_LAUNCHED("add scatter_rows");
      return;
    }
    const dim3 block(kSide, kSide);
    const dim3 grid(
        static_cast<unsigned>((cols + kSide - 1) / kSide),
        static_cast<unsigned>(std::min<std::int64_t>((rows + kSide - 1) / kSide, kMaxGridY)));
    switch (kernel_) {
      case AddCudaKernel::seq:
        seq_kernel<D><<<1, 1>>>(n, d_.dev(), b_.dev(), c_.dev(), alpha, beta);
        MM_CUDA_LAUNCHED("add seq_kernel");
        break;
      case AddCudaKernel::naive:
        naive_kernel<D><<<grid, block>>>(rows, cols, d_.dev(), b_.dev(), c_.dev(), alpha, beta);
        MM_CUDA_LAUNCHED("add naive_kernel");
        break;
      case AddCudaKernel::shared:
        shared_kernel<D><<<grid, block>>>(rows, cols, d_.dev(), b_.dev(), c_.dev(), alpha, beta);
        MM_CUDA_LAUNCHED("add shared_kernel");
        break;
      default:
        vec_kernel<D><<<blocks_for(n / (16 / sizeof(T)) + 1, wide), kThreads>>>(
            n, d_.dev(), b_.dev(), c_.dev(), alpha, beta);
        MM_CUDA_LAUNCHED("add vec_kernel");
        break;
    }
  }

 private:
  AddProblem<I, T> p_;
  AddCudaKernel kernel_;
  cuda::Buffer<T> d_, b_, c_;  // d_: A, or the dense operand of a mixed sum
  std::unique_ptr<DeviceCsr<I, T>> s_;
};

// Sparse + sparse: C's arrays are sized for nnz(A) + nnz(B) once at upload, so that a run
// allocates nothing; download() reads C's true size from its last row pointer.
template <class I, class T>
class SparseRunner final : public cuda::CudaRunner {
 public:
  explicit SparseRunner(const AddProblem<I, T>& p) : p_(p) {}

  void upload() override {
    const Csr<I, T>&a = *p_.a.sparse, &b = *p_.b.sparse;
    a_ = std::make_unique<DeviceCsr<I, T>>(a);
    b_ = std::make_unique<DeviceCsr<I, T>>(b);
    const auto rows = static_cast<std::size_t>(a.rows),
               cap = static_cast<std::size_t>(a.nnz() + b.nnz());
    count_ = cuda::Buffer<I>(rows);
    cp_ = cuda::Buffer<I>(rows + 1);
    cp_.fill_bytes(0);  // cp[0] stays 0; the scan writes the rest
    ci_ = cuda::Buffer<I>(cap);
    cv_ = cuda::Buffer<T>(cap);
    ci_.fill_bytes(0xff);  // poison: every entry must be written
    cv_.fill_bytes(0xff);
    std::size_t bytes = 0;
    if (rows)
      MM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, count_.get(), cp_.get() + 1, a.rows));
    temp_ = cuda::Buffer<char>(std::max<std::size_t>(bytes, 1));
  }

  void download() override {
    Csr<I, T>& c = *p_.sparse_out;
    c.rows = p_.a.sparse->rows;
    c.cols = p_.a.sparse->cols;
    c.ptr.resize(static_cast<std::size_t>(c.rows) + 1);
    cp_.download(c.ptr.data(), c.ptr.size());
    const auto nnz = static_cast<std::size_t>(c.ptr.back());
    c.idx.resize(nnz);
    c.val.resize(nnz);
    ci_.download(c.idx.data(), nnz);
    cv_.download(c.val.data(), nnz);
  }

 protected:
  void launch() override {
    using D = dev_t<T>;
    const std::int64_t rows = p_.a.sparse->rows;
    if (rows == 0) return;
    const unsigned grid = blocks_for(rows, 1 << 20);
    union_count<I><<<grid, kThreads>>>(rows, a_->ptr.get(), a_->idx.get(), b_->ptr.get(),
                                       b_->idx.get(), count_.get());
    MM_CUDA_LAUNCHED("add union_count");
    std::size_t bytes = temp_.size();
    MM_CUDA(cub::DeviceScan::InclusiveSum(temp_.get(), bytes, count_.get(), cp_.get() + 1, rows));
    union_fill<I, D><<<grid, kThreads>>>(
        rows, a_->ptr.get(), a_->idx.get(), a_->val.dev(), b_->ptr.get(), b_->idx.get(),
        b_->val.dev(), cp_.get(), ci_.get(), cv_.dev(), dev_value(p_.alpha), dev_value(p_.beta));
    MM_CUDA_LAUNCHED("add union_fill");
  }

 private:
  AddProblem<I, T> p_;
  std::unique_ptr<DeviceCsr<I, T>> a_, b_;
  cuda::Buffer<I> count_, cp_, ci_;
  cuda::Buffer<T> cv_;
  cuda::Buffer<char> temp_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_add_cuda(const AddProblem<I, T>& p, AddCudaKernel k) {
  // Refusals come before the runner exists: its events need a GPU, these checks do not.
  if (k == AddCudaKernel::sparse) {
    const std::int64_t cap = p.a.sparse->nnz() + p.b.sparse->nnz();
    if (cap > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
      throw InputError("nnz(A) + nnz(B) = " + std::to_string(cap) +
                       " does not fit the index type; use 64-bit indices");
    return std::make_unique<SparseRunner<I, T>>(p);
  }
  if (k == AddCudaKernel::seq) {
    const std::int64_t n = p.a.dense->rows * p.a.dense->cols;
    if (n > add_cuda_seq_max)
      throw InputError("--impl cuda-seq runs on one GPU thread and takes at most " +
                       std::to_string(add_cuda_seq_max) + " elements, not " + std::to_string(n) +
                       "; use cuda-vec");
  }
  return std::make_unique<DenseRunner<I, T>>(p, k);
}

#define MM_ADD_CUDA(I, T) \
  template std::unique_ptr<Runner> make_add_cuda<I, T>(const AddProblem<I, T>&, AddCudaKernel);
MM_FOR_INDEX_VALUE_TYPES(MM_ADD_CUDA)

}  // namespace mm
