// Serial reference GEMM: the naive i-j-k loop.
#include "gemm.hpp"

#include "mm/error.hpp"

namespace mm {

template <class T>
void gemm_ref(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta) {
  if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols)
    throw InputError("gemm: shapes " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " and " +
                     std::to_string(b.rows) + "x" + std::to_string(b.cols) + " do not match");
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < b.cols; ++j) {
      T s{};
      for (std::int64_t k = 0; k < a.cols; ++k) s += a(i, k) * b(k, j);
      c(i, j) = alpha * s + (beta == T{} ? T{} : beta * c(i, j));
    }
}

template void gemm_ref<float>(const Dense<float>&, const Dense<float>&, Dense<float>&, float, float);
template void gemm_ref<double>(const Dense<double>&, const Dense<double>&, Dense<double>&, double, double);
template void gemm_ref<std::complex<float>>(const Dense<std::complex<float>>&, const Dense<std::complex<float>>&,
                                            Dense<std::complex<float>>&, std::complex<float>, std::complex<float>);
template void gemm_ref<std::complex<double>>(const Dense<std::complex<double>>&, const Dense<std::complex<double>>&,
                                             Dense<std::complex<double>>&, std::complex<double>, std::complex<double>);

}  // namespace mm
