// GPU ranks: a rank's GPU (node rank modulo the GPUs it sees), its streams and the transport.
#include <cstring>
#include <sstream>
#include <vector>

#include "dist/agree.hpp"
#include "dist/cuda/gpu_context.cuh"
#include "mm/error.hpp"

namespace mm::dist {

namespace gpu {

namespace {

// Binds this process to its GPU before any other CUDA work: COUNT gets the GPUs it sees.
int bind_device(Comm::NodeRank node, int& count) {
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    const std::string why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found";
    cudaGetLastError();
    throw DeviceError("--device cuda: no usable GPU (" + why + ")");
  }
  const int device = node.rank % count;
  MM_CUDA(cudaSetDevice(device));
  return device;
}

}  // namespace

Context::Context(const Comm& comm, Comm::NodeRank node, CommKind kind)
    : comm_(comm),
      node_(node),
      device_(bind_device(node, count_)),
      kind_(kind == CommKind::nccl ? Transport::nccl
            : cuda_aware_mpi()     ? Transport::cuda_aware
                                   : Transport::host_staged) {
  cudaDeviceProp p{};
  MM_CUDA(cudaGetDeviceProperties(&p, device_));
  name_ = p.name;
  uuid_ = p.uuid;
  sms_ = p.multiProcessorCount;
}

Context::~Context() = default;

std::string Context::transport() const {
  switch (kind_) {
    case Transport::nccl:
      return "nccl";
    case Transport::cuda_aware:
      return "mpi-cuda-aware";
    case Transport::host_staged:
      break;
  }
  return "mpi-host-staged";
}

std::string Context::describe() const {
  int sharing = 0;  // the ranks of this node on this GPU, this one included
  for (int r = 0; r < node_.size; ++r) sharing += r % count_ == device_;
  std::ostringstream s;
  s << "rank " << comm_.rank() << "/" << comm_.size() << ": GPU " << device_ << " of " << count_
    << " (" << name_ << "), node rank " << node_.rank << " of " << node_.size;
  if (sharing > 1)
    s << ", sharing the GPU with " << sharing - 1 << (sharing > 2 ? " other ranks" : " other rank");
  s << "; " << transport();
  return s.str();
}

void Context::nccl_exchange(void* stream, Scalar s, std::size_t count,
                            std::span<const PeerMessages> peers) const {
  if (kind_ != Transport::nccl || !nccl_)
    throw DeviceError("GPU ranks: an NCCL exchange without --comm nccl");
  const auto st = static_cast<cudaStream_t>(stream);
  nccl_->group_start();
  for (const PeerMessages& m : peers) {
    nccl_->recv(m.recv, count, s, m.peer, st);
    nccl_->send(m.send, count, s, m.peer, st);
  }
  nccl_->group_end();
}

void Context::load_nccl() {
  nccl_ = std::make_unique<Nccl>();
}

void Context::start_nccl(const void* unique_id) {
  nccl_->init(unique_id, comm_.size(), comm_.rank());
}

}  // namespace gpu

bool built_with_nccl() {
#ifdef MM_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

namespace {

// What the ranks learn of each other's GPU: NCCL needs a GPU a rank.
struct GpuId {
  cudaUUID_t uuid;
  int device;
};

// Refuses (DeviceError, exit 4) when two ranks share a GPU: NCCL cannot run them.
void refuse_shared_gpus(const std::vector<GpuId>& ids) {
  for (std::size_t a = 0; a < ids.size(); ++a)
    for (std::size_t b = a + 1; b < ids.size(); ++b)
      if (std::memcmp(&ids[a].uuid, &ids[b].uuid, sizeof(cudaUUID_t)) == 0)
        throw DeviceError("--comm nccl: ranks " + std::to_string(a) + " and " + std::to_string(b) +
                          " share one GPU (GPU " + std::to_string(ids[a].device) +
                          " of their node), and NCCL needs a GPU of its own for every rank; run "
                          "no more ranks a node than it has GPUs, or use --comm mpi");
}

}  // namespace

std::shared_ptr<GpuRanks> open_gpu_ranks(const Comm& comm, CommKind kind) {
  const Comm::NodeRank node = comm.node_rank();
  auto ctx = agree(comm, [&] { return std::make_shared<gpu::Context>(comm, node, kind); });
  if (kind == CommKind::nccl) {
    const std::vector<GpuId> ids = comm.allgather(GpuId{ctx->uuid(), ctx->device()});
    agree(comm, [&] { refuse_shared_gpus(ids); });
    std::vector<char> id;
    agree(comm, [&] {
      ctx->load_nccl();
      id.resize(gpu::Nccl::id_bytes());
      if (comm.root()) ctx->nccl().unique_id(id.data());
    });
    comm.bcast(id.data(), id.size(), 0);
    agree(comm, [&] { ctx->start_nccl(id.data()); });
  }
  return ctx;
}

}  // namespace mm::dist
