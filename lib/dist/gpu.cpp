// --comm, and GPU ranks in a build without the CUDA backend (lib/dist/cuda/ has them otherwise).
#include "dist/gpu.hpp"

#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::dist {

CommKind parse_comm(const std::string& name) {
  if (name == "mpi") return CommKind::mpi;
  if (name == "nccl") return CommKind::nccl;
  throw UsageError("--comm must be mpi or nccl, not '" + name + "'");
}

#ifndef MM_HAVE_CUDA

bool built_with_nccl() {
  return false;
}

std::shared_ptr<GpuRanks> open_gpu_ranks(const Comm&, CommKind) {
  throw DeviceError("--device cuda: built without CUDA (MM_WITH_CUDA=OFF or no nvcc)");
}

// Never reached (no GpuRanks exists without CUDA); here so that callers need no #ifdef.
template <class I, class T>
std::unique_ptr<GpuSpmv<I, T>> make_gpu_spmv(const GpuRanks&, const DistCsr<I, T>&, GpuKernel) {
  throw DeviceError("GPU ranks: built without CUDA");
}
template <class T>
std::unique_ptr<GpuVectorOps<T>> make_gpu_vector_ops(const GpuRanks&, std::int64_t,
                                                     const std::vector<T>&) {
  throw DeviceError("GPU ranks: built without CUDA");
}

#define MM_GPU_NONE(I, T)                                                      \
  template std::unique_ptr<GpuSpmv<I, T>> make_gpu_spmv<I, T>(const GpuRanks&, \
                                                              const DistCsr<I, T>&, GpuKernel);
MM_FOR_INDEX_VALUE_TYPES(MM_GPU_NONE)
#define MM_GPU_NONE_VECTORS(T)                                                                    \
  template std::unique_ptr<GpuVectorOps<T>> make_gpu_vector_ops<T>(const GpuRanks&, std::int64_t, \
                                                                   const std::vector<T>&);
MM_FOR_VALUE_TYPES(MM_GPU_NONE_VECTORS)

#endif

}  // namespace mm::dist
