// Distributed SpMV: local kernels on the diagonal and off-diagonal blocks around the halo.
#include "dist/dist_spmv.hpp"

#include <omp.h>

#include <algorithm>

#include "instantiate.hpp"
#include "mm/error.hpp"
#include "spmv.hpp"

namespace mm::dist {

LocalKernel parse_local_kernel(const std::string& impl) {
  if (impl.empty() || impl == "cpu-csr") return LocalKernel::cpu_csr;
  if (impl == "ref") return LocalKernel::ref;
  throw UsageError("--impl " + impl +
                   " does not run distributed (yet); under mpirun the ranks run cpu-csr or ref");
}

std::string to_string(LocalKernel k) {
  return k == LocalKernel::ref ? "ref" : "cpu-csr";
}

template <class I, class T>
DistSpmv<I, T>::DistSpmv(const Comm& comm, const DistCsr<I, T>& a, LocalKernel kernel)
    : comm_(comm),
      a_(a),
      kernel_(kernel),
      split_diag_(spmv_split(a.diag, omp_get_max_threads())),
      split_offd_(spmv_split(a.offd, omp_get_max_threads())),
      halo_values_(static_cast<std::size_t>(a.plan.halo_size())),
      halo_(comm, a.plan) {}

template <class I, class T>
void DistSpmv<I, T>::multiply(const Csr<I, T>& b, const std::vector<std::int64_t>& split,
                              const T* x, T* y, T alpha, T beta, const T* y0) const {
  if (kernel_ == LocalKernel::ref) {
    if (beta != T{} && y0 != y) std::copy(y0, y0 + b.rows, y);
    spmv_ref(b, x, y, alpha, beta);
  } else {
    spmv_cpu_csr(b, split, x, y0, y, alpha, beta);
  }
}

template <class I, class T>
void DistSpmv<I, T>::apply(const T* x_local, T* y, T alpha, T beta, const T* y0) {
  halo_.start(x_local, halo_values_.data());
  multiply(a_.diag, split_diag_, x_local, y, alpha, beta, y0);
  halo_.finish();
  // y += alpha * offd * halo (in place: each row reads its own y before writing it).
  if (a_.offd.nnz() > 0) multiply(a_.offd, split_offd_, halo_values_.data(), y, alpha, T(1), y);
}

#define MM_DIST_SPMV(I, T) template class DistSpmv<I, T>;
MM_FOR_INDEX_VALUE_TYPES(MM_DIST_SPMV)

}  // namespace mm::dist
