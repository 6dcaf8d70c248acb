// CUDA device discovery.
#include <cuda_runtime.h>

#include "device.hpp"

namespace mm {

GpuInfo cuda_devices() {
  GpuInfo g;
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    g.reason = std::string("CUDA: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky error
    return g;
  }
  if (n == 0) {
    g.reason = "no CUDA device found";
    return g;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    g.reason = "cannot query CUDA device 0";
    return g;
  }
  g.count = n;
  g.name = p.name;
  return g;
}

}  // namespace mm
