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
#include "dist/gpu.hpp"
#include "dist/halo.hpp"

namespace mm::dist {

// The kernel run on each rank's blocks: on CPU ranks cpu-csr (OpenMP, rows split by nonzeros;
// the default) or ref (serial loops); on GPU ranks the hand-written CUDA kernels cuda-adaptive
// (the default), cuda-vector or cuda-scalar on device copies of the blocks.
enum class LocalKernel { cpu_csr, ref, cuda_adaptive, cuda_vector, cuda_scalar };

inline bool on_gpu(LocalKernel k) {
  return k == LocalKernel::cuda_adaptive || k == LocalKernel::cuda_vector ||
         k == LocalKernel::cuda_scalar;
}

// --impl on CPU ranks ("cpu-csr", "ref") or, GPU, on GPU ranks ("cuda-adaptive",
// "cuda-vector", "cuda-scalar"); empty: the default. UsageError naming the others.
LocalKernel parse_local_kernel(const std::string& impl, bool gpu);
std::string to_string(LocalKernel k);

template <class I, class T>
class DistSpmv {
 public:
  // A and COMM (and GPU) must outlive this object. A GPU kernel needs GPU (open_gpu_ranks):
  // the blocks are copied to the device, and apply() then takes device pointers.
  DistSpmv(const Comm& comm, const DistCsr<I, T>& a, LocalKernel kernel = LocalKernel::cpu_csr,
           const GpuRanks* gpu = nullptr);
  ~DistSpmv();

  // This rank's rows of y = alpha*A*x + beta*y0. X_LOCAL: this rank's part of x (a.col_part);
  // Y, Y0: its rows (a.row_part); Y0 read only when beta != 0 (it may be Y itself).
  // Collective (the halo exchange with the neighbours). On the device (on_device()): device
  // pointers, the work queued on the GPU (GpuRanks::synchronize waits for it).
  void apply(const T* x_local, T* y, T alpha = T(1), T beta = T(0), const T* y0 = nullptr);
  bool on_device() const { return gpu_ != nullptr; }

  // Seconds the last apply() spent on the halo exchange outside the overlap (GPU ranks: the
  // compute stream's wait for the halo after the diagonal block), and the sum over every
  // apply() so far.
  double exchange_seconds() const;
  double exchange_total() const;
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
  double exchange_total_ = 0;
  std::unique_ptr<GpuSpmv<I, T>> gpu_;  // GPU ranks: the device side
};

}  // namespace mm::dist
