// Dense solve by LAPACK getrf + getrs (OpenBLAS): the row-major A is the column-major A^T,
// so its factors of A^T solve A X = B with getrs' transposed mode, no copy transposed.
#include <lapacke.h>

#include <complex>
#include <limits>

#include "instantiate.hpp"
#include "solve.hpp"

namespace mm {

namespace {

lapack_int getrf(lapack_int n, float* a, lapack_int* p) {
  return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, p);
}
lapack_int getrf(lapack_int n, double* a, lapack_int* p) {
  return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, p);
}
lapack_int getrf(lapack_int n, std::complex<float>* a, lapack_int* p) {
  return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_float*>(a), n,
                             p);
}
lapack_int getrf(lapack_int n, std::complex<double>* a, lapack_int* p) {
  return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_double*>(a), n,
                             p);
}
// 'T', not 'C': A^T without conjugation is what the row-major buffer holds.
lapack_int getrs(lapack_int n, lapack_int k, const float* a, const lapack_int* p, float* b) {
  return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, 'T', n, k, a, n, p, b, n);
}
lapack_int getrs(lapack_int n, lapack_int k, const double* a, const lapack_int* p, double* b) {
  return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, k, a, n, p, b, n);
}
lapack_int getrs(lapack_int n, lapack_int k, const std::complex<float>* a, const lapack_int* p,
                 std::complex<float>* b) {
  return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, 'T', n, k,
                             reinterpret_cast<const lapack_complex_float*>(a), n, p,
                             reinterpret_cast<lapack_complex_float*>(b), n);
}
lapack_int getrs(lapack_int n, lapack_int k, const std::complex<double>* a, const lapack_int* p,
                 std::complex<double>* b) {
  return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'T', n, k,
                             reinterpret_cast<const lapack_complex_double*>(a), n, p,
                             reinterpret_cast<lapack_complex_double*>(b), n);
}

}  // namespace

template <class T>
void solve_lapack(const Dense<T>& a, Dense<T>& b) {
  const std::int64_t n = a.rows, k = b.cols;
  if (n > std::numeric_limits<lapack_int>::max() / 2)
    throw InputError("lapack: n = " + std::to_string(n) + " is beyond 32-bit LAPACK");
  if (n == 0 || k == 0) return;
  std::vector<T> f(a.data);
  std::vector<lapack_int> p(static_cast<std::size_t>(n));
  const lapack_int info = getrf(static_cast<lapack_int>(n), f.data(), p.data());
  if (info > 0)
    throw NumericalError("singular matrix: zero pivot at step " + std::to_string(info) +
                         " of getrf on A^T");
  // B column-major (each right-hand side contiguous), and back.
  std::vector<T> bc(static_cast<std::size_t>(n * k));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t c = 0; c < k; ++c) bc[c * n + i] = b(i, c);
  getrs(static_cast<lapack_int>(n), static_cast<lapack_int>(k), f.data(), p.data(), bc.data());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t c = 0; c < k; ++c) b(i, c) = bc[c * n + i];
}

#define MM_SOLVE_LAPACK(T) template void solve_lapack<T>(const Dense<T>&, Dense<T>&);
MM_FOR_VALUE_TYPES(MM_SOLVE_LAPACK)

}  // namespace mm
