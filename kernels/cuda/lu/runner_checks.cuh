// What the CUDA LU runners check, hold and read back: 32-bit sizes, A and the copy each run
// factors, the zero-pivot flag, the pivots.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/streams_graph.cuh"
#include "cuda/lu/types.cuh"
#include "lu.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

inline void check_int_size(Index n, const char* impl) {
  if (n > INT_MAX / 2) throw DeviceError(std::string(impl) + ": n beyond 32-bit indices");
}

// A (n x n) on the device and LU, the copy of it that each run factors in place: every run
// starts with a fresh copy (on stream 0, timed, as the CPU runners' copy is).
template <class T>
class FactorCopy {
 public:
  // A to the device; LU poisoned (0xff bytes): the factorization must write every element.
  void upload(const Dense<T>& a) {
    a_ = Buffer<T>(a.data.data(), a.data.size());
    lu_ = Buffer<T>(a.data.size());
    lu_.fill_bytes(0xff);
  }
  // LU = A, on stream 0.
  void refresh() {
    MM_CUDA(cudaMemcpyAsync(lu_.get(), a_.get(), a_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            host::kLegacy));
  }
  T* lu() const { return lu_.get(); }
  void download(Dense<T>& out) const { lu_.download(out.data.data(), out.data.size()); }

 private:
  Buffer<T> a_, lu_;
};

// INFO as the kernels leave it (kNoZeroPivot, or the 0-based column of the first exact zero
// pivot): NumericalError naming the column, as the CPU code words it. Waits for the device.
inline void check_zero_pivot(const Buffer<unsigned long long>& info) {
  unsigned long long v = 0;
  MM_CUDA(cudaMemcpy(&v, info.get(), sizeof v, cudaMemcpyDeviceToHost));
  if (v != kNoZeroPivot) throw NumericalError(zero_pivot_message(static_cast<Index>(v)));
}

// The kernels' 0-based pivots into LAPACK's 1-based OUT (as many as IPIV holds).
inline void download_pivots(const Buffer<int>& ipiv, std::vector<std::int64_t>& out) {
  std::vector<int> p(ipiv.size());
  ipiv.download(p.data(), p.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[i] = p[i] + 1;
}

}  // namespace mm::cuda::lu
