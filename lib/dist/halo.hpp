// The halo exchange over MPI point-to-point on host buffers: start() packs and posts the
// transfers, finish() waits; the work between the two overlaps the communication.
#pragma once

#include <vector>

#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

// The tag of halo messages: distinct from the library's collectives built on point-to-point.
inline constexpr int kTagHalo = 200;

template <class T>
class HaloExchange {
 public:
  HaloExchange(const Comm& comm, const HaloPlan& plan)
      : comm_(comm), plan_(plan), send_(static_cast<std::size_t>(plan.send_size())) {}

  // Posts the receives into HALO (plan.halo_size() entries) and sends this rank's entries of
  // X_LOCAL that the neighbours need. Both buffers must live until finish().
  void start(const T* x_local, T* halo) {
    Stopwatch w;
    for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k)
      comm_.irecv(reqs_, halo + plan_.recv_offset[k],
                  static_cast<std::size_t>(plan_.recv_offset[k + 1] - plan_.recv_offset[k]),
                  plan_.recv_ranks[k], kTagHalo);
    for (std::size_t j = 0; j < send_.size(); ++j) send_[j] = x_local[plan_.send_idx[j]];
    for (std::size_t k = 0; k < plan_.send_ranks.size(); ++k)
      comm_.isend(reqs_, send_.data() + plan_.send_offset[k],
                  static_cast<std::size_t>(plan_.send_offset[k + 1] - plan_.send_offset[k]),
                  plan_.send_ranks[k], kTagHalo);
    seconds_ = w.seconds();
  }
  void finish() {
    Stopwatch w;
    reqs_.wait();
    seconds_ += w.seconds();
  }
  // Time of the last exchange spent in start() and finish() (packing, posting, waiting): what
  // the overlap did not hide.
  double seconds() const { return seconds_; }

 private:
  Comm comm_;
  const HaloPlan& plan_;
  std::vector<T> send_;
  Requests reqs_;
  double seconds_ = 0;
};

}  // namespace mm::dist
