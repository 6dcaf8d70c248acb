// Gaussian elimination without pivoting on the GPU. cuda: as the thesis studied it, per
// step one kernel eliminates below the pivot across the trailing matrix and the right-hand
// sides, then a block per right-hand side substitutes backwards. cuda-blocked: panels of
// kBlock columns factored by a warp per row, the rest of the matrix by cuBLAS TRSM + GEMM,
// then two cuBLAS TRSMs on B. An exact zero pivot stops every later kernel of ours and is
// reported with its column, as gauss_ref reports it.
#include <cuComplex.h>

#include "cuda/cuda_util.cuh"
#include "cuda/solve/solve_cuda.hpp"
#include "cuda/warp.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using cuda::dev_t;

// Elimination tiles: 32 columns (a warp along a row: coalesced) x 8 rows.
constexpr int kTileX = 32;
constexpr int kTileY = 8;
// Back substitution: threads of the block that sums one row of U.
constexpr int kSubThreads = 256;
// cuda-blocked: panel width (the rank of each trailing GEMM update) and rows per panel block.
constexpr int kBlock = 64;
constexpr int kPanelRows = 8;

template <class D>
__device__ __forceinline__ bool is_zero(const D& v) {
  return v == D{};
}

// Step P: rows i > p lose l_i = a_ip / a_pp times row p, in A's columns j > p and in B's
// k columns (thread column j >= n). A zero pivot is recorded in ZERO as p + 1 (0: none).
template <class D>
__global__ void __launch_bounds__(kTileX* kTileY)
    eliminate(std::int64_t n, std::int64_t k, std::int64_t p, D* __restrict__ a, D* __restrict__ b,
              int* zero) {
  if (*zero) return;
  const D piv = a[p * n + p];
  if (is_zero(piv)) {
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
      *zero = static_cast<int>(p + 1);
    return;
  }
  const std::int64_t i = p + 1 + blockIdx.y * static_cast<std::int64_t>(kTileY) + threadIdx.y;
  const std::int64_t j = p + 1 + blockIdx.x * static_cast<std::int64_t>(kTileX) + threadIdx.x;
  if (i >= n) return;
  const D l = a[i * n + p] / piv;  // column p is not written in this step
  if (j < n)
    a[i * n + j] -= l * a[p * n + j];
  else if (j < n + k)
    b[i * k + (j - n)] -= l * b[p * k + (j - n)];
}

// X(:, c) from U x = B(:, c), c = blockIdx.x; rows bottom up, each row's sum by the block.
template <class D>
__global__ void __launch_bounds__(kSubThreads)
    back_substitute(std::int64_t n, std::int64_t k, const D* __restrict__ a,
                    const D* __restrict__ b, D* x, const int* zero) {
  if (*zero) return;
  const std::int64_t c = blockIdx.x;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    D s{};
    for (std::int64_t j = i + 1 + threadIdx.x; j < n; j += kSubThreads)
      s += a[i * n + j] * x[j * k + c];
    s = cuda::block_sum<kSubThreads>(s);
    if (threadIdx.x == 0) x[i * k + c] = (b[i * k + c] - s) / a[i * n + i];
    __syncthreads();  // x_i is read by the next rows
  }
}

// Column Q of the panel ending at column PEND: a warp per row i > q stores l_i = a_iq / a_qq
// in place of a_iq (the packed L) and updates the row's panel columns (q, pend).
template <class D>
__global__ void __launch_bounds__(32 * kPanelRows)
    panel_step(std::int64_t n, std::int64_t q, std::int64_t pend, D* a, int* zero) {
  if (*zero) return;
  const D piv = a[q * n + q];
  if (is_zero(piv)) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *zero = static_cast<int>(q + 1);
    return;
  }
  const std::int64_t i =
      q + 1 + blockIdx.x * static_cast<std::int64_t>(kPanelRows) + threadIdx.x / 32;
  if (i >= n) return;
  const int lane = threadIdx.x % 32;
  const D l = a[i * n + q] / piv;
  for (std::int64_t j = q + 1 + lane; j < pend; j += 32) a[i * n + j] -= l * a[q * n + j];
  __syncwarp();  // every lane has read a_iq before it becomes l_i
  if (lane == 0) a[i * n + q] = l;
}

// cuBLAS is column-major: a row-major matrix is seen as its transpose, so every triangular
// solve is a right-side solve X op = B on the transposed view.
cublasStatus_t trsm_right(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                          int n, const float* alpha, const float* a, int lda, float* b, int ldb) {
  return cublasStrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n, alpha, a, lda, b, ldb);
}
cublasStatus_t trsm_right(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                          int n, const double* alpha, const double* a, int lda, double* b,
                          int ldb) {
  return cublasDtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n, alpha, a, lda, b, ldb);
}
cublasStatus_t trsm_right(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                          int n, const std::complex<float>* alpha, const std::complex<float>* a,
                          int lda, std::complex<float>* b, int ldb) {
  return cublasCtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n,
                     reinterpret_cast<const cuComplex*>(alpha),
                     reinterpret_cast<const cuComplex*>(a), lda, reinterpret_cast<cuComplex*>(b),
                     ldb);
}
cublasStatus_t trsm_right(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                          int n, const std::complex<double>* alpha, const std::complex<double>* a,
                          int lda, std::complex<double>* b, int ldb) {
  return cublasZtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n,
                     reinterpret_cast<const cuDoubleComplex*>(alpha),
                     reinterpret_cast<const cuDoubleComplex*>(a), lda,
                     reinterpret_cast<cuDoubleComplex*>(b), ldb);
}

template <class I, class T>
class GaussCudaRunner final : public cuda::CudaRunner {
 public:
  using D = dev_t<T>;
  GaussCudaRunner(const SolveProblem<I, T>& p, bool blocked) : p_(p), blocked_(blocked) {}

  void upload() override {
    const auto nn = static_cast<std::size_t>(n() * n()), nk = static_cast<std::size_t>(n() * k());
    a_ = cuda::Buffer<T>(p_.dense->data.data(), nn);
    b_ = cuda::Buffer<T>(p_.b->data.data(), nk);
    wa_ = cuda::Buffer<T>(nn);
    if (!blocked_) wb_ = cuda::Buffer<T>(nk);
    x_ = cuda::Buffer<T>(nk);
    x_.fill_bytes(0xff);  // poison: every entry must be solved
    zero_ = cuda::Buffer<int>(1);
    if (blocked_) blas_ = std::make_unique<cuda::Cublas>();
    uploaded_ = true;
  }

  // x lands in the host matrix after every run too (see KrylovCudaRunner::run).
  void run() override {
    CudaRunner::run();
    download();
  }

  void download() override { x_.download(p_.x->data.data(), static_cast<std::size_t>(n() * k())); }

 protected:
  void launch() override {
    if (!uploaded_) upload();
    *p_.report = SolveReport{};
    const std::int64_t n = this->n(), k = this->k();
    // Elimination is in place: each run starts from fresh copies of A and B.
    copy(wa_, a_, n * n);
    copy(blocked_ ? x_ : wb_, b_, n * k);
    MM_CUDA(cudaMemsetAsync(zero_.get(), 0, sizeof(int)));
    if (blocked_)
      blocked(n, k);
    else
      per_step(n, k);
    int zero = 0;
    MM_CUDA(cudaMemcpy(&zero, zero_.get(), sizeof zero, cudaMemcpyDeviceToHost));
    if (zero) throw NumericalError(zero_pivot_message(zero - 1, false));
    p_.report->flops = lu_flops<T>(n) + lu_solve_flops<T>(n, k);
  }

 private:
  std::int64_t n() const { return p_.dense->rows; }
  std::int64_t k() const { return p_.b->cols; }

  static void copy(cuda::Buffer<T>& to, const cuda::Buffer<T>& from, std::int64_t count) {
    if (count)
      MM_CUDA(cudaMemcpyAsync(to.get(), from.get(), static_cast<std::size_t>(count) * sizeof(T),
                              cudaMemcpyDeviceToDevice));
  }

  void per_step(std::int64_t n, std::int64_t k) {
    for (std::int64_t p = 0; p < n; ++p) {
      const std::int64_t rows = n - p - 1, cols = n - p - 1 + k;
      // At least one block: the last step only checks its pivot.
      const dim3 grid(
          static_cast<unsigned>(std::max<std::int64_t>(1, (cols + kTileX - 1) / kTileX)),
          static_cast<unsigned>(std::max<std::int64_t>(1, (rows + kTileY - 1) / kTileY)));
      eliminate<D><<<grid, dim3(kTileX, kTileY)>>>(n, k, p, wa_.dev(), wb_.dev(), zero_.get());
      MM_CUDA_LAUNCHED("gauss eliminate");
    }
    if (n && k) {
      back_substitute<D><<<static_cast<unsigned>(k), kSubThreads>>>(n, k, wa_.dev(), wb_.dev(),
                                                                    x_.dev(), zero_.get());
      MM_CUDA_LAUNCHED("gauss back_substitute");
    }
  }

  // Right-looking: panel [p, pend) by our kernels, U12 = L11^-1 A12 and A22 -= L21 U12 by
  // cuBLAS on the transposed (column-major) views; then L and U solved on B (in x).
  void blocked(std::int64_t n, std::int64_t k) {
    cublasHandle_t h = blas_->get();
    const cuda::Scalar<T> one{T(1)}, minus_one{T(-1)};
    T* a = wa_.get();
    const int ld = static_cast<int>(n);
    for (std::int64_t p = 0; p < n; p += kBlock) {
      const std::int64_t pend = std::min<std::int64_t>(p + kBlock, n), jb = pend - p, m = n - pend;
      for (std::int64_t q = p; q < pend; ++q) {
        const auto grid = static_cast<unsigned>(
            std::max<std::int64_t>(1, (n - q - 1 + kPanelRows - 1) / kPanelRows));
        panel_step<D><<<grid, 32 * kPanelRows>>>(n, q, pend, wa_.dev(), zero_.get());
        MM_CUDA_LAUNCHED("gauss panel_step");
      }
      if (m == 0) continue;
      // Seen column-major, A12 is U12^T's place (m x jb) and L11 is L11^T (upper, unit).
      MM_CUDA(trsm_right(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_UNIT, static_cast<int>(m),
                         static_cast<int>(jb), one.ptr(), a + p * n + p, ld, a + p * n + pend, ld));
      // A22^T -= U12^T L21^T.
      constexpr cublasComputeType_t compute =
          std::is_same_v<real_type_t<T>, float> ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
      MM_CUDA(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(m), static_cast<int>(m),
                           static_cast<int>(jb), minus_one.ptr(), a + p * n + pend,
                           cuda::data_type<T>(), ld, a + pend * n + p, cuda::data_type<T>(), ld,
                           one.ptr(), a + pend * n + pend, cuda::data_type<T>(), ld, compute,
                           CUBLAS_GEMM_DEFAULT));
    }
    if (n && k) {
      // B seen column-major is B^T (k x n): X L^T = B^T, then X U^T = Y^T; L^T is the upper
      // (unit) and U^T the lower triangle of A's column-major view.
      T* x = x_.get();
      const int ldx = static_cast<int>(k);
      MM_CUDA(trsm_right(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_UNIT, ldx, ld, one.ptr(), a, ld, x,
                         ldx));
      MM_CUDA(trsm_right(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, ldx, ld, one.ptr(), a, ld,
                         x, ldx));
    }
  }

  SolveProblem<I, T> p_;
  bool blocked_;
  cuda::Buffer<T> a_, b_, wa_, wb_, x_;
  cuda::Buffer<int> zero_;
  std::unique_ptr<cuda::Cublas> blas_;
  bool uploaded_ = false;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_gauss_cuda(const SolveProblem<I, T>& p, bool blocked) {
  return std::make_unique<GaussCudaRunner<I, T>>(p, blocked);
}

#define MM_GAUSS_CUDA(I, T) \
  template std::unique_ptr<Runner> make_gauss_cuda<I, T>(const SolveProblem<I, T>&, bool);
MM_FOR_INDEX_VALUE_TYPES(MM_GAUSS_CUDA)

}  // namespace mm
