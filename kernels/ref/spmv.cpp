// Serial reference SpMV.
#include "spmv.hpp"

namespace mm {

template <class I, class T>
void spmv_ref(const Csr<I, T>& a, const T* x, T* y, T alpha, T beta) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    T s{};
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) s += a.val[k] * x[a.idx[k]];
    y[i] = alpha * s + (beta == T{} ? T{} : beta * y[i]);
  }
}

#define MM_INSTANTIATE(I, T) template void spmv_ref<I, T>(const Csr<I, T>&, const T*, T*, T, T);
MM_INSTANTIATE(std::int32_t, float)
MM_INSTANTIATE(std::int32_t, double)
MM_INSTANTIATE(std::int32_t, std::complex<float>)
MM_INSTANTIATE(std::int32_t, std::complex<double>)
MM_INSTANTIATE(std::int64_t, float)
MM_INSTANTIATE(std::int64_t, double)
MM_INSTANTIATE(std::int64_t, std::complex<float>)
MM_INSTANTIATE(std::int64_t, std::complex<double>)
#undef MM_INSTANTIATE

}  // namespace mm
