// cuBLAS TRSM and GEMM on row-major blocks, for cuda-blocked's panels, updates and solves.
#pragma once

#include "cuda/cuda_util.cuh"
#include "cuda/lu/types.cuh"

namespace mm::cuda::lu::host {

// A row-major block is its transpose column-major, so each call is the transposed problem.

inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const float* alpha, const float* a, int lda, float* b,
                              int ldb) {
  return cublasStrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n, alpha, a, lda, b, ldb);
}
inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const double* alpha, const double* a, int lda, double* b,
                              int ldb) {
  return cublasDtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n, alpha, a, lda, b, ldb);
}
// std::complex<R> and cuComplex / cuDoubleComplex share their layout (two R, real first).
inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const std::complex<float>* alpha, const std::complex<float>* a,
                              int lda, std::complex<float>* b, int ldb) {
  using Z = cuComplex;
  return cublasCtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n,
                     reinterpret_cast<const Z*>(alpha), reinterpret_cast<const Z*>(a), lda,
                     reinterpret_cast<Z*>(b), ldb);
}
inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const std::complex<double>* alpha,
                              const std::complex<double>* a, int lda, std::complex<double>* b,
                              int ldb) {
  using Z = cuDoubleComplex;
  return cublasZtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n,
                     reinterpret_cast<const Z*>(alpha), reinterpret_cast<const Z*>(a), lda,
                     reinterpret_cast<Z*>(b), ldb);
}

inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k, const float* alpha,
                              const float* a, int lda, const float* b, int ldb, const float* beta,
                              float* c, int ldc) {
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k, const double* alpha,
                              const double* a, int lda, const double* b, int ldb,
                              const double* beta, double* c, int ldc) {
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k,
                              const std::complex<float>* alpha, const std::complex<float>* a,
                              int lda, const std::complex<float>* b, int ldb,
                              const std::complex<float>* beta, std::complex<float>* c, int ldc) {
  using Z = cuComplex;
  return cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, reinterpret_cast<const Z*>(alpha),
                     reinterpret_cast<const Z*>(a), lda, reinterpret_cast<const Z*>(b), ldb,
                     reinterpret_cast<const Z*>(beta), reinterpret_cast<Z*>(c), ldc);
}
inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k,
                              const std::complex<double>* alpha, const std::complex<double>* a,
                              int lda, const std::complex<double>* b, int ldb,
                              const std::complex<double>* beta, std::complex<double>* c, int ldc) {
  using Z = cuDoubleComplex;
  return cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, reinterpret_cast<const Z*>(alpha),
                     reinterpret_cast<const Z*>(a), lda, reinterpret_cast<const Z*>(b), ldb,
                     reinterpret_cast<const Z*>(beta), reinterpret_cast<Z*>(c), ldc);
}

// B (r x c) <- L^-1 B, L (r x r) unit lower: column-major B^T <- B^T L^-T, L^T upper.
template <class T>
void trsm_lower_unit(cublasHandle_t h, Index r, Index c, const T* l, Index ldl, T* b, Index ldb) {
  if (r == 0 || c == 0) return;
  const cuda::Scalar<T> one{T(1)};
  MM_CUDA(trsm_cm(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_UNIT, static_cast<int>(c),
                  static_cast<int>(r), one.ptr(), l, static_cast<int>(ldl), b,
                  static_cast<int>(ldb)));
}

// B (r x c) <- U^-1 B, U (r x r) upper: column-major B^T <- B^T U^-T, U^T lower.
template <class T>
void trsm_upper(cublasHandle_t h, Index r, Index c, const T* u, Index ldu, T* b, Index ldb) {
  if (r == 0 || c == 0) return;
  const cuda::Scalar<T> one{T(1)};
  MM_CUDA(trsm_cm(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, static_cast<int>(c),
                  static_cast<int>(r), one.ptr(), u, static_cast<int>(ldu), b,
                  static_cast<int>(ldb)));
}

// C (r x c) <- ALPHA A (r x k) B (k x c) + BETA C: column-major C^T <- ALPHA B^T A^T + BETA C^T.
template <class T>
void gemm_rm(cublasHandle_t h, Index r, Index c, Index k, T alpha, const T* a, Index lda,
             const T* b, Index ldb, T beta, T* cc, Index ldc) {
  const cuda::Scalar<T> sa{alpha}, sb{beta};
  MM_CUDA(gemm_cm(h, static_cast<int>(c), static_cast<int>(r), static_cast<int>(k), sa.ptr(), b,
                  static_cast<int>(ldb), a, static_cast<int>(lda), sb.ptr(), cc,
                  static_cast<int>(ldc)));
}

// C (r x c) -= A (r x k) B (k x c).
template <class T>
void gemm_sub(cublasHandle_t h, Index r, Index c, Index k, const T* a, Index lda, const T* b,
              Index ldb, T* cc, Index ldc) {
  if (r == 0 || c == 0 || k == 0) return;
  gemm_rm(h, r, c, k, T(-1), a, lda, b, ldb, T(1), cc, ldc);
}

// C (r x c) = A (r x k) B (k x c).
template <class T>
void gemm_set(cublasHandle_t h, Index r, Index c, Index k, const T* a, Index lda, const T* b,
              Index ldb, T* cc, Index ldc) {
  if (r == 0 || c == 0) return;
  gemm_rm(h, r, c, k, T(1), a, lda, b, ldb, T(0), cc, ldc);
}

}  // namespace mm::cuda::lu::host
