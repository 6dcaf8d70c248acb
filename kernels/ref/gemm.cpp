// Serial reference GEMM: the naive i-j-k loop, and the shape check every backend shares.
#include "gemm.hpp"

#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm {

template <class T>
void gemm_check_shapes(const Dense<T>& a, const Dense<T>& b, const Dense<T>& c) {
  auto shape = [](const Dense<T>& d) {
    return std::to_string(d.rows) + "x" + std::to_string(d.cols);
  };
  if (a.cols != b.rows)
    throw InputError("gemm: inner dimensions differ: A is " + shape(a) + ", B is " + shape(b));
  if (c.rows != a.rows || c.cols != b.cols)
    throw InputError("gemm: C is " + shape(c) + ", A*B is " + std::to_string(a.rows) + "x" +
                     std::to_string(b.cols));
}

template <class T>
void gemm_ref(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta) {
  gemm_check_shapes(a, b, c);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      T s{};
      for (std::int64_t k = 0; k < a.cols; ++k) s += a(i, k) * b(k, j);
      c(i, j) = alpha * s + (beta == T{} ? T{} : beta * c(i, j));
    }
}

#define MM_GEMM_REF(T)                                                                   \
  template void gemm_check_shapes<T>(const Dense<T>&, const Dense<T>&, const Dense<T>&); \
  template void gemm_ref<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T);
MM_FOR_VALUE_TYPES(MM_GEMM_REF)

}  // namespace mm
