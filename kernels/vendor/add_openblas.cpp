// OpenBLAS dense addition: copy B into C, then OpenBLAS's extension cblas_?geadd.
#include <cblas.h>

#include <algorithm>
#include <climits>

#include "add.hpp"
#include "instantiate.hpp"

namespace mm {

namespace {

// blasint is 32-bit here: long arrays are copied in pieces.
constexpr std::int64_t kMaxBlas = INT_MAX / 2;

template <class T>
void copy_blas(std::int64_t n, const T* x, T* y) {
  for (std::int64_t off = 0; off < n; off += kMaxBlas) {
    const auto m = static_cast<blasint>(std::min(kMaxBlas, n - off));
    if constexpr (std::is_same_v<T, float>)
      cblas_scopy(m, x + off, 1, y + off, 1);
    else if constexpr (std::is_same_v<T, double>)
      cblas_dcopy(m, x + off, 1, y + off, 1);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
      cblas_ccopy(m, x + off, 1, y + off, 1);
    else
      cblas_zcopy(m, x + off, 1, y + off, 1);
  }
}

}  // namespace

template <class T>
void add_dense_openblas(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta) {
  if (a.rows == 0 || a.cols == 0) return;
  if (a.rows > INT_MAX || a.cols > INT_MAX)
    throw InputError("matrix too large for OpenBLAS's 32-bit sizes; use --impl cpu");
  copy_blas(a.rows * a.cols, b.data.data(), c.data.data());
  const auto rows = static_cast<blasint>(a.rows), cols = static_cast<blasint>(a.cols);
  // geadd's A is declared non-const but only read.
  auto* x = const_cast<T*>(a.data.data());
  T* z = c.data.data();
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgeadd(CblasRowMajor, rows, cols, alpha, x, cols, beta, z, cols);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgeadd(CblasRowMajor, rows, cols, alpha, x, cols, beta, z, cols);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    cblas_cgeadd(CblasRowMajor, rows, cols, reinterpret_cast<const float*>(&alpha),
                 reinterpret_cast<float*>(x), cols, reinterpret_cast<const float*>(&beta),
                 reinterpret_cast<float*>(z), cols);
  } else {
    cblas_zgeadd(CblasRowMajor, rows, cols, reinterpret_cast<const double*>(&alpha),
                 reinterpret_cast<double*>(x), cols, reinterpret_cast<const double*>(&beta),
                 reinterpret_cast<double*>(z), cols);
  }
}

#define MM_ADD_OPENBLAS(T) \
  template void add_dense_openblas<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T);
MM_FOR_VALUE_TYPES(MM_ADD_OPENBLAS)

}  // namespace mm
