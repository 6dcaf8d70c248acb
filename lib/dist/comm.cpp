// The communicator over MPI (MM_HAVE_MPI) or on one rank: collectives, point-to-point, session.
#include "dist/comm.hpp"

#include <sched.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <stdexcept>

#include "mm/error.hpp"

#ifdef MM_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>
// Open MPI's extensions: MPIX_CUDA_AWARE_SUPPORT says whether the headers' library was built
// with CUDA; MPIX_Query_cuda_support() whether the running one moves device memory.
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace mm::dist {

namespace {

// Messages are cut into pieces of at most this many bytes: MPI counts are int.
constexpr std::size_t kPiece = std::size_t{1} << 30;
// Tags of the library's own exchanges (a halo exchange uses its own, see halo.hpp).
constexpr int kTagAlltoallv = 101, kTagGatherv = 102, kTagScatterv = 103;

Comm g_world;
bool g_session = false;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// The root's side of gatherv and scatterv: F(p, offset, bytes) for each rank P in order that
// has bytes (COUNTS[P] * ELEM), OFFSET where they lie in the root's buffer.
template <class F>
void each_block(int size, const std::int64_t* counts, std::size_t elem, F&& f) {
  std::size_t off = 0;
  for (int p = 0; p < size; ++p) {
    const std::size_t b = static_cast<std::size_t>(counts[p]) * elem;
    if (b) f(p, off, b);
    off += b;
  }
}

}  // namespace

bool launched_by_mpi() {
  // Open MPI's mpirun, any PMIx launcher (srun --mpi=pmix, prterun), PMI-1/2 (MPICH, srun).
  return env("OMPI_COMM_WORLD_SIZE") || env("PMIX_RANK") || env("PMI_RANK") || env("PMI_SIZE");
}

bool built_with_mpi() {
#ifdef MM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

const Comm& world() {
  return g_world;
}

bool distributed() {
  return g_session;
}

#ifdef MM_HAVE_MPI

struct Comm::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm errors = MPI_COMM_NULL;  // all_failed()'s own
};

struct Requests::Impl {
  std::vector<MPI_Request> reqs;
};

namespace {

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw DeviceError(std::string(call) +
                    " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

MPI_Datatype mpi_type(Scalar s) {
  switch (s) {
    case Scalar::i32:
      return MPI_INT32_T;
    case Scalar::i64:
      return MPI_INT64_T;
    case Scalar::u64:
      return MPI_UINT64_T;
    case Scalar::f32:
      return MPI_FLOAT;
    case Scalar::f64:
      return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(Op op) {
  return op == Op::sum ? MPI_SUM : op == Op::max ? MPI_MAX : MPI_MIN;
}

int int_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw DeviceError(std::string(what) + ": more than 2^31 elements in one call");
  return static_cast<int>(n);
}

}  // namespace

Comm::Comm() = default;
Comm::Comm(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {
  check(MPI_Comm_rank(impl_->comm, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(impl_->comm, &size_), "MPI_Comm_size");
}
bool Comm::mpi() const {
  return impl_ != nullptr;
}

void Comm::barrier() const {
  if (impl_) check(MPI_Barrier(impl_->comm), "MPI_Barrier");
}

void Comm::allreduce_raw(void* data, std::size_t n, Scalar s, Op op) const {
  if (!impl_ || n == 0) return;
  for (std::size_t done = 0; done < n; done += kPiece / 8) {
    const std::size_t k = std::min(n - done, kPiece / 8);
    const std::size_t width = s == Scalar::i32 || s == Scalar::f32 ? 4 : 8;
    check(MPI_Allreduce(MPI_IN_PLACE, static_cast<char*>(data) + done * width, static_cast<int>(k),
                        mpi_type(s), mpi_op(op), impl_->comm),
          "MPI_Allreduce");
  }
}

std::int64_t Comm::exscan_sum(std::int64_t v) const {
  if (!impl_) return 0;
  std::int64_t r = 0;
  check(MPI_Exscan(&v, &r, 1, MPI_INT64_T, MPI_SUM, impl_->comm), "MPI_Exscan");
  return rank_ == 0 ? 0 : r;  // rank 0's result is undefined in MPI
}

void Comm::bcast_bytes(void* data, std::size_t bytes, int root) const {
  if (!impl_) return;
  for (std::size_t done = 0; done < bytes; done += kPiece) {
    const std::size_t k = std::min(bytes - done, kPiece);
    check(MPI_Bcast(static_cast<char*>(data) + done, static_cast<int>(k), MPI_BYTE, root,
                    impl_->comm),
          "MPI_Bcast");
  }
}

void Comm::allgather_raw(const void* send, void* recv, std::size_t bytes) const {
  if (!impl_) {
    std::memcpy(recv, send, bytes);
    return;
  }
  const int n = int_count(bytes, "MPI_Allgather");
  check(MPI_Allgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, impl_->comm), "MPI_Allgather");
}

void Comm::alltoall_raw(const void* send, void* recv, std::size_t bytes) const {
  if (!impl_) {
    std::memcpy(recv, send, bytes);
    return;
  }
  const int n = int_count(bytes, "MPI_Alltoall");
  check(MPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, impl_->comm), "MPI_Alltoall");
}

// Point to point rather than MPI_Alltoallv: counts and displacements of any size, and only
// the pairs that exchange something post a message.
void Comm::alltoallv_raw(const void* send, const std::int64_t* send_counts, void* recv,
                         const std::int64_t* recv_counts, std::size_t elem) const {
  const auto* s = static_cast<const char*>(send);
  auto* r = static_cast<char*>(recv);
  Requests reqs;
  std::size_t soff = 0, roff = 0, self_s = 0, self_r = 0;
  for (int p = 0; p < size_; ++p) {
    const std::size_t sb = static_cast<std::size_t>(send_counts[p]) * elem;
    const std::size_t rb = static_cast<std::size_t>(recv_counts[p]) * elem;
    if (p == rank_) {
      self_s = soff;
      self_r = roff;
    } else {
      if (rb) irecv_raw(reqs, r + roff, rb, p, kTagAlltoallv);
      if (sb) isend_raw(reqs, s + soff, sb, p, kTagAlltoallv);
    }
    soff += sb;
    roff += rb;
  }
  const std::size_t own = static_cast<std::size_t>(send_counts[rank_]) * elem;
  if (own) std::memcpy(r + self_r, s + self_s, own);
  reqs.wait();
}

void Comm::gatherv_raw(const void* send, void* recv, const std::int64_t* counts, std::size_t elem,
                       int root) const {
  const std::size_t mine = static_cast<std::size_t>(counts[rank_]) * elem;
  Requests reqs;
  if (rank_ == root) {
    char* r = static_cast<char*>(recv);
    each_block(size_, counts, elem, [&](int p, std::size_t off, std::size_t b) {
      if (p == rank_)
        std::memcpy(r + off, send, b);
      else
        irecv_raw(reqs, r + off, b, p, kTagGatherv);
    });
  } else if (mine) {
    isend_raw(reqs, send, mine, root, kTagGatherv);
  }
  reqs.wait();
}

void Comm::scatterv_raw(const void* send, const std::int64_t* counts, void* recv, std::size_t elem,
                        int root) const {
  const std::size_t mine = static_cast<std::size_t>(counts[rank_]) * elem;
  Requests reqs;
  if (rank_ == root) {
    const char* s = static_cast<const char*>(send);
    each_block(size_, counts, elem, [&](int p, std::size_t off, std::size_t b) {
      if (p == rank_)
        std::memcpy(recv, s + off, b);
      else
        isend_raw(reqs, s + off, b, p, kTagScatterv);
    });
  } else if (mine) {
    irecv_raw(reqs, recv, mine, root, kTagScatterv);
  }
  reqs.wait();
}

void Comm::isend_raw(Requests& reqs, const void* data, std::size_t bytes, int peer, int tag) const {
  if (!impl_) throw std::logic_error("isend on a one-rank communicator");
  for (std::size_t done = 0; done < bytes || done == 0; done += kPiece) {
    const std::size_t k = std::min(bytes - done, kPiece);
    MPI_Request r;
    check(MPI_Isend(static_cast<const char*>(data) + done, static_cast<int>(k), MPI_BYTE, peer, tag,
                    impl_->comm, &r),
          "MPI_Isend");
    reqs.impl_->reqs.push_back(r);
    if (bytes == 0) break;
  }
}

void Comm::irecv_raw(Requests& reqs, void* data, std::size_t bytes, int peer, int tag) const {
  if (!impl_) throw std::logic_error("irecv on a one-rank communicator");
  for (std::size_t done = 0; done < bytes || done == 0; done += kPiece) {
    const std::size_t k = std::min(bytes - done, kPiece);
    MPI_Request r;
    check(MPI_Irecv(static_cast<char*>(data) + done, static_cast<int>(k), MPI_BYTE, peer, tag,
                    impl_->comm, &r),
          "MPI_Irecv");
    reqs.impl_->reqs.push_back(r);
    if (bytes == 0) break;
  }
}

bool Comm::all_failed(int code, double timeout_s, int& lowest, int& lowest_code) const {
  lowest = rank_;
  lowest_code = code;
  if (!impl_) return true;
  int in[2] = {rank_, code}, out[2] = {0, 0};  // MINLOC: the lowest rank and its code
  MPI_Request r;
  if (MPI_Iallreduce(in, out, 1, MPI_2INT, MPI_MINLOC, impl_->errors, &r) != MPI_SUCCESS)
    return false;
  const double t0 = MPI_Wtime();
  for (;;) {
    int done = 0;
    if (MPI_Test(&r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) break;
    if (MPI_Wtime() - t0 > timeout_s) return false;  // the job is aborted: r dies with it
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, nullptr);
  }
  lowest = out[0];
  lowest_code = out[1];
  return true;
}

void Comm::abort(int code) const {
  std::cerr.flush();
  MPI_Abort(impl_ ? impl_->comm : MPI_COMM_WORLD, code);
  std::_Exit(code);
}

Requests::Requests() : impl_(std::make_unique<Impl>()) {}
Requests::~Requests() {
  if (impl_ && !impl_->reqs.empty())
    MPI_Waitall(static_cast<int>(impl_->reqs.size()), impl_->reqs.data(), MPI_STATUSES_IGNORE);
}
Requests::Requests(Requests&&) noexcept = default;
Requests& Requests::operator=(Requests&&) noexcept = default;
bool Requests::empty() const {
  return impl_->reqs.empty();
}
void Requests::wait() {
  if (impl_->reqs.empty()) return;
  const int rc =
      MPI_Waitall(static_cast<int>(impl_->reqs.size()), impl_->reqs.data(), MPI_STATUSES_IGNORE);
  impl_->reqs.clear();
  check(rc, "MPI_Waitall");
}

Comm::NodeRank Comm::node_rank() const {
  NodeRank r;
  if (!impl_) return r;
  MPI_Comm node;
  check(MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  MPI_Comm_rank(node, &r.rank);
  MPI_Comm_size(node, &r.size);
  MPI_Comm_free(&node);
  return r;
}

bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // Looked up rather than called: a libmpi without the CUDA extension must still load the tools.
  using Query = int (*)();
  const auto query = reinterpret_cast<Query>(dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support"));
  return g_session && query && query() == 1;
#else
  return false;
#endif
}

int threads_per_rank() {
  if (!g_world.mpi()) return 1;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return 1;
  MPI_Comm node;
  check(MPI_Comm_split_type(g_world.impl_->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  int n = 1;
  MPI_Comm_size(node, &n);
  std::vector<cpu_set_t> all(static_cast<std::size_t>(n));
  const int rc =
      MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, node);
  MPI_Comm_free(&node);
  check(rc, "MPI_Allgather");
  int sharing = 0;
  for (const cpu_set_t& other : all) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &other);
    sharing += CPU_COUNT(&both) > 0;
  }
  return std::max(1, CPU_COUNT(&mine) / std::max(1, sharing));
}

Session::Session(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  int provided = 0;
  // Funneled: OpenMP threads compute, only the main thread calls MPI.
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  auto impl = std::make_shared<Comm::Impl>();
  check(MPI_Comm_dup(MPI_COMM_WORLD, &impl->comm), "MPI_Comm_dup");
  // Errors come back as return codes (an exception naming the call), not an abort.
  check(MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_dup(impl->comm, &impl->errors), "MPI_Comm_dup");
  g_world = Comm(std::move(impl));
  active_ = g_session = true;
}

Session::~Session() {
  if (!active_) return;
  MPI_Comm c = g_world.impl_->comm, e = g_world.impl_->errors;
  g_world = Comm();
  g_session = false;
  MPI_Comm_free(&e);
  MPI_Comm_free(&c);
  MPI_Finalize();
}

#else  // one rank, no MPI

struct Comm::Impl {};
struct Requests::Impl {};

Comm::Comm() = default;
Comm::Comm(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
bool Comm::mpi() const {
  return false;
}
void Comm::barrier() const {}
void Comm::allreduce_raw(void*, std::size_t, Scalar, Op) const {}
std::int64_t Comm::exscan_sum(std::int64_t) const {
  return 0;
}
void Comm::bcast_bytes(void*, std::size_t, int) const {}
void Comm::allgather_raw(const void* send, void* recv, std::size_t bytes) const {
  std::memcpy(recv, send, bytes);
}
void Comm::alltoall_raw(const void* send, void* recv, std::size_t bytes) const {
  std::memcpy(recv, send, bytes);
}
void Comm::alltoallv_raw(const void* send, const std::int64_t* send_counts, void* recv,
                         const std::int64_t*, std::size_t elem) const {
  if (send_counts[0]) std::memcpy(recv, send, static_cast<std::size_t>(send_counts[0]) * elem);
}
void Comm::gatherv_raw(const void* send, void* recv, const std::int64_t* counts, std::size_t elem,
                       int) const {
  if (counts[0]) std::memcpy(recv, send, static_cast<std::size_t>(counts[0]) * elem);
}
void Comm::scatterv_raw(const void* send, const std::int64_t* counts, void* recv, std::size_t elem,
                        int) const {
  if (counts[0]) std::memcpy(recv, send, static_cast<std::size_t>(counts[0]) * elem);
}
void Comm::isend_raw(Requests&, const void*, std::size_t, int, int) const {
  throw std::logic_error("isend on a one-rank communicator");
}
void Comm::irecv_raw(Requests&, void*, std::size_t, int, int) const {
  throw std::logic_error("irecv on a one-rank communicator");
}
bool Comm::all_failed(int code, double, int& lowest, int& lowest_code) const {
  lowest = 0;
  lowest_code = code;
  return true;
}
void Comm::abort(int code) const {
  std::cerr.flush();
  std::_Exit(code);
}

Requests::Requests() = default;
Requests::~Requests() = default;
Requests::Requests(Requests&&) noexcept = default;
Requests& Requests::operator=(Requests&&) noexcept = default;
bool Requests::empty() const {
  return true;
}
void Requests::wait() {}

Comm::NodeRank Comm::node_rank() const {
  return {};
}

bool cuda_aware_mpi() {
  return false;
}

int threads_per_rank() {
  return 1;
}

Session::Session(int&, char**&) {
  if (!launched_by_mpi()) return;
  const char* n = env("OMPI_COMM_WORLD_SIZE");
  if (!n) n = env("PMI_SIZE");
  if (n && std::atoi(n) > 1)
    throw DeviceError("started by mpirun as one of " + std::string(n) +
                      " ranks, but built without MPI (install libopenmpi-dev and rebuild)");
}
Session::~Session() = default;

#endif

std::string Comm::bcast(std::string s, int root) const {
  auto n = bcast(static_cast<std::uint64_t>(s.size()), root);
  s.resize(static_cast<std::size_t>(n));
  bcast_bytes(s.data(), s.size(), root);
  return s;
}

}  // namespace mm::dist
