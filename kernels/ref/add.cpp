// Serial reference matrix addition: plain loops, the oracle for every other backend.
#include "add.hpp"

#include "instantiate.hpp"

namespace mm {

template <class T>
void add_dense_ref(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta) {
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j) c(i, j) = alpha * a(i, j) + beta * b(i, j);
}

template <class I, class T>
void add_mixed_ref(const Dense<T>& d, T ds, const Csr<I, T>& s, T ss, Dense<T>& c) {
  for (std::int64_t i = 0; i < d.rows; ++i) {
    for (std::int64_t j = 0; j < d.cols; ++j) c(i, j) = ds * d(i, j);
    for (auto k = s.ptr[i]; k < s.ptr[i + 1]; ++k) c(i, s.idx[k]) += ss * s.val[k];
  }
}

template <class I, class T>
void add_sparse_ref(const Csr<I, T>& a, const Csr<I, T>& b, Csr<I, T>& c, T alpha, T beta) {
  c.rows = a.rows;
  c.cols = a.cols;
  c.ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  c.idx.clear();
  c.val.clear();
  for (std::int64_t i = 0; i < a.rows; ++i) {
    auto p = a.ptr[i], q = b.ptr[i];
    const auto pe = a.ptr[i + 1], qe = b.ptr[i + 1];
    while (p < pe || q < qe) {
      // An exhausted list counts as a column past every other.
      const bool take_a = q == qe || (p < pe && a.idx[p] <= b.idx[q]);
      const bool take_b = p == pe || (q < qe && b.idx[q] <= a.idx[p]);
      if (take_a && take_b) {
        c.idx.push_back(a.idx[p]);
        c.val.push_back(alpha * a.val[p++] + beta * b.val[q++]);
      } else if (take_a) {
        c.idx.push_back(a.idx[p]);
        c.val.push_back(alpha * a.val[p++]);
      } else {
        c.idx.push_back(b.idx[q]);
        c.val.push_back(beta * b.val[q++]);
      }
    }
    c.ptr[i + 1] = static_cast<I>(c.idx.size());
  }
}

#define MM_ADD_REF_T(T) \
  template void add_dense_ref<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T);
MM_FOR_VALUE_TYPES(MM_ADD_REF_T)
#define MM_ADD_REF_IT(I, T)                                                              \
  template void add_mixed_ref<I, T>(const Dense<T>&, T, const Csr<I, T>&, T, Dense<T>&); \
  template void add_sparse_ref<I, T>(const Csr<I, T>&, const Csr<I, T>&, Csr<I, T>&, T, T);
MM_FOR_INDEX_VALUE_TYPES(MM_ADD_REF_IT)

}  // namespace mm
