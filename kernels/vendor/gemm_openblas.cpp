// GEMM through OpenBLAS: cblas_sgemm / dgemm / cgemm / zgemm on row-major data.
#include <cblas.h>

#include <algorithm>
#include <complex>

#include "gemm.hpp"
#include "instantiate.hpp"

namespace mm {

template <class T>
void gemm_openblas(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta) {
  gemm_check_shapes(a, b, c);
  const blasint m = static_cast<blasint>(a.rows), n = static_cast<blasint>(b.cols),
                k = static_cast<blasint>(a.cols);
  if (m == 0 || n == 0) return;
  // Leading dimensions must be >= 1 even for empty operands.
  const blasint lda = std::max<blasint>(1, k), ldb = std::max<blasint>(1, n),
                ldc = std::max<blasint>(1, n);
  if (beta == T{})
    std::fill(c.data.begin(), c.data.end(), T{});  // BLAS may read C*0 = NaN otherwise
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a.data.data(), lda,
                b.data.data(), ldb, beta, c.data.data(), ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a.data.data(), lda,
                b.data.data(), ldb, beta, c.data.data(), ldc);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, &alpha, a.data.data(), lda,
                b.data.data(), ldb, &beta, c.data.data(), ldc);
  } else {
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, &alpha, a.data.data(), lda,
                b.data.data(), ldb, &beta, c.data.data(), ldc);
  }
}

#define MM_GEMM_OPENBLAS(T) \
  template void gemm_openblas<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T);
MM_FOR_VALUE_TYPES(MM_GEMM_OPENBLAS)

}  // namespace mm
