// OpenMP solvers: Gaussian elimination without pivoting (the blocked LU without swaps)
// and the Krylov vector operations over spmv_cpu_csr.
#include "solve.hpp"

#include <omp.h>

#include "instantiate.hpp"
#include "spmv.hpp"

namespace mm {

template <class I, class T>
std::vector<T> jacobi_inverse(const Csr<I, T>& a);  // kernels/ref/solve.cpp

// The blocked LU without row swaps, then the substitution (its L and U are those of
// plain elimination: the same arithmetic in a cache-friendly order).
template <class T>
void gauss_cpu(Dense<T>& a, Dense<T>& b) {
  std::vector<std::int64_t> ipiv(static_cast<std::size_t>(a.rows));
  lu_cpu_blocked_nopivot(a, ipiv.data(), 128);
  lu_solve_cpu(a, ipiv.data(), b);
}

namespace {

template <class I, class T>
class CpuOps final : public KrylovOps<T> {
 public:
  // Small systems stay on one thread: a parallel region costs microseconds at best, and on
  // a loaded machine a descheduled thread stalls every barrier, many per iteration.
  CpuOps(const Csr<I, T>& a, bool jacobi)
      : a_(a),
        threads_(a.nnz() + a.rows < 200000 ? 1 : omp_get_max_threads()),
        split_(spmv_split(a, threads_)) {
    if (jacobi) inv_ = jacobi_inverse(a);
  }
  std::int64_t size() const override { return a_.rows; }
  double nnz() const override { return static_cast<double>(a_.nnz()); }
  void matvec(const T* x, T* y) override {
    spmv_cpu_csr(a_, split_, x, static_cast<const T*>(nullptr), y, T(1), T(0));
  }
  T dot(const T* x, const T* y) override {
    // Real and imaginary parts reduced apart: OpenMP has no reduction for std::complex.
    using Rt = real_type_t<T>;
    Rt re = 0, im = 0;
    const std::int64_t n = a_.rows;
#pragma omp parallel for schedule(static) num_threads(threads_) reduction(+ : re, im)
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
  void axpby(T a, const T* x, T b, T* y) override {
    const std::int64_t n = a_.rows;
    if (b == T{}) {
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i];
    } else {
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
    }
  }
  void precond(const T* r, T* z) override {
    const std::int64_t n = a_.rows;
    const T* d = inv_.data();
    const bool none = inv_.empty();
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int64_t i = 0; i < n; ++i) z[i] = none ? r[i] : d[i] * r[i];
  }

 private:
  const Csr<I, T>& a_;
  int threads_;
  std::vector<std::int64_t> split_;
  std::vector<T> inv_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<KrylovOps<T>> krylov_ops_cpu(const Csr<I, T>& a, bool jacobi) {
  return std::make_unique<CpuOps<I, T>>(a, jacobi);
}

#define MM_SOLVE_CPU_T(T) template void gauss_cpu<T>(Dense<T>&, Dense<T>&);
MM_FOR_VALUE_TYPES(MM_SOLVE_CPU_T)
#define MM_SOLVE_CPU_IT(I, T) \
  template std::unique_ptr<KrylovOps<T>> krylov_ops_cpu<I, T>(const Csr<I, T>&, bool);
MM_FOR_INDEX_VALUE_TYPES(MM_SOLVE_CPU_IT)

}  // namespace mm
