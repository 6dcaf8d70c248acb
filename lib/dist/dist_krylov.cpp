// KrylovOps over the ranks: the distributed product, local vector loops, one allreduce a batch.
#include "dist/dist_krylov.hpp"

#include <omp.h>

#include "cpu/krylov_vectors.hpp"
#include "instantiate.hpp"
#include "mm/timing.hpp"
#include "solve.hpp"

namespace mm::dist {

template <class I, class T>
DistKrylovOps<I, T>::DistKrylovOps(const Comm& comm, const DistCsr<I, T>& a, LocalKernel kernel,
                                   bool jacobi, const GpuRanks* gpu)
    : comm_(comm),
      a_(a),
      spmv_(comm, a, kernel, gpu),
      // As the one-process cpu backend: small blocks on one thread (a parallel region costs
      // microseconds, and a descheduled thread stalls every barrier); ref: serial loops.
      threads_(kernel == LocalKernel::ref || a.local_nnz() + a.local_rows() < 200000
                   ? 1
                   : omp_get_max_threads()) {
  // Square blocks: local column i is local row i's diagonal; rows named as in the file.
  if (jacobi) inv_ = jacobi_inverse(a.diag, a.row_begin());
  if (spmv_.on_device()) gpu_vec_ = make_gpu_vector_ops(*gpu, a.local_rows(), inv_);
}

template <class I, class T>
std::unique_ptr<KrylovVector<T>> DistKrylovOps<I, T>::vector(std::int64_t n) const {
  return gpu_vec_ ? gpu_vec_->vector(n) : KrylovOps<T>::vector(n);
}

template <class I, class T>
void DistKrylovOps<I, T>::matvec(const T* x, T* y) {
  spmv_.apply(x, y);
}

template <class I, class T>
void DistKrylovOps<I, T>::reduce(T* v, int k) {
  Stopwatch w;
  comm_.allreduce(v, static_cast<std::size_t>(k), Op::sum);
  allreduce_s_ += w.seconds();
  ++reductions_;
}

template <class I, class T>
T DistKrylovOps<I, T>::dot(const T* x, const T* y) {
  if (gpu_vec_) {
    T d;
    dots(1, &x, &y, &d);
    return d;
  }
  T d = cpu_vec::dot(a_.local_rows(), x, y, threads_);
  reduce(&d, 1);
  return d;
}

// The K sums in one pass over the rows (CG's r'r with r'z reads r once: 16 bytes a row, not
// 24); each sum runs in row order as cpu_vec::dot's, so one thread gives its values.
template <class I, class T>
void DistKrylovOps<I, T>::dots(int k, const T* const* x, const T* const* y, T* out) {
  if (gpu_vec_) {  // summed on the GPU and reduced in one call there
    gpu_vec_->dots(k, x, y, out);
    allreduce_s_ += gpu_vec_->allreduce_seconds();
    ++reductions_;
    return;
  }
  using Rt = real_type_t<T>;
  std::vector<Rt> acc(2 * static_cast<std::size_t>(k), Rt(0));  // real, imaginary parts
  Rt* s = acc.data();
  const int w = 2 * k;
  const std::int64_t n = a_.local_rows();
#pragma omp parallel for schedule(static) num_threads(threads_) reduction(+ : s[:w])
  for (std::int64_t i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) {
      if constexpr (is_complex_v<T>) {
        const T v = std::conj(x[j][i]) * y[j][i];
        s[2 * j] += v.real();
        s[2 * j + 1] += v.imag();
      } else {
        s[2 * j] += x[j][i] * y[j][i];
      }
    }
  for (int j = 0; j < k; ++j) {
    if constexpr (is_complex_v<T>)
      out[j] = T(s[2 * j], s[2 * j + 1]);
    else
      out[j] = s[2 * j] + s[2 * j + 1];
  }
  reduce(out, k);
}

template <class I, class T>
void DistKrylovOps<I, T>::axpby(T a, const T* x, T b, T* y) {
  if (gpu_vec_) return gpu_vec_->axpby(a, x, b, y);
  cpu_vec::axpby(a_.local_rows(), a, x, b, y, threads_);
}

template <class I, class T>
void DistKrylovOps<I, T>::precond(const T* r, T* z) {
  if (gpu_vec_) return gpu_vec_->precond(r, z);
  cpu_vec::precond(a_.local_rows(), inv_.empty() ? nullptr : inv_.data(), r, z, threads_);
}

#define MM_DIST_KRYLOV(I, T) template class DistKrylovOps<I, T>;
MM_FOR_INDEX_VALUE_TYPES(MM_DIST_KRYLOV)

}  // namespace mm::dist
