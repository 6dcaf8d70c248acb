// GPU ranks: the node-local rank picks the GPU.
#include "dist/gpu_rank.hpp"

#include <string>

#include "device.hpp"
#include "mm/error.hpp"

#ifdef MM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace mm::dist {

int select_local_gpu(const Comm& comm) {
  const int local = comm.node_rank().rank;  // collective: before anything that may throw
  const GpuInfo gpus = cuda_devices();
  if (gpus.count == 0)
    throw DeviceError("--device cuda: no GPU for rank " + std::to_string(comm.rank()) + " (" +
                      gpus.reason + ")");
  const int gpu = local % gpus.count;
#ifdef MM_HAVE_CUDA
  const cudaError_t e = cudaSetDevice(gpu);
  if (e != cudaSuccess)
    throw DeviceError("cudaSetDevice(" + std::to_string(gpu) + ") for rank " +
                      std::to_string(comm.rank()) + ": " + cudaGetErrorString(e));
#endif
  return gpu;
}

}  // namespace mm::dist
