// CUDA device discovery.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "device.hpp"
#include "device_memory.hpp"

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
  int mem_khz = 0, bus_bits = 0, sm_khz = 0;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess &&
      cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0) == cudaSuccess && sm_khz > 0 &&
      p.multiProcessorCount > 0)
    g.bytes_per_sm_clock =
        2.0 * mem_khz * (bus_bits / 8.0) / (double(sm_khz) * p.multiProcessorCount);
  g.l2_bytes = p.l2CacheSize;
  return g;
}

bool gpu_memory_rich() {
  static const bool rich = cuda_devices().bytes_per_sm_clock >= kMemoryRichBytesPerSmClock;
  return rich;
}

std::int64_t gpu_l2_bytes() {
  static const std::int64_t bytes = cuda_devices().l2_bytes;
  return bytes;
}

std::int64_t cuda_free_memory() {
  std::size_t free = 0, total = 0;
  MM_CUDA(cudaMemGetInfo(&free, &total));
  return static_cast<std::int64_t>(free);
}

double cuda_copy_gbps(std::size_t bytes, int repeat) {
  cuda::Buffer<char> a(bytes), b(bytes);
  a.fill_bytes(1);
  cuda::Event start, stop;
  std::vector<double> t;
  for (int i = 0; i <= repeat; ++i) {
    cuda::hold(nullptr, kCudaHeadStartSeconds);
    start.record();
    MM_CUDA(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice));
    stop.record();
    const double s = cuda::elapsed(start, stop);
    if (i > 0) t.push_back(s);  // the first is the warm-up
  }
  std::sort(t.begin(), t.end());
  return 2.0 * static_cast<double>(bytes) / t[t.size() / 2] * 1e-9;
}

double cuda_timed_hold(double seconds) {
  cuda::Event start, stop;
  start.record();
  cuda::hold(nullptr, seconds);
  stop.record();
  return cuda::elapsed(start, stop);
}

}  // namespace mm
