// GPU ranks: each rank's GPU, the transport between the ranks' device memory, and the device
// side of the distributed operations (DistSpmv, DistKrylovOps). No CUDA type appears here:
// lib/dist/cuda/ implements it in a build with the CUDA backend (lib/dist/nocuda/ otherwise).
//
// Transports: "mpi-cuda-aware" (MPI moves device memory itself, when the library says so),
// "mpi-host-staged" (packed on the GPU, copied through pinned host buffers, sent by MPI) and
// "nccl" (--comm nccl: ncclSend/ncclRecv in a group, ncclAllReduce; a GPU a rank).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "solve.hpp"

namespace mm::dist {

// --comm: how GPU ranks exchange device data.
enum class CommKind { mpi, nccl };
// "mpi" or "nccl"; UsageError for anything else.
CommKind parse_comm(const std::string& name);

// Whether this build has NCCL's header (then --comm nccl loads libnccl.so.2 at run time, so
// that the tools still start on a machine without it).
bool built_with_nccl();

// This rank's GPU and the ranks' transport. Made once a run (collective), shared by the
// operations of the run; the GPU's work goes to one stream in order (compute), the halo's to a
// second (exchange).
class GpuRanks {
 public:
  virtual ~GpuRanks() = default;
  virtual int device() const = 0;                      // the CUDA device index of this rank
  virtual const std::string& device_name() const = 0;  // its model
  virtual std::string transport() const = 0;           // as the record names it (above)
  // The -v line of this rank: its GPU, its node rank, the ranks sharing the GPU.
  virtual std::string describe() const = 0;
  // Waits for this rank's queued GPU work.
  virtual void synchronize() const = 0;
  // One peer of an exchange: COUNT values from SEND to rank PEER, and from it into RECV.
  struct PeerMessages {
    int peer = -1;
    const void* send = nullptr;
    void* recv = nullptr;
  };
  // --comm nccl only (DeviceError otherwise): queues one group of NCCL messages on STREAM (a
  // cudaStream_t of this rank's GPU): for each of PEERS, COUNT values of S each way (device
  // memory).
  virtual void nccl_exchange(void* stream, Scalar s, std::size_t count,
                             std::span<const PeerMessages> peers) const = 0;
};

// Collective: binds this rank to GPU (node rank modulo the GPUs it sees: ranks may share one;
// cudaSetDevice before any other CUDA work) and sets up the transport KIND. Errors agreed on
// every rank: no GPU (exit 4); NCCL with two ranks on one GPU, or without NCCL (exit 4).
std::shared_ptr<GpuRanks> open_gpu_ranks(const Comm& comm, CommKind kind);

// The hand-written CUDA SpMV kernels a GPU rank's blocks run (kernels/cuda/spmv_csr.cu).
enum class GpuKernel { adaptive, vector, scalar };

// The device side of DistSpmv: the rank's blocks on its GPU, the halo packed there, exchanged
// by the transport while the diagonal block's product runs, then the off-diagonal block's.
template <class I, class T>
class GpuSpmv {
 public:
  virtual ~GpuSpmv() = default;
  // As DistSpmv::apply, every pointer a device pointer; queued on the compute stream (the
  // host waits only for MPI's messages).
  virtual void apply(const T* x_local, T* y, T alpha, T beta, const T* y0) = 0;
  // Seconds the compute stream waited for the halo after the diagonal block (the exchange not
  // hidden): of the last apply, and summed over every apply so far (both wait for the GPU).
  virtual double exchange_seconds() = 0;
  virtual double exchange_total() = 0;
};
template <class I, class T>
std::unique_ptr<GpuSpmv<I, T>> make_gpu_spmv(const GpuRanks& gpu, const DistCsr<I, T>& a,
                                             GpuKernel kernel);

// The device side of DistKrylovOps: vectors in device memory, local vector kernels, dot
// products summed on the GPU and reduced across the ranks in one allreduce of K values.
template <class T>
class GpuVectorOps {
 public:
  virtual ~GpuVectorOps() = default;
  virtual std::unique_ptr<KrylovVector<T>> vector(std::int64_t n) const = 0;
  // OUT (host) [i] = sum over the ranks of x[i]'y[i] for i < K: one reduction.
  virtual void dots(int k, const T* const* x, const T* const* y, T* out) = 0;
  virtual void axpby(T a, const T* x, T b, T* y) = 0;
  virtual void precond(const T* r, T* z) = 0;
  // Seconds of the last dots() in the cross-rank reduction (waits for slower ranks included).
  virtual double allreduce_seconds() const = 0;
};
// N: this rank's rows; INV: Jacobi's inverse diagonal of those rows, or empty (none).
template <class T>
std::unique_ptr<GpuVectorOps<T>> make_gpu_vector_ops(const GpuRanks& gpu, std::int64_t n,
                                                     const std::vector<T>& inv);

}  // namespace mm::dist
