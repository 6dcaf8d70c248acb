// The heated-room grid in boxes: the process grid, the split, the face exchange.
#include "dist/box.hpp"

#include <algorithm>
#include <charconv>
#include <tuple>

#include "dist/partition.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

namespace {

// Faces with a neighbour that the busiest of P ranks along an axis of M points has.
int faces(int p, std::int64_t m) {
  const std::int64_t holders = std::min<std::int64_t>(p, m);
  return holders >= 3 ? 2 : holders == 2 ? 1 : 0;
}

}  // namespace

Dims box_dims(int dim, std::int64_t n, int ranks) {
  const std::int64_t m = n - 2;
  Dims best{1, 1, ranks};
  if (dim == 2) best = {1, ranks, 1};
  std::tuple<std::int64_t, std::int64_t, int, int> best_cost{-1, 0, 0, 0};
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py) continue;
      const int pz = ranks / px / py;
      if (dim == 2 && pz != 1) continue;
      const Dims d{px, py, pz};
      std::int64_t holders = 1, halo = 0;
      std::array<std::int64_t, 3> e{1, 1, 1};
      for (int a = 0; a < dim; ++a) {
        holders *= std::min<std::int64_t>(d[a], m);
        e[a] = (m + d[a] - 1) / d[a];  // the largest box's extent
      }
      for (int a = 0; a < dim; ++a) {
        std::int64_t face = 1;
        for (int b = 0; b < dim; ++b)
          if (b != a) face *= e[b];
        halo += faces(d[a], m) * face;
      }
      const auto cost = std::make_tuple(ranks - holders, halo, px, py);
      if (std::get<0>(best_cost) < 0 || cost < best_cost) best_cost = cost, best = d;
    }
  }
  return best;
}

SplitChoice parse_split(const std::string& split, int dim, std::int64_t n, int ranks) {
  SplitChoice c;
  const Dims slabs = dim == 3 ? Dims{1, 1, ranks} : Dims{1, ranks, 1};
  if (split == "slabs" || (split == "auto" && (ranks == 1 || n - 2 >= kAutoSlabPlanes * ranks))) {
    c.dims = slabs;
    return c;
  }
  c.boxes = true;
  if (split == "auto" || split == "boxes") {
    c.dims = box_dims(dim, n, ranks);
    return c;
  }
  // PXxPY[xPZ]
  const std::string usage = "--split " + split +
                            ": give auto, slabs, boxes or the ranks along each axis (" +
                            (dim == 3 ? "PXxPYxPZ" : "PXxPY") + ")";
  std::vector<int> v;
  const char* p = split.data();
  const char* end = p + split.size();
  while (p < end) {
    int x = 0;
    const auto r = std::from_chars(p, end, x);
    if (r.ec != std::errc() || x < 1) throw UsageError(usage);
    v.push_back(x);
    p = r.ptr;
    if (p < end && *p++ != 'x') throw UsageError(usage);
    if (p == end && split.back() == 'x') throw UsageError(usage);
  }
  if (static_cast<int>(v.size()) != dim) throw UsageError(usage);
  std::int64_t product = 1;
  for (int a = 0; a < dim; ++a) c.dims[a] = v[a], product *= v[a];
  if (product != ranks)
    throw UsageError("--split " + split + ": " + std::to_string(product) +
                     " ranks in the process grid, the job has " + std::to_string(ranks));
  return c;
}

BoxSplit box_split(int dim, std::int64_t n, const Dims& dims, int rank) {
  BoxSplit s;
  s.dim = dim;
  s.n = n;
  s.rank = rank;
  s.dims = dims;
  s.coord = {rank % dims[0], rank / dims[0] % dims[1], rank / (dims[0] * dims[1])};
  for (int a = 0; a < dim; ++a) {
    const Partition p = uniform_partition(n - 2, dims[a]);
    s.own.lo[a] = 1 + p.begin(s.coord[a]);
    s.own.hi[a] = 1 + p.end(s.coord[a]);
  }
  if (dim == 2) s.own.lo[2] = 0, s.own.hi[2] = 1;
  if (s.empty()) return s;
  // The boxes before this one along an axis hold points (the larger blocks come first), and
  // the next one does when points are left before the wall.
  const int stride[3] = {1, dims[0], dims[0] * dims[1]};
  for (int a = 0; a < dim; ++a) {
    if (s.own.lo[a] > 1) s.lower[a] = rank - stride[a];
    if (s.own.hi[a] < n - 1) s.upper[a] = rank + stride[a];
  }
  return s;
}

GridBox BoxSplit::grid_box() const {
  GridBox b;
  b.x0 = own.lo[0] - 1;
  b.y0 = own.lo[1] - 1;
  b.z0 = dim == 3 ? own.lo[2] - 1 : 0;
  b.sx = extent(0) + 2;
  b.sy = extent(1) + 2;
  return b;
}

std::int64_t BoxSplit::buffer_size() const {
  if (empty()) return 0;
  return (extent(0) + 2) * (extent(1) + 2) * (dim == 3 ? extent(2) + 2 : 1);
}

std::int64_t BoxSplit::halo_values() const {
  std::int64_t v = 0;
  for (int a = 0; a < dim; ++a) {
    std::int64_t face = 1;
    for (int b = 0; b < dim; ++b)
      if (b != a) face *= extent(b);
    v += ((lower[a] >= 0) + (upper[a] >= 0)) * face;
  }
  return v;
}

std::string BoxSplit::grid_name() const {
  std::string s = std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
  return dim == 3 ? s + "x" + std::to_string(dims[2]) : s;
}

namespace {

// Every point of REGION of the box buffer B, z slowest: F(offset).
template <class F>
void for_each_point(const GridBox& b, const GridRegion& g, F&& f) {
  for (std::int64_t k = g.lo[2]; k < g.hi[2]; ++k)
    for (std::int64_t j = g.lo[1]; j < g.hi[1]; ++j) {
      const std::int64_t row = b.offset(g.lo[0], j, k);
      for (std::int64_t i = 0; i < g.hi[0] - g.lo[0]; ++i) f(row + i);
    }
}

// The layer at index AT along axis A of the box's points.
GridRegion layer(const BoxSplit& s, int a, std::int64_t at) {
  GridRegion g = s.own;
  g.lo[a] = at;
  g.hi[a] = at + 1;
  return g;
}

}  // namespace

template <class T>
BoxHalo<T>::BoxHalo(const Comm& comm, const BoxSplit& s) : comm_(comm), s_(s) {
  for (int a = 0; a + 1 < s.dim; ++a)
    for (int side = 0; side < 2; ++side)
      if ((side ? s.upper[a] : s.lower[a]) >= 0) {
        const auto face = static_cast<std::size_t>(s.points() / s.extent(a));
        send_[a][side].resize(face);
        recv_[a][side].resize(face);
      }
}

template <class T>
void BoxHalo<T>::start(T* u) {
  Stopwatch w;
  u_ = u;
  const GridBox b = s_.grid_box();
  const int slow = s_.dim - 1;
  const std::int64_t plane = b.sx * (s_.dim == 3 ? b.sy : 1);  // a buffer plane of the slow axis
  // Receives first: from below, the messages travelling up (tag 2a), from above, down (2a + 1).
  for (int a = 0; a < s_.dim; ++a)
    for (int side = 0; side < 2; ++side) {
      const int peer = side ? s_.upper[a] : s_.lower[a];
      if (peer < 0) continue;
      const int tag = kTagFace + 2 * a + side;
      if (a == slow) {
        const std::int64_t ghost = side ? s_.extent(a) + 1 : 0;
        comm_.irecv(reqs_, u + ghost * plane, static_cast<std::size_t>(plane), peer, tag);
      } else {
        comm_.irecv(reqs_, recv_[a][side].data(), recv_[a][side].size(), peer, tag);
      }
    }
  for (int a = 0; a < s_.dim; ++a)
    for (int side = 0; side < 2; ++side) {
      const int peer = side ? s_.upper[a] : s_.lower[a];
      if (peer < 0) continue;
      const int tag = kTagFace + 2 * a + (side ? 0 : 1);  // up to the upper one, down to the lower
      if (a == slow) {
        const std::int64_t edge = side ? s_.extent(a) : 1;
        comm_.isend(reqs_, u + edge * plane, static_cast<std::size_t>(plane), peer, tag);
      } else {
        T* to = send_[a][side].data();
        for_each_point(b, layer(s_, a, side ? s_.own.hi[a] - 1 : s_.own.lo[a]),
                       [&](std::int64_t at) { *to++ = u[at]; });
        comm_.isend(reqs_, send_[a][side].data(), send_[a][side].size(), peer, tag);
      }
    }
  seconds_ = w.seconds();
}

template <class T>
void BoxHalo<T>::finish() {
  Stopwatch w;
  reqs_.wait();
  const GridBox b = s_.grid_box();
  for (int a = 0; a + 1 < s_.dim; ++a)
    for (int side = 0; side < 2; ++side) {
      if ((side ? s_.upper[a] : s_.lower[a]) < 0) continue;
      const T* from = recv_[a][side].data();
      for_each_point(b, layer(s_, a, side ? s_.own.hi[a] : s_.own.lo[a] - 1),
                     [&](std::int64_t at) { u_[at] = *from++; });
    }
  seconds_ += w.seconds();
}

template class BoxHalo<float>;
template class BoxHalo<double>;

}  // namespace mm::dist
