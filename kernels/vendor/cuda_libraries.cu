// cuBLAS and cuSOLVER opened at their first call (mm::RuntimeLibrary), not at the process's
// start: linked, libcublas.so (through libcublasLt.so) runs its initialisers in every process,
// about 0.35 s on the 2-core build machine, though most runs (every CPU one) never call it;
// libcusolver.so needs both. The executables link neither: the functions the project calls are
// defined here, each a forwarder to the library's own, looked up once. A cuBLAS or cuSOLVER
// function called anywhere else and missing here fails to link (add its forwarder below); each
// definition must match the header's declaration, or the compiler refuses it.
// Host code only (no kernel); a .cu to be built only where the CUDA backend is.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include "mm/runtime_library.hpp"

// MM_CUBLAS_SONAME, MM_CUSOLVER_SONAME, MM_CUDA_LIBRARY_DIR: from CMakeLists.txt.

namespace {

const mm::RuntimeLibrary& cublas_library() {
  static const mm::RuntimeLibrary lib(MM_CUBLAS_SONAME, MM_CUDA_LIBRARY_DIR, "cuBLAS");
  return lib;
}

const mm::RuntimeLibrary& cusolver_library() {
  static const mm::RuntimeLibrary lib(MM_CUSOLVER_SONAME, MM_CUDA_LIBRARY_DIR, "cuSOLVER");
  return lib;
}

}  // namespace

// RET NAME PARAMS as the header declares it (a C function: any other parameter list is refused
// as a second C function of the name), forwarding ARGS to LIBRARY's NAME. The pointer's type is
// spelled out: C++ overloads of some names (cublasGemmEx) sit beside the C declaration.
#define MM_FORWARD(library, api, ret, name, params, args)                 \
  extern "C" ret api name params {                                        \
    using Fn = ret(api*) params;                                          \
    static const auto fn = reinterpret_cast<Fn>(library().symbol(#name)); \
    return fn args;                                                       \
  }
#define MM_CUBLAS(name, params, args) \
  MM_FORWARD(cublas_library, CUBLASWINAPI, cublasStatus_t, name, params, args)
#define MM_CUSOLVER(name, params, args) \
  MM_FORWARD(cusolver_library, CUSOLVERAPI, cusolverStatus_t, name, params, args)

// ---- cuBLAS: handles and settings --------------------------------------------------------------
MM_CUBLAS(cublasCreate_v2, (cublasHandle_t * h), (h))
MM_CUBLAS(cublasDestroy_v2, (cublasHandle_t h), (h))
MM_CUBLAS(cublasSetStream_v2, (cublasHandle_t h, cudaStream_t s), (h, s))
MM_CUBLAS(cublasSetWorkspace_v2, (cublasHandle_t h, void* w, size_t bytes), (h, w, bytes))
MM_CUBLAS(cublasSetMathMode, (cublasHandle_t h, cublasMath_t mode), (h, mode))
MM_CUBLAS(cublasSetEmulationStrategy, (cublasHandle_t h, cublasEmulationStrategy_t strategy),
          (h, strategy))
MM_FORWARD(cublas_library, CUBLASWINAPI, const char*, cublasGetStatusString, (cublasStatus_t s),
           (s))

// ---- cuBLAS: products, sums, triangular solves -------------------------------------------------
MM_CUBLAS(cublasGemmEx,
          (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
           const void* alpha, const void* a, cudaDataType at, int lda, const void* b,
           cudaDataType bt, int ldb, const void* beta, void* c, cudaDataType ct, int ldc,
           cublasComputeType_t compute, cublasGemmAlgo_t algo),
          (h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute, algo))
// C = alpha op(A) op(B) + beta C
#define MM_GEMM(name, T)                                                                        \
  MM_CUBLAS(                                                                                    \
      name,                                                                                     \
      (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,       \
       const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc), \
      (h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
MM_GEMM(cublasSgemm_v2, float)
MM_GEMM(cublasDgemm_v2, double)
MM_GEMM(cublasCgemm_v2, cuComplex)
MM_GEMM(cublasZgemm_v2, cuDoubleComplex)
// C = alpha op(A) + beta op(B)
#define MM_GEAM(name, T)                                                                           \
  MM_CUBLAS(                                                                                       \
      name,                                                                                        \
      (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, const T* alpha, \
       const T* a, int lda, const T* beta, const T* b, int ldb, T* c, int ldc),                    \
      (h, ta, tb, m, n, alpha, a, lda, beta, b, ldb, c, ldc))
MM_GEAM(cublasSgeam, float)
MM_GEAM(cublasDgeam, double)
MM_GEAM(cublasCgeam, cuComplex)
MM_GEAM(cublasZgeam, cuDoubleComplex)
// op(A) X = alpha B or X op(A) = alpha B, X over B
#define MM_TRSM(name, T)                                                                         \
  MM_CUBLAS(                                                                                     \
      name,                                                                                      \
      (cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,  \
       cublasDiagType_t diag, int m, int n, const T* alpha, const T* a, int lda, T* b, int ldb), \
      (h, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb))
MM_TRSM(cublasStrsm_v2, float)
MM_TRSM(cublasDtrsm_v2, double)
MM_TRSM(cublasCtrsm_v2, cuComplex)
MM_TRSM(cublasZtrsm_v2, cuDoubleComplex)

// ---- cuSOLVER: LU ------------------------------------------------------------------------------
MM_CUSOLVER(cusolverDnCreate, (cusolverDnHandle_t * h), (h))
MM_CUSOLVER(cusolverDnDestroy, (cusolverDnHandle_t h), (h))
MM_CUSOLVER(cusolverDnCreateParams, (cusolverDnParams_t * p), (p))
MM_CUSOLVER(cusolverDnDestroyParams, (cusolverDnParams_t p), (p))
MM_CUSOLVER(cusolverDnXgetrf_bufferSize,
            (cusolverDnHandle_t h, cusolverDnParams_t p, int64_t m, int64_t n, cudaDataType at,
             const void* a, int64_t lda, cudaDataType compute, size_t* device_bytes,
             size_t* host_bytes),
            (h, p, m, n, at, a, lda, compute, device_bytes, host_bytes))
MM_CUSOLVER(cusolverDnXgetrf,
            (cusolverDnHandle_t h, cusolverDnParams_t p, int64_t m, int64_t n, cudaDataType at,
             void* a, int64_t lda, int64_t* ipiv, cudaDataType compute, void* device_buffer,
             size_t device_bytes, void* host_buffer, size_t host_bytes, int* info),
            (h, p, m, n, at, a, lda, ipiv, compute, device_buffer, device_bytes, host_buffer,
             host_bytes, info))
MM_CUSOLVER(cusolverDnXgetrs,
            (cusolverDnHandle_t h, cusolverDnParams_t p, cublasOperation_t trans, int64_t n,
             int64_t nrhs, cudaDataType at, const void* a, int64_t lda, const int64_t* ipiv,
             cudaDataType bt, void* b, int64_t ldb, int* info),
            (h, p, trans, n, nrhs, at, a, lda, ipiv, bt, b, ldb, info))
