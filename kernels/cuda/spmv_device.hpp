// SpMV by the hand-written kernels of spmv_csr.cu on a CSR matrix kept on the device, for callers
// whose vectors stay there too (lib/dist's GPU ranks: a rank's diagonal and off-diagonal
// blocks): device pointers in, work queued on the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "cuda/spmv_cuda.hpp"
#include "mm/matrix.hpp"

namespace mm {

template <class I, class T>
class SpmvCudaDevice {
 public:
  // Uploads A (the current device) and, for the adaptive kernel, plans its row blocks.
  SpmvCudaDevice(const Csr<I, T>& a, SpmvCudaKernel kernel);
  ~SpmvCudaDevice();
  SpmvCudaDevice(const SpmvCudaDevice&) = delete;
  SpmvCudaDevice& operator=(const SpmvCudaDevice&) = delete;

  // y = alpha*A*x + beta*y0 on STREAM (Y0 read only when beta != 0; it may be Y itself: each
  // row reads its y0 before writing its y). X, Y0, Y: device arrays of A's columns and rows.
  void apply(const T* x, const T* y0, T* y, T alpha, T beta, cudaStream_t stream) const;
  std::int64_t rows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mm
