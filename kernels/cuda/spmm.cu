// Hand-written CUDA SpMM, C = alpha*A*B with A sparse (CSR) and B, C dense row-major: a
// group of lanes per row of A, lanes across the columns of B, so that every load of a row
// of B and every store of a row of C is coalesced.
#include <algorithm>

#include "cuda/cuda_util.cuh"
#include "cuda/spgemm_cuda.hpp"
#include "cuda/spgemm_rows.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

// Tuning: threads per block; columns each lane accumulates per pass over A's row (one pass
// covers W * kCols columns of C, so A's row is read once when n <= 32 * kCols = 128).
constexpr int kThreads = 256;
constexpr int kCols = 4;

// W lanes (a power of two <= 32) per row of A. The group loads W entries of A's row at a
// time, coalesced, and broadcasts each by a shuffle while its lanes read B's row.
template <class I, class T, int W>
__global__ void __launch_bounds__(kThreads)
    spmm_rows(std::int64_t m, std::int64_t n, const I* __restrict__ ap, const I* __restrict__ ai,
              const T* __restrict__ av, const T* __restrict__ b, T* __restrict__ c, T alpha) {
  const std::int64_t i = spgemm::group_row<kThreads, W>();
  if (i >= m) return;  // the whole group
  const int lane = threadIdx.x % W;
  const unsigned mask = spgemm::unit_mask<W>();
  const I a0 = ap[i], a1 = ap[i + 1];
  for (std::int64_t j0 = 0; j0 < n; j0 += std::int64_t{W} * kCols) {
    T acc[kCols];
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[q] = T{};
    for (std::int64_t base = a0; base < a1; base += W) {
      I k = 0;
      T a{};
      if (base + lane < a1) {
        k = ai[base + lane];
        a = av[base + lane];
      }
      const int have = a1 - base < W ? static_cast<int>(a1 - base) : W;
      for (int s = 0; s < have; ++s) {
        const I ks = __shfl_sync(mask, k, s, W);
        const T as = __shfl_sync(mask, a, s, W);
        const T* brow = b + static_cast<std::int64_t>(ks) * n + j0 + lane;
#pragma unroll
        for (int q = 0; q < kCols; ++q)
          if (j0 + lane + q * W < n) acc[q] += as * __ldg(brow + q * W);
      }
    }
    T* crow = c + i * n + j0 + lane;
#pragma unroll
    for (int q = 0; q < kCols; ++q)
      if (j0 + lane + q * W < n) crow[q * W] = alpha * acc[q];
  }
}

template <class I, class T>
class SpmmCudaRunner final : public cuda::CudaRunner {
 public:
  explicit SpmmCudaRunner(const SpmmProblem<I, T>& p) : p_(p) {}

  void upload() override {
    const Csr<I, T>& a = *p_.a;
    ap_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    ai_ = cuda::Buffer<I>(a.idx.data(), a.idx.size());
    av_ = cuda::Buffer<T>(a.val.data(), a.val.size());
    b_ = cuda::Buffer<T>(p_.b->data.data(), p_.b->data.size());
    c_ = cuda::Buffer<T>(p_.c->data.size());
    c_.fill_bytes(0xff);  // poison: every element must be written
  }
  void download() override { c_.download(p_.c->data.data(), c_.size()); }

 protected:
  void launch() override {
    const std::int64_t m = p_.a->rows, n = p_.b->cols;
    if (m == 0 || n == 0) return;
    // The narrowest group covering B's columns: narrow B wastes no lanes.
    if (n <= 4)
      go<4>(m, n);
    else if (n <= 8)
      go<8>(m, n);
    else if (n <= 16)
      go<16>(m, n);
    else
      go<32>(m, n);
  }

 private:
  template <int W>
  void go(std::int64_t m, std::int64_t n) {
    spmm_rows<I, T, W><<<spgemm::blocks_for(m * W, kThreads), kThreads>>>(
        m, n, ap_.get(), ai_.get(), av_.get(), b_.get(), c_.get(), p_.alpha);
    MM_CUDA_LAUNCHED("spmm spmm_rows");
  }

  SpmmProblem<I, T> p_;
  cuda::Buffer<I> ap_, ai_;
  cuda::Buffer<T> av_, b_, c_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_spmm_cuda(const SpmmProblem<I, T>& p) {
  return spgemm::make_real_runner<SpmmCudaRunner>(p, "cuda-csr");
}

#define MM_SPMM_CUDA(I, T) \
  template std::unique_ptr<Runner> make_spmm_cuda<I, T>(const SpmmProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMM_CUDA)

}  // namespace mm
