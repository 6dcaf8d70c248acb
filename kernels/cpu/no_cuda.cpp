// Device discovery for a build without the CUDA backend.
#include "device.hpp"

namespace mm {

GpuInfo cuda_devices() {
  GpuInfo g;
  g.reason = "built without CUDA (MM_WITH_CUDA=OFF or no nvcc)";
  return g;
}

}  // namespace mm
