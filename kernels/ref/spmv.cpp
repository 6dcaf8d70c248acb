// Serial reference SpMV.
#include "spmv.hpp"

#include "instantiate.hpp"

namespace mm {

template <class I, class T>
void spmv_ref(const Csr<I, T>& a, const T* x, T* y, T alpha, T beta) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    T s{};
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) s += a.val[k] * x[a.idx[k]];
    y[i] = alpha * s + (beta == T{} ? T{} : beta * y[i]);
  }
}

#define MM_SPMV_REF(I, T) template void spmv_ref<I, T>(const Csr<I, T>&, const T*, T*, T, T);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_REF)

}  // namespace mm
