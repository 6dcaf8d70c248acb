// --device resolution, shared by every tool.
#include "device.hpp"
#include "device_memory.hpp"

#include <algorithm>
#include <iostream>

#include "mm/error.hpp"

namespace mm {

namespace {
bool g_auto = true;  // until a tool resolves --device: library users pick freely
}

bool device_was_auto() {
  return g_auto;
}

std::int64_t device_budget(Device device, std::int64_t max_memory) {
  if (device != Device::cuda) return -1;
  const std::int64_t free = cuda_free_memory();
  return max_memory >= 0 ? std::min(free, max_memory) : free;
}

Device resolve_device(const std::string& requested, bool verbose, const char* tool) {
  g_auto = requested == "auto";
  if (requested == "cpu") return Device::cpu;
  const GpuInfo g = cuda_devices();
  if (requested == "cuda") {
    if (g.count == 0) throw DeviceError("--device cuda: no usable GPU (" + g.reason + ")");
    return Device::cuda;
  }
  if (g.count > 0) {
    if (verbose) std::cerr << tool << ": device auto: using CUDA GPU " << g.name << "\n";
    return Device::cuda;
  }
  if (verbose) std::cerr << tool << ": device auto: using the CPU (" << g.reason << ")\n";
  return Device::cpu;
}

}  // namespace mm
