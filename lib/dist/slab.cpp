// The heated-room grid in slabs: the split, the plane exchange, the overlapped sweep.
#include "dist/slab.hpp"

#include <algorithm>
#include <cmath>

#include "dist/sweep_loop.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

SlabSplit slab_split(int dim, std::int64_t n, int ranks, int rank) {
  SlabSplit s;
  s.dim = dim;
  s.n = n;
  s.rank = rank;
  s.interior = uniform_partition(n - 2, ranks);
  s.k0 = 1 + s.interior.begin(rank);
  s.k1 = 1 + s.interior.end(rank);
  if (!s.empty()) {
    if (s.k0 - 1 >= 1) s.lower = s.interior.owner(s.k0 - 2);
    if (s.k1 <= n - 2) s.upper = s.interior.owner(s.k1 - 1);
  }
  const Partition out = s.output_rows();
  s.out0 = out.begin(rank) / s.rows_per_plane();
  s.out1 = out.end(rank) / s.rows_per_plane();
  return s;
}

Partition SlabSplit::output_rows() const {
  // Rank r writes from its first plane (rank 0: from the wall plane 0) to the next rank's
  // first plane; ranks after the last one holding planes start at N (write nothing), so that
  // the last one holding planes also writes the wall plane N - 1.
  Partition p;
  const int parts = interior.parts();
  p.start.assign(static_cast<std::size_t>(parts) + 1, 0);
  for (int r = 1; r <= parts; ++r) {
    const std::int64_t plane = r == parts || interior.begin(r) == n - 2 ? n : 1 + interior.begin(r);
    p.start[static_cast<std::size_t>(r)] = plane * rows_per_plane();
  }
  return p;
}

template <class T>
void SlabHalo<T>::start(T* u) {
  const std::size_t ps = static_cast<std::size_t>(s_.plane_size());
  T* top = u + static_cast<std::size_t>(s_.planes() + 1) * ps;  // plane k1
  start(u + ps, u, top - ps, top);                              // planes k0, k0 - 1, k1 - 1, k1
}

template <class T>
void SlabHalo<T>::start(const T* out_lo, T* in_lo, const T* out_hi, T* in_hi) {
  Stopwatch w;
  const std::size_t ps = static_cast<std::size_t>(s_.plane_size());
  if (s_.lower >= 0) comm_.irecv(reqs_, in_lo, ps, s_.lower, kTagPlaneUp);
  if (s_.upper >= 0) comm_.irecv(reqs_, in_hi, ps, s_.upper, kTagPlaneDown);
  if (s_.lower >= 0) comm_.isend(reqs_, out_lo, ps, s_.lower, kTagPlaneDown);
  if (s_.upper >= 0) comm_.isend(reqs_, out_hi, ps, s_.upper, kTagPlaneUp);
  seconds_ = w.seconds();
}

template <class T>
void SlabHalo<T>::finish() {
  Stopwatch w;
  reqs_.wait();
  seconds_ += w.seconds();
}

template <class T>
SlabJacobi<T>::SlabJacobi(const Comm& comm, const HeatedRoom& room, const SlabSplit& s)
    : comm_(comm),
      room_(room),
      s_(s),
      a_(static_cast<std::size_t>(s.buffer_size())),
      b_(static_cast<std::size_t>(s.buffer_size())),
      cur_(a_.data()),
      halo_(comm, s),
      plane_change_(static_cast<std::size_t>(room.n - 2)),
      all_(plane_change_.size()) {}

template <class T>
void SlabJacobi<T>::sweep(const T* u, T* out, std::int64_t p0, std::int64_t p1, bool norm) {
  stencil_sweep_cpu_planes<T>(room_, u, out, s_.k0 - 1, p0, p1,
                              norm ? plane_change_.data() + (p0 - 1) : nullptr);
}

template <class T>
void SlabJacobi<T>::start() {
  if (!s_.empty()) {
    heated_room_init_planes(room_, a_.data(), s_.k0 - 1, s_.k1 + 1);
    heated_room_init_planes(room_, b_.data(), s_.k0 - 1, s_.k1 + 1);
  }
  started_ = true;
}

template <class T>
JacobiResult SlabJacobi<T>::run(const JacobiStop& stop) {
  exchange_s_ = allreduce_s_ = 0;
  if (!started_) start();
  started_ = false;
  T* cur = a_.data();
  T* next = b_.data();
  // The planes whose neighbours are all here (or walls): updated while the halo travels.
  const std::int64_t in0 = s_.k0 + (s_.lower >= 0), in1 = std::max(in0, s_.k1 - (s_.upper >= 0));
  const JacobiResult res = sweep_loop(
      stop, allreduce_s_,
      [&](bool check) {
        if (s_.empty()) return;
        halo_.start(cur);
        sweep(cur, next, in0, in1, check);
        halo_.finish();
        exchange_s_ += halo_.seconds();
        if (s_.lower >= 0) sweep(cur, next, s_.k0, s_.k0 + 1, check);
        // (One plane between two halos: swept once, above.)
        if (s_.upper >= 0 && s_.k1 - 1 >= in1) sweep(cur, next, s_.k1 - 1, s_.k1, check);
        std::swap(cur, next);
      },
      [&] {
        // Every entry is one rank's plane sum, zero elsewhere: the sum over the ranks is exact.
        std::fill(all_.begin(), all_.end(), 0.0);
        std::copy(plane_change_.begin() + (s_.k0 - 1), plane_change_.begin() + (s_.k1 - 1),
                  all_.begin() + (s_.k0 - 1));
        comm_.allreduce(all_.data(), all_.size(), Op::sum);
        return stencil_sum_planes(all_.data(), static_cast<std::int64_t>(all_.size()));
      });
  cur_ = cur;
  return res;
}

template <class T>
std::vector<T> SlabJacobi<T>::output_planes() const {
  if (s_.out1 <= s_.out0) return {};
  const std::size_t ps = static_cast<std::size_t>(s_.plane_size());
  const T* from = cur_ + static_cast<std::size_t>(s_.out0 - (s_.k0 - 1)) * ps;
  return std::vector<T>(from, from + static_cast<std::size_t>(s_.out1 - s_.out0) * ps);
}

template class SlabHalo<float>;
template class SlabHalo<double>;
template class SlabJacobi<float>;
template class SlabJacobi<double>;

}  // namespace mm::dist
