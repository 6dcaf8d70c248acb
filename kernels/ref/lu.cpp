// Serial reference LU (unblocked Doolittle with partial pivoting) and substitution.
#include "lu.hpp"

#include <algorithm>

#include "instantiate.hpp"

namespace mm {

std::string zero_pivot_message(std::int64_t column, bool pivoting) {
  if (!pivoting)
    return "zero pivot in column " + std::to_string(column + 1) +
           " (gauss does not pivot; --method lu does)";
  return "singular matrix: zero pivot in column " + std::to_string(column + 1);
}

template <class T>
void lu_ref(Dense<T>& a, std::int64_t* ipiv) {
  const std::int64_t n = a.rows;
  for (std::int64_t k = 0; k < n; ++k) {
    // The first largest magnitude, as LAPACK's i?amax picks it.
    std::int64_t p = k;
    for (std::int64_t i = k + 1; i < n; ++i)
      if (pivot_magnitude(a(i, k)) > pivot_magnitude(a(p, k))) p = i;
    ipiv[k] = p + 1;
    if (a(p, k) == T{}) throw NumericalError(zero_pivot_message(k));
    if (p != k) std::swap_ranges(&a(k, 0), &a(k, 0) + n, &a(p, 0));
    const T inv = T(1) / a(k, k);
    for (std::int64_t i = k + 1; i < n; ++i) {
      const T l = a(i, k) * inv;
      a(i, k) = l;
      for (std::int64_t j = k + 1; j < n; ++j) a(i, j) -= l * a(k, j);
    }
  }
}

template <class T>
void lu_solve_ref(const Dense<T>& lu, const std::int64_t* ipiv, Dense<T>& b) {
  const std::int64_t n = lu.rows, k = b.cols;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = ipiv[i] - 1;
    if (p != i) std::swap_ranges(&b(i, 0), &b(i, 0) + k, &b(p, 0));
  }
  for (std::int64_t c = 0; c < k; ++c) {
    for (std::int64_t i = 0; i < n; ++i) {
      T s = b(i, c);
      for (std::int64_t j = 0; j < i; ++j) s -= lu(i, j) * b(j, c);
      b(i, c) = s;
    }
    for (std::int64_t i = n - 1; i >= 0; --i) {
      T s = b(i, c);
      for (std::int64_t j = i + 1; j < n; ++j) s -= lu(i, j) * b(j, c);
      b(i, c) = s / lu(i, i);
    }
  }
}

#define MM_LU_REF(T)                                 \
  template void lu_ref<T>(Dense<T>&, std::int64_t*); \
  template void lu_solve_ref<T>(const Dense<T>&, const std::int64_t*, Dense<T>&);
MM_FOR_VALUE_TYPES(MM_LU_REF)

}  // namespace mm
