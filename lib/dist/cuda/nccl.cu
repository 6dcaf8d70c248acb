// NCCL loaded at run time: its calls through a table of the library's functions.
#include "dist/cuda/nccl.cuh"

#include <string>
#include <type_traits>

#include "mm/error.hpp"
#include "mm/runtime_library.hpp"

#ifdef MM_HAVE_NCCL
#include <nccl.h>
#endif

namespace mm::dist::gpu {

#ifdef MM_HAVE_NCCL

struct Nccl::Api {
  ncclResult_t (*get_unique_id)(ncclUniqueId*);
  ncclResult_t (*comm_init_rank)(ncclComm_t*, int, ncclUniqueId, int);
  ncclResult_t (*comm_destroy)(ncclComm_t);
  ncclResult_t (*send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                             cudaStream_t);
  ncclResult_t (*group_start)();
  ncclResult_t (*group_end)();
  const char* (*error_string)(ncclResult_t);
};

// DeviceError naming what failed to load (mm::RuntimeLibrary).
const Nccl::Api* Nccl::load() {
  static const Nccl::Api api = [] {
    static const RuntimeLibrary lib("libnccl.so.2", "", "NCCL",
                                    "--comm nccl needs libnccl.so.2 on the library path, or use "
                                    "--comm mpi");
    Nccl::Api a;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(lib.symbol(name));
    };
    sym(a.get_unique_id, "ncclGetUniqueId");
    sym(a.comm_init_rank, "ncclCommInitRank");
    sym(a.comm_destroy, "ncclCommDestroy");
    sym(a.send, "ncclSend");
    sym(a.recv, "ncclRecv");
    sym(a.all_reduce, "ncclAllReduce");
    sym(a.group_start, "ncclGroupStart");
    sym(a.group_end, "ncclGroupEnd");
    sym(a.error_string, "ncclGetErrorString");
    return a;
  }();
  return &api;
}

namespace {

ncclDataType_t nccl_type(Scalar s) {
  switch (s) {
    case Scalar::i32:
      return ncclInt32;
    case Scalar::i64:
      return ncclInt64;
    case Scalar::u64:
      return ncclUint64;
    case Scalar::f32:
      return ncclFloat32;
    case Scalar::f64:
      return ncclFloat64;
  }
  return ncclFloat64;
}

}  // namespace

#define MM_NCCL(call, name)                                                         \
  do {                                                                              \
    const ncclResult_t rc_ = (call);                                                \
    if (rc_ != ncclSuccess)                                                         \
      throw DeviceError(std::string(name) + " failed: " + api_->error_string(rc_)); \
  } while (0)

Nccl::Nccl() : api_(load()) {}

Nccl::~Nccl() {
  if (comm_) api_->comm_destroy(static_cast<ncclComm_t>(comm_));
}

std::size_t Nccl::id_bytes() {
  return sizeof(ncclUniqueId);
}

void Nccl::unique_id(void* id) const {
  MM_NCCL(api_->get_unique_id(static_cast<ncclUniqueId*>(id)), "ncclGetUniqueId");
}

void Nccl::init(const void* id, int nranks, int rank) {
  ncclComm_t c = nullptr;
  MM_NCCL(api_->comm_init_rank(&c, nranks, *static_cast<const ncclUniqueId*>(id), rank),
          "ncclCommInitRank");
  comm_ = c;
}

void Nccl::group_start() const {
  MM_NCCL(api_->group_start(), "ncclGroupStart");
}
void Nccl::group_end() const {
  MM_NCCL(api_->group_end(), "ncclGroupEnd");
}

void Nccl::send(const void* buf, std::size_t count, Scalar s, int peer, cudaStream_t stream) const {
  MM_NCCL(api_->send(buf, count, nccl_type(s), peer, static_cast<ncclComm_t>(comm_), stream),
          "ncclSend");
}

void Nccl::recv(void* buf, std::size_t count, Scalar s, int peer, cudaStream_t stream) const {
  MM_NCCL(api_->recv(buf, count, nccl_type(s), peer, static_cast<ncclComm_t>(comm_), stream),
          "ncclRecv");
}

void Nccl::allreduce_sum(void* buf, std::size_t count, Scalar s, cudaStream_t stream) const {
  MM_NCCL(api_->all_reduce(buf, buf, count, nccl_type(s), ncclSum, static_cast<ncclComm_t>(comm_),
                           stream),
          "ncclAllReduce");
}

#else  // built without NCCL's header

struct Nccl::Api {};

const Nccl::Api* Nccl::load() {
  return nullptr;
}

Nccl::Nccl() {
  throw DeviceError(
      "--comm nccl: this build has no NCCL (nccl.h was not found when it was configured); "
      "use --comm mpi");
}
Nccl::~Nccl() = default;
std::size_t Nccl::id_bytes() {
  return 0;
}
void Nccl::unique_id(void*) const {}
void Nccl::init(const void*, int, int) {}
void Nccl::group_start() const {}
void Nccl::group_end() const {}
void Nccl::send(const void*, std::size_t, Scalar, int, cudaStream_t) const {}
void Nccl::recv(void*, std::size_t, Scalar, int, cudaStream_t) const {}
void Nccl::allreduce_sum(void*, std::size_t, Scalar, cudaStream_t) const {}

#endif

}  // namespace mm::dist::gpu
