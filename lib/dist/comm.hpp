// The ranks of a distributed run: the MPI session, the communicator and its typed collectives.
// No MPI type appears here: without MPI (or run without mpirun) the same calls work on one rank.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace mm::dist {

enum class Op { sum, max, min };

// The element types a reduction understands; complex values reduce as pairs of reals (sum only).
enum class Scalar { i32, i64, u64, f32, f64 };

template <class T>
struct scalar_of;
template <>
struct scalar_of<std::int32_t> {
  static constexpr Scalar value = Scalar::i32;
  static constexpr int width = 1;
};
template <>
struct scalar_of<std::int64_t> {
  static constexpr Scalar value = Scalar::i64;
  static constexpr int width = 1;
};
template <>
struct scalar_of<std::uint64_t> {
  static constexpr Scalar value = Scalar::u64;
  static constexpr int width = 1;
};
template <>
struct scalar_of<float> {
  static constexpr Scalar value = Scalar::f32;
  static constexpr int width = 1;
};
template <>
struct scalar_of<double> {
  static constexpr Scalar value = Scalar::f64;
  static constexpr int width = 1;
};
template <class R>
struct scalar_of<std::complex<R>> {
  static constexpr Scalar value = scalar_of<R>::value;
  static constexpr int width = 2;
};

// Point-to-point operations in flight; wait() completes them all (the destructor waits too,
// so that a buffer is never freed under a transfer).
class Requests {
 public:
  Requests();
  ~Requests();
  Requests(Requests&&) noexcept;
  Requests& operator=(Requests&&) noexcept;
  void wait();
  bool empty() const;

 private:
  friend class Comm;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A communicator: this rank among size(). Cheap to copy (shared handle). The one-rank
// communicator (no MPI, or not launched by mpirun) answers every collective with a copy.
class Comm {
 public:
  Comm();  // one rank, no MPI
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  bool mpi() const;  // backed by an MPI communicator

  void barrier() const;
  // In place over all ranks: DATA[0..N) reduced by OP, the result on every rank (complex
  // values: Op::sum only).
  template <class T>
  void allreduce(T* data, std::size_t n, Op op) const {
    allreduce_raw(data, n * scalar_of<T>::width, scalar_of<T>::value, op);
  }
  template <class T>
  T allreduce(T v, Op op) const {
    allreduce(&v, 1, op);
    return v;
  }
  // Sum of V over the ranks before this one (0 on rank 0).
  std::int64_t exscan_sum(std::int64_t v) const;

  // ROOT's bytes to every rank.
  void bcast_bytes(void* data, std::size_t bytes, int root) const;
  template <class T>
  void bcast(T* data, std::size_t n, int root) const {
    static_assert(std::is_trivially_copyable_v<T>);
    bcast_bytes(data, n * sizeof(T), root);
  }
  template <class T>
  T bcast(T v, int root) const {
    bcast(&v, 1, root);
    return v;
  }
  std::string bcast(std::string s, int root) const;

  // One value from every rank, in rank order, on every rank.
  template <class T>
  std::vector<T> allgather(const T& v) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(static_cast<std::size_t>(size_));
    allgather_raw(&v, out.data(), sizeof(T));
    return out;
  }
  // Element r of SEND to rank r; element r of the result from rank r.
  template <class T>
  std::vector<T> alltoall(const std::vector<T>& send) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(static_cast<std::size_t>(size_));
    alltoall_raw(send.data(), out.data(), sizeof(T));
    return out;
  }
  // SEND holds COUNTS[r] elements for rank r, rank after rank; returns what every rank sent
  // here, rank after rank (RECV_COUNTS, when given, gets the counts). Sizes past 2^31 are fine.
  template <class T>
  std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<std::int64_t>& counts,
                           std::vector<std::int64_t>* recv_counts = nullptr) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<std::int64_t> rc = alltoall(counts);
    std::int64_t total = 0;
    for (auto c : rc) total += c;
    std::vector<T> out(static_cast<std::size_t>(total));
    alltoallv_raw(send.data(), counts.data(), out.data(), rc.data(), sizeof(T));
    if (recv_counts) *recv_counts = std::move(rc);
    return out;
  }
  // Everyone's N elements, concatenated in rank order, on ROOT (empty elsewhere).
  template <class T>
  std::vector<T> gatherv(const T* data, std::size_t n, int root) const {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto counts = allgather(static_cast<std::int64_t>(n));
    std::int64_t total = 0;
    for (auto c : counts) total += c;
    std::vector<T> out(rank_ == root ? static_cast<std::size_t>(total) : 0);
    gatherv_raw(data, out.data(), counts.data(), sizeof(T), root);
    return out;
  }
  // ROOT's DATA, COUNTS[r] elements for rank r in rank order; this rank's part.
  template <class T>
  std::vector<T> scatterv(const T* data, const std::vector<std::int64_t>& counts, int root) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(static_cast<std::size_t>(counts[static_cast<std::size_t>(rank_)]));
    scatterv_raw(data, counts.data(), out.data(), sizeof(T), root);
    return out;
  }

  // Non-blocking point-to-point, added to REQS (complete them with reqs.wait()).
  template <class T>
  void isend(Requests& reqs, const T* data, std::size_t n, int peer, int tag) const {
    isend_raw(reqs, data, n * sizeof(T), peer, tag);
  }
  template <class T>
  void irecv(Requests& reqs, T* data, std::size_t n, int peer, int tag) const {
    irecv_raw(reqs, data, n * sizeof(T), peer, tag);
  }

  // For an error that escaped every agreement: reports CODE and waits up to TIMEOUT seconds
  // for every other rank to report one too (on a communicator of its own, so that ranks busy
  // elsewhere are no obstacle). True, with the lowest rank and its code, when all did.
  bool all_failed(int code, double timeout_s, int& lowest, int& lowest_code) const;

  // Ends the whole job at once with CODE (every rank): the last resort when the ranks cannot
  // agree on an error. Does not return.
  [[noreturn]] void abort(int code) const;

  // This rank among the ranks of its node (those that share its memory: MPI_COMM_TYPE_SHARED),
  // e.g. to pick a GPU of the node. Collective. {0, 1} on the one-rank communicator.
  struct NodeRank {
    int rank = 0, size = 1;
  };
  NodeRank node_rank() const;

  // Raw forms (bytes; counts in elements of ELEM bytes).
  void allreduce_raw(void* data, std::size_t n, Scalar s, Op op) const;
  void allgather_raw(const void* send, void* recv, std::size_t bytes) const;
  void alltoall_raw(const void* send, void* recv, std::size_t bytes) const;
  void alltoallv_raw(const void* send, const std::int64_t* send_counts, void* recv,
                     const std::int64_t* recv_counts, std::size_t elem) const;
  void gatherv_raw(const void* send, void* recv, const std::int64_t* counts, std::size_t elem,
                   int root) const;
  void scatterv_raw(const void* send, const std::int64_t* counts, void* recv, std::size_t elem,
                    int root) const;
  void isend_raw(Requests& reqs, const void* data, std::size_t bytes, int peer, int tag) const;
  void irecv_raw(Requests& reqs, void* data, std::size_t bytes, int peer, int tag) const;

  struct Impl;  // the MPI communicator (comm.cpp)

 private:
  explicit Comm(std::shared_ptr<Impl> impl);
  friend class Session;
  friend int threads_per_rank();
  std::shared_ptr<Impl> impl_;
  int rank_ = 0, size_ = 1;
};

// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun with PMIx):
// only then is MPI initialised. Read from the launcher's environment, before MPI_Init.
bool launched_by_mpi();

// MPI for the life of the process's main work: MPI_Init_thread when launched by mpirun (a
// duplicate of MPI_COMM_WORLD becomes world()), MPI_Finalize at the end; otherwise nothing,
// and world() is the one-rank communicator. One Session a process.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  bool active() const { return active_; }  // MPI initialised (launched by mpirun)

 private:
  bool active_ = false;
};

// The job's communicator (one rank outside a Session or without mpirun).
const Comm& world();

// True when this process is one of the ranks of an MPI job (a Session is active), even of a
// job of one rank: a tool then takes its distributed path.
bool distributed();

// The OpenMP threads a rank should run by default: the cores it may run on (its affinity
// mask), divided among the ranks of its node whose masks overlap it (one core each when
// mpirun binds ranks to cores; a fair share of the node when it does not). 1 without MPI.
int threads_per_rank();

// Whether this build has MPI at all.
bool built_with_mpi();

// Whether the MPI library the job runs with moves device (CUDA) memory itself (Open MPI's
// MPIX_Query_cuda_support, looked up at run time: the library may not be the one built
// against); false without MPI, for another MPI, or when the library says no.
bool cuda_aware_mpi();

}  // namespace mm::dist
