// What a distributed matrix tool reports: a rank's -v line (its rows, nonzeros, halo,
// neighbours and how its share of the file was read; print_ranked prints them in rank order),
// and per-run times as the job's.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "dist/dist_csr.hpp"
#include "dist/read.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

inline std::string join_ranks(const std::vector<int>& v) {
  std::string s;
  for (int r : v) {
    if (!s.empty()) s += ' ';
    s += std::to_string(r);
  }
  return s.empty() ? "none" : s;
}

template <class I, class T>
std::string describe_rank(const std::string& tool, const DistCsr<I, T>& a, const DistRead& read) {
  std::ostringstream s;
  s << tool << ": rank " << a.rank << "/" << a.row_part.parts() << ": rows " << a.row_begin()
    << ".." << a.row_begin() + a.local_rows() << " (" << a.local_rows() << "), " << a.local_nnz()
    << " nonzeros (" << a.diag.nnz() << " local, " << a.offd.nnz() << " remote), halo "
    << a.plan.halo_size() << " from " << a.plan.recv_ranks.size() << " ranks, sends "
    << a.plan.send_size() << " to " << a.plan.send_ranks.size() << ", neighbours "
    << join_ranks(a.plan.neighbours()) << "; " << read.how << ", " << read.seconds << " s";
  return s.str();
}

// Per-run times of the job: each run the slowest rank's (collective).
inline PhaseStats slowest(const Comm& comm, std::vector<double> t) {
  comm.allreduce(t.data(), t.size(), Op::max);
  return summarize(std::move(t));
}

}  // namespace mm::dist
