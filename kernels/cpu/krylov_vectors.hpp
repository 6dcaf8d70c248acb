// The Krylov solvers' vector loops on one process's rows, over OpenMP: the cpu backend's
// KrylovOps and the distributed one (lib/dist) run these same loops, so one rank's results
// are the one-process results to the bit.
#pragma once

#include <complex>
#include <cstdint>

#include "mm/matrix.hpp"

namespace mm::cpu_vec {

// sum conj(x_i) y_i over N rows; real and imaginary parts reduced apart (OpenMP has no
// reduction for std::complex).
template <class T>
T dot(std::int64_t n, const T* x, const T* y, int threads) {
  using Rt = real_type_t<T>;
  Rt re = 0, im = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : re, im)
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (is_complex_v<T>) {
      const T v = std::conj(x[i]) * y[i];
      re += v.real();
      im += v.imag();
    } else {
      re += x[i] * y[i];
    }
  }
  if constexpr (is_complex_v<T>)
    return T(re, im);
  else
    return re + im;
}

// y = a x + b y (b = 0: y is not read).
template <class T>
void axpby(std::int64_t n, T a, const T* x, T b, T* y, int threads) {
  if (b == T{}) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i];
  } else {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
  }
}

// z = D^-1 r with INV the inverted diagonal (jacobi_inverse), or a copy when INV is null.
template <class T>
void precond(std::int64_t n, const T* inv, const T* r, T* z, int threads) {
  const bool none = inv == nullptr;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < n; ++i) z[i] = none ? r[i] : inv[i] * r[i];
}

}  // namespace mm::cpu_vec
