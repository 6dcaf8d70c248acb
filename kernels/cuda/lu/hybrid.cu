// cuda-hybrid: the unblocked LU as GPU theses time it, a kernel per operation of each column
// step (pivot search by one block's reduction, row swap, column scale, rank-1 update).
#include <memory>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/lu/pivot_search.cuh"
#include "cuda/lu/runner_checks.cuh"
#include "cuda/lu/streams_graph.cuh"
#include "cuda/lu/types.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

using namespace detail;

// Tuning. 256 threads (8 warps) for the element kernels; the pivot search is one block.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kSearchThreads = 1024;  // cuda-hybrid's pivot search: one block
constexpr Index kMaxGridY = 65535;

template <class D>
__global__ void __launch_bounds__(kSearchThreads)
    search_kernel(const D* __restrict__ a, Index n, Index k, int* __restrict__ ipiv,
                  unsigned long long* __restrict__ info) {
  __shared__ double smag[kSearchThreads / 32 + 1];
  __shared__ int sidx[kSearchThreads / 32 + 1];
  double mag = 0;
  int idx = -1;
  for (Index i = k + threadIdx.x; i < n; i += kSearchThreads) {
    const double v = magnitude(a[i * n + k]);
    if (better(v, static_cast<int>(i), mag, idx)) mag = v, idx = static_cast<int>(i);
  }
  block_argmax<kSearchThreads>(mag, idx, smag, sidx);
  if (threadIdx.x == 0) {
    ipiv[k] = idx;
    if (mag == 0) atomicMin(info, static_cast<unsigned long long>(k));
  }
}

template <class D>
__global__ void __launch_bounds__(kThreads)
    swap_kernel(D* __restrict__ a, Index n, Index k, const int* __restrict__ ipiv) {
  const Index c = blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x;
  const Index p = ipiv[k];
  if (c >= n || p == k) return;
  const D x = a[k * n + c];
  a[k * n + c] = a[p * n + c];
  a[p * n + c] = x;
}

template <class D>
__global__ void __launch_bounds__(kThreads) scale_kernel(D* __restrict__ a, Index n, Index k) {
  const Index i = k + 1 + blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x;
  const D piv = a[k * n + k];
  if (i >= n || piv == D{}) return;
  a[i * n + k] *= D(1) / piv;  // l = a * (1 / pivot), as lu_ref computes it
}

// 32 columns by 8 rows per block: a warp along a row of the trailing matrix.
template <class D>
__global__ void __launch_bounds__(kThreads) update_kernel(D* __restrict__ a, Index n, Index k) {
  const Index j = k + 1 + blockIdx.x * static_cast<Index>(32) + threadIdx.x % 32;
  const Index i = k + 1 + blockIdx.y * static_cast<Index>(kWarps) + threadIdx.x / 32;
  if (i >= n || j >= n || a[k * n + k] == D{}) return;
  a[i * n + j] -= a[i * n + k] * a[k * n + j];
}

unsigned blocks_of(Index units, Index per_block) {
  return static_cast<unsigned>((units + per_block - 1) / per_block);
}

// Step K of cuda-hybrid on the n x n matrix A: the pivot search (one block's reduction,
// IPIV[K] = its row, the first exact zero pivot's column atomicMin'ed into INFO), the swap of
// rows K and IPIV[K], the scale of column K below the diagonal, and the rank-1 update of the
// trailing matrix: a kernel each, on stream ST.
template <class T>
void hybrid_step(T* a, Index n, Index k, int* ipiv, unsigned long long* info, cudaStream_t st) {
  using D = dev_t<T>;
  D* d = reinterpret_cast<D*>(a);
  search_kernel<D><<<1, kSearchThreads, 0, st>>>(d, n, k, ipiv, info);
  MM_CUDA_LAUNCHED("lu search_kernel");
  swap_kernel<D><<<blocks_of(n, kThreads), kThreads, 0, st>>>(d, n, k, ipiv);
  MM_CUDA_LAUNCHED("lu swap_kernel");
  const Index below = n - k - 1;
  if (below == 0) return;
  if (blocks_of(below, kWarps) > kMaxGridY)
    throw DeviceError("cuda-hybrid: n = " + std::to_string(n) + " exceeds the grid");
  scale_kernel<D><<<blocks_of(below, kThreads), kThreads, 0, st>>>(d, n, k);
  MM_CUDA_LAUNCHED("lu scale_kernel");
  update_kernel<D>
      <<<dim3(blocks_of(below, 32), blocks_of(below, kWarps)), kThreads, 0, st>>>(d, n, k);
  MM_CUDA_LAUNCHED("lu update_kernel");
}

}  // namespace

}  // namespace mm::cuda::lu

namespace mm {

namespace {

using cuda::Buffer;
using cuda::lu::check_int_size;
using cuda::lu::check_zero_pivot;
using cuda::lu::download_pivots;
using cuda::lu::FactorCopy;
using cuda::lu::Index;
using cuda::lu::host::kLegacy;

template <class T>
class HybridRunner final : public cuda::CudaRunner {
 public:
  explicit HybridRunner(const LuProblem<T>& p) : p_(p), n_(p.a->rows) {
    check_int_size(n_, "cuda-hybrid");
  }
  void upload() override {
    copy_.upload(*p_.a);
    ipiv_ = Buffer<int>(static_cast<std::size_t>(n_));
    info_ = Buffer<unsigned long long>(1);
  }
  void download() override {
    copy_.download(*p_.lu);
    download_pivots(ipiv_, *p_.ipiv);
  }

 protected:
  void launch() override {
    if (n_ == 0) return;
    copy_.refresh();
    MM_CUDA(cudaMemsetAsync(info_.get(), 0xff, sizeof(unsigned long long), kLegacy));
    for (Index k = 0; k < n_; ++k)
      cuda::lu::hybrid_step(copy_.lu(), n_, k, ipiv_.get(), info_.get(), kLegacy);
  }

  void after() override {
    if (n_ > 0) check_zero_pivot(info_);
  }

 private:
  LuProblem<T> p_;
  Index n_;
  FactorCopy<T> copy_;
  Buffer<int> ipiv_;
  Buffer<unsigned long long> info_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_lu_cuda_hybrid(const LuProblem<T>& p) {
  return std::make_unique<HybridRunner<T>>(p);
}

#define MM_LU_CUDA_HYBRID(T) \
  template std::unique_ptr<Runner> make_lu_cuda_hybrid<T>(const LuProblem<T>&);
MM_FOR_VALUE_TYPES(MM_LU_CUDA_HYBRID)

}  // namespace mm
