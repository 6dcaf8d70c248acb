// Which device runs a kernel: --device auto|cpu|cuda, and what GPUs exist.
#pragma once

#include <cstddef>
#include <string>

namespace mm {

enum class Device { cpu, cuda };

struct GpuInfo {
  int count = 0;
  std::string name;    // the first GPU's name
  std::string reason;  // why count is 0
};

// The CUDA GPUs this process can use (count 0 with a reason when built without CUDA).
GpuInfo cuda_devices();

// Bandwidth of a device-to-device copy of BYTES on the first GPU (bytes read plus bytes
// written, median of REPEAT event-timed copies after a warm-up): the ceiling memory-bound
// GPU kernels are compared with. Throws DeviceError without a GPU.
double cuda_copy_gbps(std::size_t bytes, int repeat = 20);

// Resolves --device: "cuda" without a usable GPU throws DeviceError (exit 4); "auto"
// picks CUDA when present, else the CPU, saying which on stderr when VERBOSE.
Device resolve_device(const std::string& requested, bool verbose, const char* tool);

// Whether the last resolve_device chose the GPU by itself ("auto"): then an operation
// with no CUDA implementation runs on the CPU instead of failing (pick_impl).
bool device_was_auto();

}  // namespace mm
