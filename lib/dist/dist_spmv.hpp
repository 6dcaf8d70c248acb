// Distributed SpMV y = alpha*A*x + beta*y0 over a DistCsr: the halo exchange overlaps the
// diagonal block's product, then the off-diagonal block adds the remote columns' share.
//
// Work (the record's formula, of the whole matrix as the one-process tool counts it):
// flops = 2*nnz (8*nnz complex); bytes as spmv_bytes of the global matrix. Communication:
// halo_size values received a rank per product.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dist/dist_csr.hpp"
#include "dist/halo.hpp"

namespace mm::dist {

// The kernel run on each rank's blocks: cpu-csr (OpenMP, rows split by nonzeros; the default)
// or ref (serial loops). GPU ranks are a later addition (a cuda kernel on device blocks).
enum class LocalKernel { cpu_csr, ref };

// "cpu-csr" (or empty: the default) or "ref"; UsageError naming the others.
LocalKernel parse_local_kernel(const std::string& impl);
std::string to_string(LocalKernel k);

template <class I, class T>
class DistSpmv {
 public:
  // A and COMM must outlive this object.
  DistSpmv(const Comm& comm, const DistCsr<I, T>& a, LocalKernel kernel = LocalKernel::cpu_csr);

  // This rank's rows of y = alpha*A*x + beta*y0. X_LOCAL: this rank's part of x (a.col_part);
  // Y, Y0: its rows (a.row_part); Y0 read only when beta != 0 (it may be Y itself).
  // Collective (the halo exchange with the neighbours).
  void apply(const T* x_local, T* y, T alpha = T(1), T beta = T(0), const T* y0 = nullptr);

  // Seconds the last apply() spent on the halo exchange outside the overlap.
  double exchange_seconds() const { return halo_.seconds(); }
  const DistCsr<I, T>& matrix() const { return a_; }

 private:
  void multiply(const Csr<I, T>& b, const std::vector<std::int64_t>& split, const T* x, T* y,
                T alpha, T beta, const T* y0) const;

  void add_remote(const T* halo, T* y, T alpha) const;

  Comm comm_;
  const DistCsr<I, T>& a_;
  LocalKernel kernel_;
  std::vector<std::int64_t> split_diag_;
  std::vector<std::int64_t> offd_rows_;  // the rows with remote columns, ascending
  std::vector<T> halo_values_;
  HaloExchange<T> halo_;
};

}  // namespace mm::dist
