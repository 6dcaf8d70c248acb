// DistKrylovOps' vectors on a GPU rank: device vectors, the local vector kernels on the compute
// stream, and dot products summed on the GPU, then reduced across the ranks in one call.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cuda/warp.cuh"
#include "dist/cuda/gpu_context.cuh"
#include "instantiate.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

namespace gpu {

namespace {

using cuda::dev_t;

// Tuning: threads a block; the most blocks a dot product's first pass uses (each leaves one
// partial sum: 1024 keeps the second pass one small block's work); the most dot products one
// launch computes (their pointers travel as a kernel parameter, 512 bytes at 32).
constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 1024;
constexpr int kBatch = 32;

template <class D>
struct Pointers {
  const D* x[kBatch];
  const D* y[kBatch];
};

template <class D>
__device__ __forceinline__ D conj_times(const D& x, const D& y) {
  if constexpr (std::is_arithmetic_v<D>)
    return x * y;
  else
    return ::cuda::std::conj(x) * y;
}

// Pass one: block b of row j of the grid sums conj(x_j) y_j over its stride of the rows into
// partials[j * gridDim.x + b] (a fixed order: the same sums every run).
template <class D>
__global__ void __launch_bounds__(kThreads)
    dot_partials(std::int64_t n, Pointers<D> p, D* __restrict__ partials) {
  const int j = blockIdx.y;
  const D* __restrict__ x = p.x[j];
  const D* __restrict__ y = p.y[j];
  D s{};
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads)
    s += conj_times(x[i], y[i]);
  s = cuda::block_sum<kThreads>(s);
  if (threadIdx.x == 0) partials[j * gridDim.x + blockIdx.x] = s;
}

// Pass two: block j adds the BLOCKS partials of dot j, in order, into out[j].
template <class D>
__global__ void __launch_bounds__(kThreads)
    dot_finish(int blocks, const D* __restrict__ partials, D* __restrict__ out) {
  const int j = blockIdx.x;
  D s{};
  for (int b = threadIdx.x; b < blocks; b += kThreads) s += partials[j * blocks + b];
  s = cuda::block_sum<kThreads>(s);
  if (threadIdx.x == 0) out[j] = s;
}

// y = a x + b y (B_ZERO: y = a x, y not read, as the CPU loops). X may be Y.
template <class D>
__global__ void __launch_bounds__(kThreads)
    axpby_kernel(std::int64_t n, D a, const D* x, D b, D* y, bool b_zero) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (i < n) y[i] = b_zero ? a * x[i] : a * x[i] + b * y[i];
}

template <class D>
__global__ void __launch_bounds__(kThreads)
    scale_kernel(std::int64_t n, const D* __restrict__ inv, const D* __restrict__ r,
                 D* __restrict__ z) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  if (i < n) z[i] = inv[i] * r[i];
}

std::int64_t blocks_for(std::int64_t n) {
  return (n + kThreads - 1) / kThreads;
}

// N values in device memory, zero at first.
template <class T>
class DeviceVector final : public KrylovVector<T> {
 public:
  explicit DeviceVector(std::int64_t n) : b_(static_cast<std::size_t>(n)) { b_.fill_bytes(0); }
  T* data() override { return b_.get(); }
  void load(const T* host) override { b_.upload(host, b_.size()); }
  void store(T* host) const override { b_.download(host, b_.size()); }

 private:
  cuda::Buffer<T> b_;
};

template <class T>
class VectorOps final : public GpuVectorOps<T> {
  using D = dev_t<T>;

 public:
  VectorOps(const Context& g, std::int64_t n, const std::vector<T>& inv)
      : g_(g),
        n_(n),
        blocks_(static_cast<int>(std::clamp<std::int64_t>(blocks_for(n), 1, kMaxBlocks))),
        inv_(inv.data(), inv.size()),
        partials_(static_cast<std::size_t>(blocks_) * kBatch) {}

  std::unique_ptr<KrylovVector<T>> vector(std::int64_t n) const override {
    return std::make_unique<DeviceVector<T>>(n);
  }

  void dots(int k, const T* const* x, const T* const* y, T* out) override {
    if (k <= 0) return;
    const cudaStream_t s = g_.compute();
    if (sums_.size() < static_cast<std::size_t>(k)) {
      sums_ = cuda::Buffer<T>(static_cast<std::size_t>(k));
      host_ = cuda::Pinned<T>(static_cast<std::size_t>(k));
    }
    for (int j0 = 0; j0 < k; j0 += kBatch) {
      const int m = std::min(kBatch, k - j0);
      Pointers<D> p{};
      for (int j = 0; j < m; ++j) {
        p.x[j] = reinterpret_cast<const D*>(x[j0 + j]);
        p.y[j] = reinterpret_cast<const D*>(y[j0 + j]);
      }
      dot_partials<D>
          <<<dim3(static_cast<unsigned>(blocks_), static_cast<unsigned>(m)), kThreads, 0, s>>>(
              n_, p, partials_.dev());
      MM_CUDA_LAUNCHED("dist dot_partials");
      dot_finish<D><<<m, kThreads, 0, s>>>(blocks_, partials_.dev(), sums_.dev() + j0);
      MM_CUDA_LAUNCHED("dist dot_finish");
    }
    const auto bytes = static_cast<std::size_t>(k) * sizeof(T);
    if (g_.kind() == Transport::nccl) {
      // Reduced on the device; the time the allreduce took there, waits for slower ranks
      // included.
      before_.record(s);
      g_.nccl().allreduce_sum(sums_.get(), static_cast<std::size_t>(k) * scalar_of<T>::width,
                              scalar_of<T>::value, s);
      after_.record(s);
      MM_CUDA(cudaMemcpyAsync(host_.get(), sums_.get(), bytes, cudaMemcpyDeviceToHost, s));
      MM_CUDA(cudaStreamSynchronize(s));
      allreduce_s_ = cuda::elapsed(before_, after_);
      std::memcpy(static_cast<void*>(out), host_.get(), bytes);
    } else {
      // The K local sums to the host, then one MPI allreduce of them.
      MM_CUDA(cudaMemcpyAsync(host_.get(), sums_.get(), bytes, cudaMemcpyDeviceToHost, s));
      MM_CUDA(cudaStreamSynchronize(s));
      std::memcpy(static_cast<void*>(out), host_.get(), bytes);
      Stopwatch w;
      g_.comm().allreduce(out, static_cast<std::size_t>(k), Op::sum);
      allreduce_s_ = w.seconds();
    }
  }

  void axpby(T a, const T* x, T b, T* y) override {
    if (n_ == 0) return;
    axpby_kernel<D><<<blocks_for(n_), kThreads, 0, g_.compute()>>>(
        n_, cuda::to_dev(a), reinterpret_cast<const D*>(x), cuda::to_dev(b),
        reinterpret_cast<D*>(y), b == T{});
    MM_CUDA_LAUNCHED("dist axpby_kernel");
  }

  void precond(const T* r, T* z) override {
    if (n_ == 0) return;
    if (inv_.size() == 0) {
      if (r != z)
        MM_CUDA(cudaMemcpyAsync(z, r, static_cast<std::size_t>(n_) * sizeof(T),
                                cudaMemcpyDeviceToDevice, g_.compute()));
      return;
    }
    scale_kernel<D><<<blocks_for(n_), kThreads, 0, g_.compute()>>>(
        n_, inv_.dev(), reinterpret_cast<const D*>(r), reinterpret_cast<D*>(z));
    MM_CUDA_LAUNCHED("dist scale_kernel");
  }

  double allreduce_seconds() const override { return allreduce_s_; }

 private:
  const Context& g_;
  std::int64_t n_;
  int blocks_;  // of a dot product's first pass
  cuda::Buffer<T> inv_, partials_, sums_;
  cuda::Pinned<T> host_;
  cuda::Event before_, after_;
  double allreduce_s_ = 0;
};

}  // namespace

}  // namespace gpu

template <class T>
std::unique_ptr<GpuVectorOps<T>> make_gpu_vector_ops(const GpuRanks& g, std::int64_t n,
                                                     const std::vector<T>& inv) {
  return std::make_unique<gpu::VectorOps<T>>(gpu::context(g), n, inv);
}

#define MM_GPU_VECTORS(T)                                                                         \
  template std::unique_ptr<GpuVectorOps<T>> make_gpu_vector_ops<T>(const GpuRanks&, std::int64_t, \
                                                                   const std::vector<T>&);
MM_FOR_VALUE_TYPES(MM_GPU_VECTORS)

}  // namespace mm::dist
