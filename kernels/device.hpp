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
  // The first GPU's peak memory bytes a clock per multiprocessor: memory clock (double data
  // rate) times bus width, over the multiprocessors times their clock. How much memory each
  // multiprocessor's warps must keep busy: about 13 on an H100 SXM, 19 on an H200.
  double bytes_per_sm_clock = 0;
};

// Whether the first GPU's memory is "rich" against its multiprocessors (bytes_per_sm_clock at
// least kMemoryRichBytesPerSmClock): where the defaults of some memory-bound kernels differ
// (cuda-norm's loads ahead, cuda-timetile's K). False without a GPU.
inline constexpr double kMemoryRichBytesPerSmClock = 16;
bool gpu_memory_rich();

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
