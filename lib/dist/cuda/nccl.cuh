// NCCL for GPU ranks (--comm nccl), loaded at run time (dlopen libnccl.so.2): the tools start
// on machines without it, and only --comm nccl then fails, saying why (exit 4).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "dist/comm.hpp"

namespace mm::dist::gpu {

class Nccl {
 public:
  // Loads the library; DeviceError when the build has no NCCL or the library cannot be loaded.
  Nccl();
  ~Nccl();  // the communicator destroyed (the library stays loaded: NCCL keeps threads)
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  // The bytes of ncclUniqueId (0 without NCCL).
  static std::size_t id_bytes();
  void unique_id(void* id) const;  // ncclGetUniqueId (rank 0's, broadcast by MPI)
  // ncclCommInitRank over every rank (collective among the ranks' NCCL).
  void init(const void* id, int nranks, int rank);

  void group_start() const;
  void group_end() const;
  // COUNT values of S (complex: as pairs of reals, COUNT counting reals).
  void send(const void* buf, std::size_t count, Scalar s, int peer, cudaStream_t stream) const;
  void recv(void* buf, std::size_t count, Scalar s, int peer, cudaStream_t stream) const;
  void allreduce_sum(void* buf, std::size_t count, Scalar s, cudaStream_t stream) const;

 private:
  struct Api;
  static const Api* load();   // the library's functions, looked up once a process
  const Api* api_ = nullptr;  // the loaded library's functions (process-wide, never freed)
  void* comm_ = nullptr;      // ncclComm_t
};

}  // namespace mm::dist::gpu
