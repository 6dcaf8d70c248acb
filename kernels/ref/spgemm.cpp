// Serial references for the products with a sparse operand: SpGEMM, SpMM and DSMM.
#include "spgemm.hpp"

#include <limits>

#include "instantiate.hpp"

namespace mm {

void check_inner(std::int64_t a_rows, std::int64_t a_cols, std::int64_t b_rows,
                 std::int64_t b_cols) {
  if (a_cols != b_rows)
    throw InputError("inner dimensions differ: A is " + std::to_string(a_rows) + "x" +
                     std::to_string(a_cols) + ", B is " + std::to_string(b_rows) + "x" +
                     std::to_string(b_cols));
}

template <class I, class T>
Csr<I, T> spgemm_ref(const Csr<I, T>& a, const Csr<I, T>& b, T alpha) {
  check_inner(a.rows, a.cols, b.rows, b.cols);
  Csr<I, T> c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  std::vector<T> acc(static_cast<std::size_t>(b.cols));
  std::vector<char> seen(static_cast<std::size_t>(b.cols), 0);
  std::vector<I> cols;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    cols.clear();
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
      const T aik = a.val[e];
      const auto k = a.idx[e];
      for (auto f = b.ptr[k]; f < b.ptr[k + 1]; ++f) {
        const auto j = b.idx[f];
        if (!seen[j]) {
          seen[j] = 1;
          acc[j] = T{};
          cols.push_back(j);
        }
        acc[j] += aik * b.val[f];
      }
    }
    std::sort(cols.begin(), cols.end());
    for (const I j : cols) {
      c.idx.push_back(j);
      c.val.push_back(alpha * acc[j]);
      seen[j] = 0;
    }
    if (c.idx.size() > static_cast<std::size_t>(std::numeric_limits<I>::max()))
      throw InputError("the product has more entries than 32-bit indices can count");
    c.ptr[i + 1] = static_cast<I>(c.idx.size());
  }
  return c;
}

template <class I, class T>
void spmm_ref(const Csr<I, T>& a, const Dense<T>& b, Dense<T>& c, T alpha) {
  check_inner(a.rows, a.cols, b.rows, b.cols);
  const std::int64_t n = b.cols;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < n; ++j) c(i, j) = T{};
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e)
      for (std::int64_t j = 0; j < n; ++j) c(i, j) += a.val[e] * b(a.idx[e], j);
    for (std::int64_t j = 0; j < n; ++j) c(i, j) *= alpha;
  }
}

template <class I, class T>
void dsmm_ref(const Dense<T>& a, const Csr<I, T>& b, Dense<T>& c, T alpha) {
  check_inner(a.rows, a.cols, b.rows, b.cols);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < b.cols; ++j) c(i, j) = T{};
    for (std::int64_t k = 0; k < a.cols; ++k)
      for (auto f = b.ptr[k]; f < b.ptr[k + 1]; ++f) c(i, b.idx[f]) += a(i, k) * b.val[f];
    for (std::int64_t j = 0; j < b.cols; ++j) c(i, j) *= alpha;
  }
}

#define MM_SPGEMM_REF(I, T)                                                      \
  template Csr<I, T> spgemm_ref<I, T>(const Csr<I, T>&, const Csr<I, T>&, T);    \
  template void spmm_ref<I, T>(const Csr<I, T>&, const Dense<T>&, Dense<T>&, T); \
  template void dsmm_ref<I, T>(const Dense<T>&, const Csr<I, T>&, Dense<T>&, T);
MM_FOR_INDEX_VALUE_TYPES(MM_SPGEMM_REF)

}  // namespace mm
