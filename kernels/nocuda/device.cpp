// Device discovery for a build without the CUDA backend (the twin of kernels/cuda/device.cu).
#include "device.hpp"
#include "device_memory.hpp"
#include "mm/error.hpp"

namespace mm {

GpuInfo cuda_devices() {
  GpuInfo g;
  g.reason = "built without CUDA (MM_WITH_CUDA=OFF or no nvcc)";
  return g;
}

bool gpu_memory_rich() {
  return false;
}

std::int64_t gpu_l2_bytes() {
  return 0;
}

std::int64_t cuda_free_memory() {
  throw DeviceError("built without CUDA");
}

double cuda_copy_gbps(std::size_t, int) {
  throw DeviceError("built without CUDA");
}

double cuda_timed_hold(double) {
  throw DeviceError("built without CUDA");
}

}  // namespace mm
