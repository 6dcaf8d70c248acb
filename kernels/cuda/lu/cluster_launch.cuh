// Thread-block cluster launches for the LU leaves: the launch configuration, the kernels'
// cluster attributes, whether a cluster size schedules at all, and the dispatch on a width.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/pdl.cuh"

namespace mm::cuda::lu::detail {

// One cluster of BLOCKS blocks of THREADS threads with SMEM bytes of dynamic shared memory on
// ST; ATTR holds the cluster dimension the configuration points to (ATTR + 1 is left for
// with_pdl).
inline cudaLaunchConfig_t cluster_config(int blocks, int threads, std::size_t smem, cudaStream_t st,
                                         cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = static_cast<unsigned>(blocks);
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// F(std::integral_constant<int, W>{}) for a leaf WIDTH's W: 32, 16 or 8, and 4 where NARROWEST
// is 4 (the register leaf's tallest panels).
template <int Narrowest = 8, class F>
void with_width(int width, F&& f) {
  constexpr int kNarrow = Narrowest <= 4 ? 4 : 8;  // no W = 4 instantiated unless asked for
  if (width == 32)
    f(std::integral_constant<int, 32>{});
  else if (width == 16)
    f(std::integral_constant<int, 16>{});
  else if (width == kNarrow)
    f(std::integral_constant<int, kNarrow>{});
  else
    f(std::integral_constant<int, 8>{});
}

// KERNEL's launch limits for clusters: SMEM bytes of dynamic shared memory, non-portable
// cluster sizes (16 blocks on sm_90).
template <class K>
void allow_clusters(K* kernel, std::size_t smem) {
  MM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem)));
  MM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

// Whether this device can run a cluster of BLOCKS blocks of KERNEL (THREADS threads and SMEM
// bytes each) at all.
template <class K>
bool cluster_schedules(K* kernel, int blocks, int threads, std::size_t smem) {
  cudaLaunchAttribute attr{};
  const cudaLaunchConfig_t cfg = cluster_config(blocks, threads, smem, nullptr, &attr);
  int clusters = 0;
  const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
  if (e == cudaErrorInvalidValue || e == cudaErrorInvalidClusterSize) {
    (void)cudaGetLastError();  // an unschedulable size is an answer, not a failure
    return false;
  }
  MM_CUDA(e);
  return clusters > 0;
}

}  // namespace mm::cuda::lu::detail
