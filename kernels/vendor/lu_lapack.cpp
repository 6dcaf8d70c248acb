// LU by LAPACK ?getrf (OpenBLAS), on a column-major copy of the row-major matrix.
#include <lapacke.h>

#include <complex>

#include <limits>

#include "instantiate.hpp"
#include "lu.hpp"

namespace mm {

namespace {

lapack_int getrf(lapack_int n, float* a, lapack_int* ipiv) {
  return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
}
lapack_int getrf(lapack_int n, double* a, lapack_int* ipiv) {
  return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
}
lapack_int getrf(lapack_int n, std::complex<float>* a, lapack_int* ipiv) {
  return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_float*>(a), n,
                             ipiv);
}
lapack_int getrf(lapack_int n, std::complex<double>* a, lapack_int* ipiv) {
  return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_double*>(a), n,
                             ipiv);
}

template <class T>
void transpose(const T* src, T* dst, std::int64_t n) {
  constexpr std::int64_t b = 32;  // tiles, so that neither side is read with a stride of n
#pragma omp parallel for schedule(static)
  for (std::int64_t i0 = 0; i0 < n; i0 += b)
    for (std::int64_t j0 = 0; j0 < n; j0 += b)
      for (std::int64_t i = i0; i < std::min(n, i0 + b); ++i)
        for (std::int64_t j = j0; j < std::min(n, j0 + b); ++j) dst[j * n + i] = src[i * n + j];
}

}  // namespace

template <class T>
void lu_lapack(Dense<T>& a, std::int64_t* ipiv) {
  const std::int64_t n = a.rows;
  if (n > std::numeric_limits<lapack_int>::max())
    throw InputError("lapack: n = " + std::to_string(n) + " is beyond 32-bit LAPACK");
  if (n == 0) return;
  std::vector<T> col(static_cast<std::size_t>(n * n));
  transpose(a.data.data(), col.data(), n);
  std::vector<lapack_int> p(static_cast<std::size_t>(n));
  const lapack_int info = getrf(static_cast<lapack_int>(n), col.data(), p.data());
  if (info < 0)
    throw Error(ExitCode::check_failed,
                "lapack getrf: argument " + std::to_string(-info) + " invalid");
  transpose(col.data(), a.data.data(), n);
  for (std::int64_t i = 0; i < n; ++i) ipiv[i] = p[static_cast<std::size_t>(i)];
  // getrf finishes the factorization past a zero pivot; the other implementations stop there.
  if (info > 0) throw NumericalError(zero_pivot_message(info - 1));
}

#define MM_LU_LAPACK(T) template void lu_lapack<T>(Dense<T>&, std::int64_t*);
MM_FOR_VALUE_TYPES(MM_LU_LAPACK)

}  // namespace mm
