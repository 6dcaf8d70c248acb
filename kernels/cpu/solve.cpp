// OpenMP solvers: Gaussian elimination without pivoting (the blocked LU without swaps)
// and the Krylov vector operations over spmv_cpu_csr.
#include "solve.hpp"

#include <omp.h>

#include "cpu/krylov_vectors.hpp"
#include "instantiate.hpp"
#include "spmv.hpp"

namespace mm {

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
  T dot(const T* x, const T* y) override { return cpu_vec::dot(a_.rows, x, y, threads_); }
  void axpby(T a, const T* x, T b, T* y) override { cpu_vec::axpby(a_.rows, a, x, b, y, threads_); }
  void precond(const T* r, T* z) override {
    cpu_vec::precond(a_.rows, inv_.empty() ? nullptr : inv_.data(), r, z, threads_);
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
