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
  std::int64_t l2_bytes = 0;  // the first GPU's L2 cache
};

// Whether the first GPU's memory is "rich" against its multiprocessors (bytes_per_sm_clock at
// least kMemoryRichBytesPerSmClock): where the defaults of some memory-bound kernels differ
// (cuda-norm's loads ahead, mmspmv's choice for short rows). False without a GPU.
inline constexpr double kMemoryRichBytesPerSmClock = 16;
bool gpu_memory_rich();
// The first GPU's L2 cache in bytes (0 without a GPU).
std::int64_t gpu_l2_bytes();

// The CUDA GPUs this process can use (count 0 with a reason when built without CUDA).
GpuInfo cuda_devices();

// How long the GPU is held busy ahead of every timed run's start event (CudaRunner, and the
// copy below): longer than the host takes to launch a run's first kernel or library call, so
// that the events time the device's work from its first kernel on, as in a run among others
// on a busy stream, and not the launch's latency on an idle GPU (~4.5 us on an H200, a tenth
// of a 50 us SpMV). Up to this much of a run's host work ahead of its first launch is hidden:
// the runners' launch() enqueue device work first, but for cuSPARSE SpGEMM's descriptors.
inline constexpr double kCudaHeadStartSeconds = 50e-6;

// Bandwidth of a device-to-device copy of BYTES on the first GPU (bytes read plus bytes
// written, median of REPEAT event-timed copies after a warm-up, each behind the head start
// above): the ceiling memory-bound GPU kernels are compared with. Throws DeviceError without
// a GPU.
double cuda_copy_gbps(std::size_t bytes, int repeat = 20);

// Seconds between two events around a hold of the first GPU's stream for SECONDS (its own
// timer), the hold timed runs start behind; for the tests. Throws DeviceError without a GPU.
double cuda_timed_hold(double seconds);

// Resolves --device: "cuda" without a usable GPU throws DeviceError (exit 4); "auto"
// picks CUDA when present, else the CPU, saying which on stderr when VERBOSE.
Device resolve_device(const std::string& requested, bool verbose, const char* tool);

// Whether the last resolve_device chose the GPU by itself ("auto"): then an operation
// with no CUDA implementation runs on the CPU instead of failing (pick_impl).
bool device_was_auto();

}  // namespace mm
