// Serial reference transposes: plain loops, the oracle for every other backend.
#include "transpose.hpp"

#include <utility>

namespace mm {

template <class T>
void transpose_ref(std::int64_t rows, std::int64_t cols, const T* a, T* b, bool conjugate) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      b[j * rows + i] = conjugate ? maybe_conj<true>(a[i * cols + j]) : a[i * cols + j];
}

template <class T>
void transpose_inplace_ref(std::int64_t n, T* a, bool conjugate) {
  for (std::int64_t i = 0; i < n; ++i) {
    if (conjugate) a[i * n + i] = maybe_conj<true>(a[i * n + i]);
    for (std::int64_t j = i + 1; j < n; ++j) {
      const T upper = a[i * n + j];
      a[i * n + j] = conjugate ? maybe_conj<true>(a[j * n + i]) : a[j * n + i];
      a[j * n + i] = conjugate ? maybe_conj<true>(upper) : upper;
    }
  }
}

template <class I, class T>
void transpose_csr_ref(const Csr<I, T>& a, Csr<I, T>& t, bool conjugate) {
  t.rows = a.cols;
  t.cols = a.rows;
  std::fill(t.ptr.begin(), t.ptr.end(), I{0});
  for (std::size_t k = 0; k < a.idx.size(); ++k) ++t.ptr[static_cast<std::size_t>(a.idx[k]) + 1];
  for (std::int64_t j = 0; j < a.cols; ++j) t.ptr[j + 1] += t.ptr[j];
  // NEXT[j]: where column j's next entry goes. Rows are walked in order, so every row of
  // the transpose comes out with its column indices sorted.
  std::vector<I> next(t.ptr.begin(), t.ptr.end() - 1);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      const I dst = next[a.idx[k]]++;
      t.idx[dst] = static_cast<I>(i);
      t.val[dst] = conjugate ? maybe_conj<true>(a.val[k]) : a.val[k];
    }
  }
}

#define MM_TRANSPOSE_REF(T)                                                       \
  template void transpose_ref<T>(std::int64_t, std::int64_t, const T*, T*, bool); \
  template void transpose_inplace_ref<T>(std::int64_t, T*, bool);
MM_TRANSPOSE_VALUE_TYPES(MM_TRANSPOSE_REF)

#define MM_TRANSPOSE_CSR_REF(I, T) \
  template void transpose_csr_ref<I, T>(const Csr<I, T>&, Csr<I, T>&, bool);
MM_TRANSPOSE_INDEX_VALUE_TYPES(MM_TRANSPOSE_CSR_REF)

}  // namespace mm
