// What the CUDA LU runners check and read back: 32-bit sizes, the zero-pivot flag, the pivots.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/types.cuh"
#include "lu.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

inline void check_int_size(Index n, const char* impl) {
  if (n > INT_MAX / 2) throw DeviceError(std::string(impl) + ": n beyond 32-bit indices");
}

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
