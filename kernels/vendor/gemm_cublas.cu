// cuBLAS ?gemm as an implementation of gemm: row-major C = A*B computed as the
// column-major product C^T = B^T * A^T (a row-major matrix is its transpose column-major).
#include <climits>
#include <memory>

#include "cuda/cuda_util.cuh"
#include "cuda/gemm_cuda.hpp"
#include "instantiate.hpp"

namespace mm {

namespace {

// Column-major C (m x n) = alpha * A (m x k) * B (k x n), beta = 0, for each value type.
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const float* alpha, const float* a,
                    int lda, const float* b, int ldb, const float* beta, float* c, int ldc) {
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const double* alpha, const double* a,
                    int lda, const double* b, int ldb, const double* beta, double* c, int ldc) {
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
// std::complex<R> and cuComplex / cuDoubleComplex share their layout (two R, real first).
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const std::complex<float>* alpha,
                    const std::complex<float>* a, int lda, const std::complex<float>* b, int ldb,
                    const std::complex<float>* beta, std::complex<float>* c, int ldc) {
  using Z = cuComplex;
  return cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, reinterpret_cast<const Z*>(alpha),
                     reinterpret_cast<const Z*>(a), lda, reinterpret_cast<const Z*>(b), ldb,
                     reinterpret_cast<const Z*>(beta), reinterpret_cast<Z*>(c), ldc);
}
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const std::complex<double>* alpha,
                    const std::complex<double>* a, int lda, const std::complex<double>* b, int ldb,
                    const std::complex<double>* beta, std::complex<double>* c, int ldc) {
  using Z = cuDoubleComplex;
  return cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, reinterpret_cast<const Z*>(alpha),
                     reinterpret_cast<const Z*>(a), lda, reinterpret_cast<const Z*>(b), ldb,
                     reinterpret_cast<const Z*>(beta), reinterpret_cast<Z*>(c), ldc);
}

template <class T>
class CublasGemm final : public cuda::CudaRunner {
 public:
  CublasGemm(const GemmProblem<T>& p, CublasMath math) : p_(p), math_(math) {
    gemm_check_shapes(*p.a, *p.b, *p.c);
    if (p.a->rows > INT_MAX || p.a->cols > INT_MAX || p.b->cols > INT_MAX)
      throw DeviceError("cublas: dimensions beyond 32 bits");
  }

  void upload() override {
    a_ = cuda::Buffer<T>(p_.a->data.data(), p_.a->data.size());
    b_ = cuda::Buffer<T>(p_.b->data.data(), p_.b->data.size());
    c_ = cuda::Buffer<T>(p_.c->data.size());
    c_.fill_bytes(0xff);                    // poison: every element must be written
    h_ = std::make_unique<cuda::Cublas>();  // here, not at construction: make() needs no GPU
    // Default math is true FP32 for Sgemm; TF32 tensor cores or FP64 emulation only when asked
    // for. The emulation's default strategy takes it only where cuBLAS expects it to be faster:
    // eager takes it wherever it can, so that the row measures it.
    switch (math_) {
      case CublasMath::standard:
        MM_CUDA(cublasSetMathMode(h_->get(), CUBLAS_DEFAULT_MATH));
        break;
      case CublasMath::tf32:
        MM_CUDA(cublasSetMathMode(h_->get(), CUBLAS_TF32_TENSOR_OP_MATH));
        break;
      case CublasMath::fp64_emulated:
        MM_CUDA(cublasSetMathMode(h_->get(), CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH));
        MM_CUDA(cublasSetEmulationStrategy(h_->get(), CUBLAS_EMULATION_STRATEGY_EAGER));
        break;
    }
  }

  void download() override { c_.download(p_.c->data.data(), p_.c->data.size()); }

 protected:
  void launch() override {
    const auto m = static_cast<int>(p_.a->rows), n = static_cast<int>(p_.b->cols),
               k = static_cast<int>(p_.a->cols);
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum: cuBLAS would need a leading dimension for an empty A
      MM_CUDA(cudaMemsetAsync(c_.get(), 0, c_.size() * sizeof(T)));
      return;
    }
    const cuda::Scalar<T> alpha{p_.alpha}, beta{T{}};
    // Column-major: B^T is n x k with leading dimension n, A^T is k x m with leading k.
    MM_CUDA(
        gemm(h_->get(), n, m, k, alpha.ptr(), b_.get(), n, a_.get(), k, beta.ptr(), c_.get(), n));
  }

 private:
  GemmProblem<T> p_;
  CublasMath math_;
  std::unique_ptr<cuda::Cublas> h_;
  cuda::Buffer<T> a_, b_, c_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_gemm_cublas(const GemmProblem<T>& p, CublasMath math) {
  return std::make_unique<CublasGemm<T>>(p, math);
}

#define MM_GEMM_CUBLAS(T) \
  template std::unique_ptr<Runner> make_gemm_cublas<T>(const GemmProblem<T>&, CublasMath);
MM_FOR_VALUE_TYPES(MM_GEMM_CUBLAS)

}  // namespace mm
