// The heated room's Jacobi iteration over boxes: the overlapped sweep, the one-process norm
// through chains along x and y, and the boxes reassembled into planes for the output.
#include <algorithm>
#include <cmath>

#include "dist/box.hpp"
#include "dist/sweep_loop.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

namespace {

// Whether the box spans its rows' interior: the row sums then come from the sweep itself.
bool spans_x(const BoxSplit& s) {
  return s.own.lo[0] == 1 && s.own.hi[0] == s.n - 1;
}

// The box's points less the layers next to a neighbour (INNER, updated while the halo travels)
// and those layers as disjoint regions (the shell: the slowest axis's first, whole, then the
// next axis's within what is left, ...).
void onion(const BoxSplit& s, GridRegion& inner, std::vector<GridRegion>& shell) {
  inner = s.own;
  shell.clear();
  if (s.empty()) return;
  for (int a = s.dim - 1; a >= 0; --a) {
    if (s.lower[a] >= 0 && inner.hi[a] > inner.lo[a]) {
      GridRegion g = inner;
      g.hi[a] = inner.lo[a] + 1;
      shell.push_back(g);
      ++inner.lo[a];
    }
    if (s.upper[a] >= 0 && inner.hi[a] > inner.lo[a]) {
      GridRegion g = inner;
      g.lo[a] = inner.hi[a] - 1;
      shell.push_back(g);
      --inner.hi[a];
    }
  }
}

}  // namespace

template <class T>
BoxJacobi<T>::BoxJacobi(const Comm& comm, const HeatedRoom& room, const BoxSplit& s)
    : comm_(comm),
      room_(room),
      s_(s),
      box_(s.grid_box()),
      a_(static_cast<std::size_t>(s.buffer_size())),
      b_(static_cast<std::size_t>(s.buffer_size())),
      cur_(a_.data()),
      halo_(comm, s),
      rows_(static_cast<std::size_t>(s.empty() ? 0 : s.own.rows())),
      lanes_(spans_x(s) ? 0 : rows_.size() * kStencilLanes),
      partial_(static_cast<std::size_t>(s.empty() ? 0 : s.extent(2))),
      planes_(static_cast<std::size_t>(room.n - 2)) {}

template <class T>
void BoxJacobi<T>::start() {
  if (!s_.empty()) {
    // The starting grid over the whole buffer: walls where the ghost layers are walls, zeros
    // elsewhere (the halo overwrites a neighbour's layer before it is read).
    const std::int64_t sz = s_.dim == 3 ? s_.extent(2) + 2 : 1;
    for (std::int64_t k = 0; k < sz; ++k)
      for (std::int64_t j = 0; j < box_.sy; ++j)
        for (std::int64_t i = 0; i < box_.sx; ++i) {
          const std::int64_t at = (k * box_.sy + j) * box_.sx + i;
          a_[at] = b_[at] = heated_room_start<T>(room_, box_.x0 + i, box_.y0 + j, box_.z0 + k);
        }
  }
  started_ = true;
}

template <class T>
JacobiResult BoxJacobi<T>::run(const JacobiStop& stop) {
  exchange_s_ = allreduce_s_ = 0;
  if (!started_) start();
  started_ = false;
  GridRegion inner;
  std::vector<GridRegion> shell;
  onion(s_, inner, shell);
  const bool row_sums = spans_x(s_);
  const std::int64_t ld = s_.extent(1);
  auto sweep = [&](const T* u, T* out, const GridRegion& g, bool check) {
    double* rows = check && row_sums
                       ? rows_.data() + (g.lo[2] - s_.own.lo[2]) * ld + (g.lo[1] - s_.own.lo[1])
                       : nullptr;
    stencil_sweep_cpu_box<T>(room_, box_, u, out, g, rows, ld);
  };
  T* cur = a_.data();
  T* next = b_.data();
  const JacobiResult res = sweep_loop(
      stop, allreduce_s_,
      [&](bool check) {
        if (s_.empty()) return;
        halo_.start(cur);
        sweep(cur, next, inner, check);
        halo_.finish();
        exchange_s_ += halo_.seconds();
        for (const GridRegion& g : shell) sweep(cur, next, g, check);
        std::swap(cur, next);
      },
      [&] { return squared_change(next, cur); });
  cur_ = cur;
  return res;
}

template <class T>
double BoxJacobi<T>::squared_change(const T* old, const T* now) {
  std::fill(planes_.begin(), planes_.end(), 0.0);
  if (!s_.empty()) {
    if (!spans_x(s_)) {
      // Each row's lanes continued along x, box after box: the last box holds the row sums.
      Requests r;
      if (s_.lower[0] >= 0) {
        comm_.irecv(r, lanes_.data(), lanes_.size(), s_.lower[0], kTagLanes);
        r.wait();
      } else {
        std::fill(lanes_.begin(), lanes_.end(), 0.0);
      }
      stencil_change_lanes<T>(box_, old, now, s_.own, lanes_.data());
      if (s_.upper[0] >= 0) {
        comm_.isend(r, lanes_.data(), lanes_.size(), s_.upper[0], kTagLanes);
        r.wait();
      } else {
        for (std::size_t q = 0; q < rows_.size(); ++q)
          rows_[q] = stencil_lane_sum(lanes_.data() + q * kStencilLanes);
      }
    }
    if (s_.upper[0] < 0) {
      const std::int64_t ny = s_.extent(1);
      if (s_.dim == 2) {
        std::copy(rows_.begin(), rows_.end(), planes_.begin() + (s_.own.lo[1] - 1));
      } else {
        // Each plane's rows added in order of y, box after box along y.
        Requests r;
        if (s_.lower[1] >= 0) {
          comm_.irecv(r, partial_.data(), partial_.size(), s_.lower[1], kTagPlaneSums);
          r.wait();
        } else {
          std::fill(partial_.begin(), partial_.end(), 0.0);
        }
        for (std::size_t p = 0; p < partial_.size(); ++p) {
          double sum = partial_[p];
          for (std::int64_t j = 0; j < ny; ++j) sum += rows_[p * static_cast<std::size_t>(ny) + j];
          partial_[p] = sum;
        }
        if (s_.upper[1] >= 0) {
          comm_.isend(r, partial_.data(), partial_.size(), s_.upper[1], kTagPlaneSums);
          r.wait();
        } else {
          std::copy(partial_.begin(), partial_.end(), planes_.begin() + (s_.own.lo[2] - 1));
        }
      }
    }
  }
  // Every entry is one rank's plane sum, zero elsewhere: the sum over the ranks is exact.
  comm_.allreduce(planes_.data(), planes_.size(), Op::sum);
  return stencil_sum_planes(planes_.data(), static_cast<std::int64_t>(planes_.size()));
}

template <class T>
std::vector<T> BoxJacobi<T>::owned() const {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(s_.points()));
  if (s_.empty()) return out;
  for (std::int64_t k = s_.own.lo[2]; k < s_.own.hi[2]; ++k)
    for (std::int64_t j = s_.own.lo[1]; j < s_.own.hi[1]; ++j) {
      const T* row = cur_ + box_.offset(s_.own.lo[0], j, k);
      out.insert(out.end(), row, row + s_.extent(0));
    }
  return out;
}

template <class T>
std::vector<T> boxes_to_planes(const Comm& comm, const HeatedRoom& room, const BoxSplit& mine,
                               const std::vector<T>& owned, const SlabSplit& out) {
  const int slow = mine.dim - 1, ranks = comm.size();
  // A box's points of planes [p0, p1) of the slow axis are one stretch of OWNED (z, y, x order).
  auto overlap = [&](const BoxSplit& b, std::int64_t o0, std::int64_t o1, std::int64_t& p0,
                     std::int64_t& p1) {
    p0 = std::max(b.own.lo[slow], o0);
    p1 = std::min(b.own.hi[slow], o1);
    return !b.empty() && p1 > p0;
  };
  const std::int64_t per_plane = mine.points() / std::max<std::int64_t>(1, mine.extent(slow));
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 0);
  std::vector<T> send;
  for (int t = 0; t < ranks; ++t) {
    const SlabSplit to = slab_split(mine.dim, mine.n, ranks, t);
    std::int64_t p0 = 0, p1 = 0;
    if (!overlap(mine, to.out0, to.out1, p0, p1)) continue;
    const auto from = owned.begin() + (p0 - mine.own.lo[slow]) * per_plane;
    send.insert(send.end(), from, from + (p1 - p0) * per_plane);
    counts[static_cast<std::size_t>(t)] = (p1 - p0) * per_plane;
  }
  const std::vector<T> got = comm.alltoallv(send, counts);
  const std::int64_t ps = out.plane_size();
  std::vector<T> planes(static_cast<std::size_t>((out.out1 - out.out0) * ps));
  if (planes.empty()) return planes;
  heated_room_init_planes(room, planes.data(), out.out0, out.out1);
  // Each source's points, sources in rank order, each in its order z, y, x.
  std::size_t at = 0;
  const std::int64_t n = mine.n;
  for (int r = 0; r < ranks; ++r) {
    const BoxSplit b = box_split(mine.dim, n, mine.dims, r);
    std::int64_t p0 = 0, p1 = 0;
    if (!overlap(b, out.out0, out.out1, p0, p1)) continue;
    GridRegion g = b.own;
    g.lo[slow] = p0;
    g.hi[slow] = p1;
    for (std::int64_t k = g.lo[2]; k < g.hi[2]; ++k)
      for (std::int64_t j = g.lo[1]; j < g.hi[1]; ++j) {
        // The grid's (i, j, k) in planes from OUT0: 3D plane k, 2D plane (row) j.
        const std::int64_t row = mine.dim == 3 ? ((k - out.out0) * n + j) * n : (j - out.out0) * n;
        for (std::int64_t i = g.lo[0]; i < g.hi[0]; ++i)
          planes[static_cast<std::size_t>(row + i)] = got[at++];
      }
  }
  return planes;
}

template class BoxJacobi<float>;
template class BoxJacobi<double>;
template std::vector<float> boxes_to_planes<float>(const Comm&, const HeatedRoom&, const BoxSplit&,
                                                   const std::vector<float>&, const SlabSplit&);
template std::vector<double> boxes_to_planes<double>(const Comm&, const HeatedRoom&,
                                                     const BoxSplit&, const std::vector<double>&,
                                                     const SlabSplit&);

}  // namespace mm::dist
