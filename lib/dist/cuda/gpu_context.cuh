// The GPU ranks' context inside lib/dist/cuda/: this rank's device, its two streams and the
// transport (NCCL loaded at run time, MPI through Comm).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "dist/comm.hpp"
#include "dist/cuda/nccl.cuh"
#include "dist/gpu.hpp"

namespace mm::dist::gpu {

enum class Transport { cuda_aware, host_staged, nccl };

class Context final : public GpuRanks {
 public:
  Context(const Comm& comm, Comm::NodeRank node, CommKind kind);
  ~Context() override;

  int device() const override { return device_; }
  const std::string& device_name() const override { return name_; }
  std::string transport() const override;
  std::string describe() const override;
  void synchronize() const override { MM_CUDA(cudaStreamSynchronize(compute_.get())); }
  void nccl_exchange(void* stream, Scalar s, std::size_t count,
                     std::span<const PeerMessages> peers) const override;

  Transport kind() const { return kind_; }
  cudaStream_t compute() const { return compute_.get(); }
  cudaStream_t exchange() const { return exchange_.get(); }
  const Comm& comm() const { return comm_; }
  const cudaUUID_t& uuid() const { return uuid_; }
  int multiprocessors() const { return sms_; }

  // NCCL (kind() == nccl, after start_nccl): the ranks' communicator.
  Nccl& nccl() const { return *nccl_; }
  void load_nccl();                        // DeviceError without NCCL
  void start_nccl(const void* unique_id);  // ncclCommInitRank: collective over the ranks

 private:
  Comm comm_;
  Comm::NodeRank node_;
  int count_ = 0;  // the GPUs this rank sees
  int device_;     // bound (cudaSetDevice) before the streams below are made on it
  int sms_ = 0;
  std::string name_;
  cudaUUID_t uuid_{};
  Transport kind_;
  // Blocking with respect to the legacy default stream (cudaStreamDefault), so that the plain
  // cudaMemcpy of cuda::Buffer orders itself with the queued work.
  cuda::Stream compute_, exchange_;
  std::unique_ptr<Nccl> nccl_;
};

// The context behind a GpuRanks (every GpuRanks is one).
inline const Context& context(const GpuRanks& g) {
  return static_cast<const Context&>(g);
}

}  // namespace mm::dist::gpu
