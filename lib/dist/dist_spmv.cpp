// Distributed SpMV: local kernels on the diagonal and off-diagonal blocks around the halo.
#include "dist/dist_spmv.hpp"

#include <omp.h>

#include <algorithm>
#include <stdexcept>

#include "instantiate.hpp"
#include "mm/error.hpp"
#include "spmv.hpp"

namespace mm::dist {

LocalKernel parse_local_kernel(const std::string& impl, bool gpu) {
  if (gpu) {
    if (impl.empty() || impl == "cuda-adaptive") return LocalKernel::cuda_adaptive;
    if (impl == "cuda-vector") return LocalKernel::cuda_vector;
    if (impl == "cuda-scalar") return LocalKernel::cuda_scalar;
    throw UsageError("--impl " + impl +
                     " does not run on GPU ranks; under mpirun with --device cuda the ranks run "
                     "cuda-adaptive, cuda-vector or cuda-scalar");
  }
  if (impl.empty() || impl == "cpu-csr") return LocalKernel::cpu_csr;
  if (impl == "ref") return LocalKernel::ref;
  throw UsageError("--impl " + impl +
                   " does not run distributed (yet); under mpirun the ranks run cpu-csr or ref");
}

std::string to_string(LocalKernel k) {
  switch (k) {
    case LocalKernel::ref:
      return "ref";
    case LocalKernel::cuda_adaptive:
      return "cuda-adaptive";
    case LocalKernel::cuda_vector:
      return "cuda-vector";
    case LocalKernel::cuda_scalar:
      return "cuda-scalar";
    case LocalKernel::cpu_csr:
      break;
  }
  return "cpu-csr";
}

template <class I, class T>
DistSpmv<I, T>::DistSpmv(const Comm& comm, const DistCsr<I, T>& a, LocalKernel kernel,
                         const GpuRanks* gpu)
    : comm_(comm),
      a_(a),
      kernel_(kernel),
      split_diag_(on_gpu(kernel) ? std::vector<std::int64_t>{}
                                 : spmv_split(a.diag, omp_get_max_threads())),
      halo_values_(on_gpu(kernel) ? 0 : static_cast<std::size_t>(a.plan.halo_size())),
      halo_(comm, a.plan) {
  if (on_gpu(kernel)) {
    if (!gpu) throw std::logic_error("DistSpmv: a GPU kernel without GPU ranks");
    const GpuKernel k = kernel == LocalKernel::cuda_vector   ? GpuKernel::vector
                        : kernel == LocalKernel::cuda_scalar ? GpuKernel::scalar
                                                             : GpuKernel::adaptive;
    gpu_ = make_gpu_spmv(*gpu, a, k);
    return;
  }
  for (std::int64_t i = 0; i < a.offd.rows; ++i)
    if (a.offd.ptr[i + 1] > a.offd.ptr[i]) offd_rows_.push_back(i);
}

template <class I, class T>
DistSpmv<I, T>::~DistSpmv() = default;

template <class I, class T>
double DistSpmv<I, T>::exchange_seconds() const {
  return gpu_ ? gpu_->exchange_seconds() : halo_.seconds();
}

template <class I, class T>
double DistSpmv<I, T>::exchange_total() const {
  return gpu_ ? gpu_->exchange_total() : exchange_total_;
}

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

// y += alpha * offd * halo on the rows that have remote columns only (a row's sum in column
// order, as the kernels sum it). A pass over every row would read and write all of y and
// offd's row pointer again, 20 bytes a row: ~20% more traffic than a 7-point SpMV's 104, for
// the few rows on a block's boundary. Measured (bench/dist_scaling.sh, 10 M rows a rank, 2-core
// Xeon): with the whole pass 2 ranks took ~115 ms a product, one rank ~100; boundary rows
// only: 96 and 96.
template <class I, class T>
void DistSpmv<I, T>::add_remote(const T* halo, T* y, T alpha) const {
  const auto m = static_cast<std::int64_t>(offd_rows_.size());
  const Csr<I, T>& b = a_.offd;
  const bool parallel = kernel_ == LocalKernel::cpu_csr && b.nnz() > 100000;
#pragma omp parallel for schedule(static) if (parallel)
  for (std::int64_t r = 0; r < m; ++r) {
    const std::int64_t i = offd_rows_[static_cast<std::size_t>(r)];
    T s{};
    for (auto k = b.ptr[i]; k < b.ptr[i + 1]; ++k) s += b.val[k] * halo[b.idx[k]];
    y[i] = alpha * s + y[i];
  }
}

template <class I, class T>
void DistSpmv<I, T>::apply(const T* x_local, T* y, T alpha, T beta, const T* y0) {
  if (gpu_) {
    gpu_->apply(x_local, y, alpha, beta, y0);
    return;
  }
  halo_.start(x_local, halo_values_.data());
  multiply(a_.diag, split_diag_, x_local, y, alpha, beta, y0);
  halo_.finish();
  exchange_total_ += halo_.seconds();
  add_remote(halo_values_.data(), y, alpha);
}

#define MM_DIST_SPMV(I, T) template class DistSpmv<I, T>;
MM_FOR_INDEX_VALUE_TYPES(MM_DIST_SPMV)

}  // namespace mm::dist
