// Serial reference solvers: Gaussian elimination without pivoting, and the Krylov
// vector operations as plain loops over spmv_ref.
#include "solve.hpp"

#include "instantiate.hpp"
#include "spmv.hpp"

namespace mm {

template <class T>
void gauss_ref(Dense<T>& a, Dense<T>& b) {
  const std::int64_t n = a.rows, k = b.cols;
  for (std::int64_t p = 0; p < n; ++p) {
    if (a(p, p) == T{}) throw NumericalError(zero_pivot_message(p, false));
    for (std::int64_t i = p + 1; i < n; ++i) {
      const T l = a(i, p) / a(p, p);
      for (std::int64_t j = p + 1; j < n; ++j) a(i, j) -= l * a(p, j);
      for (std::int64_t c = 0; c < k; ++c) b(i, c) -= l * b(p, c);
    }
  }
  for (std::int64_t i = n - 1; i >= 0; --i)
    for (std::int64_t c = 0; c < k; ++c) {
      T s = b(i, c);
      for (std::int64_t j = i + 1; j < n; ++j) s -= a(i, j) * b(j, c);
      b(i, c) = s / a(i, i);
    }
}

// The inverse diagonal of A for Jacobi; a zero diagonal entry cannot be inverted.
template <class I, class T>
std::vector<T> jacobi_inverse(const Csr<I, T>& a, std::int64_t row_offset) {
  std::vector<T> d(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      if (a.idx[k] == i) d[i] += a.val[k];
    if (d[i] == T{})
      throw NumericalError("jacobi: zero diagonal entry in row " +
                           std::to_string(row_offset + i + 1));
    d[i] = T(1) / d[i];
  }
  return d;
}

namespace {

template <class I, class T>
class RefOps final : public KrylovOps<T> {
 public:
  RefOps(const Csr<I, T>& a, bool jacobi) : a_(a) {
    if (jacobi) inv_ = jacobi_inverse(a);
  }
  std::int64_t size() const override { return a_.rows; }
  double nnz() const override { return static_cast<double>(a_.nnz()); }
  void matvec(const T* x, T* y) override { spmv_ref(a_, x, y, T(1), T(0)); }
  T dot(const T* x, const T* y) override {
    T s{};
    for (std::int64_t i = 0; i < a_.rows; ++i) {
      if constexpr (is_complex_v<T>)
        s += std::conj(x[i]) * y[i];
      else
        s += x[i] * y[i];
    }
    return s;
  }
  void axpby(T a, const T* x, T b, T* y) override {
    for (std::int64_t i = 0; i < a_.rows; ++i) y[i] = b == T{} ? a * x[i] : a * x[i] + b * y[i];
  }
  void precond(const T* r, T* z) override {
    for (std::int64_t i = 0; i < a_.rows; ++i) z[i] = inv_.empty() ? r[i] : inv_[i] * r[i];
  }

 private:
  const Csr<I, T>& a_;
  std::vector<T> inv_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<KrylovOps<T>> krylov_ops_ref(const Csr<I, T>& a, bool jacobi) {
  return std::make_unique<RefOps<I, T>>(a, jacobi);
}

#define MM_SOLVE_REF_T(T) template void gauss_ref<T>(Dense<T>&, Dense<T>&);
MM_FOR_VALUE_TYPES(MM_SOLVE_REF_T)
#define MM_SOLVE_REF_IT(I, T)                                                   \
  template std::vector<T> jacobi_inverse<I, T>(const Csr<I, T>&, std::int64_t); \
  template std::unique_ptr<KrylovOps<T>> krylov_ops_ref<I, T>(const Csr<I, T>&, bool);
MM_FOR_INDEX_VALUE_TYPES(MM_SOLVE_REF_IT)

}  // namespace mm
