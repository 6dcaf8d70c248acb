// The heated-room grid (mmjacobi --poisson2d/3d) split in boxes of a process grid: the split,
// the face halo exchange, and the sweep of a box with the exchange overlapped and the
// one-process norm kept bit for bit.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dist/comm.hpp"
#include "dist/slab.hpp"
#include "jacobi.hpp"

namespace mm::dist {

// Ranks along x, y, z (2D: z 1).
using Dims = std::array<int, 3>;

// The process grid --split boxes takes for RANKS ranks on the N-a-side DIM-dimensional grid:
// of the factorisations of RANKS over the axes, the one with the fewest ranks left without
// points, then the fewest halo values the busiest rank receives an exchange, then the fewest
// ranks along x, then along y (splitting x makes every check's norm a chain along x, see
// BoxJacobi; the slower axes keep their faces contiguous).
Dims box_dims(int dim, std::int64_t n, int ranks);

// --split: how the grid is shared out. Slabs: the slowest axis only (slab.hpp); boxes: a
// process grid over the axes. auto: slabs while every rank gets at least kAutoSlabPlanes
// planes, else boxes (box_dims). An explicit grid PXxPY (2D) or PXxPYxPZ (3D) is boxes
// with those ranks along x, y (and z); their product must be the ranks.
struct SplitChoice {
  bool boxes = false;
  Dims dims{1, 1, 1};
};
inline constexpr std::int64_t kAutoSlabPlanes = 4;
// UsageError for a bad --split.
SplitChoice parse_split(const std::string& split, int dim, std::int64_t n, int ranks);

// RANK's box: rank = x + px * (y + py * z) over the coordinates in the process grid; along each
// axis the N - 2 interior indices in uniform blocks (the larger first; ranks past the points of
// an axis hold none, and then no points at all).
struct BoxSplit {
  int dim = 3;
  std::int64_t n = 3;
  int rank = 0;
  Dims dims{1, 1, 1}, coord{0, 0, 0};
  GridRegion own;                        // this rank's interior points (2D: z [0, 1))
  std::array<int, 3> lower{-1, -1, -1};  // the rank holding the points below along each axis
  std::array<int, 3> upper{-1, -1, -1};  // ... above; -1: a wall (or no points)

  bool empty() const { return own.empty(); }
  std::int64_t extent(int a) const { return own.hi[a] - own.lo[a]; }
  std::int64_t points() const { return empty() ? 0 : extent(0) * extent(1) * extent(2); }
  // The buffer: the box and one ghost layer around it along the grid's axes.
  GridBox grid_box() const;
  std::int64_t buffer_size() const;
  // Values this rank receives an exchange (its faces that have a neighbour).
  std::int64_t halo_values() const;
  // "2x2x1" (2D: "2x2").
  std::string grid_name() const;
};

BoxSplit box_split(int dim, std::int64_t n, const Dims& dims, int rank);

// Tags of the face exchange (axis a, towards the upper / the lower neighbour: kTagFace + 2a,
// + 2a + 1) and of the norm's chains; distinct from the library's other messages.
inline constexpr int kTagFace = 220, kTagLanes = 230, kTagPlaneSums = 231;

// The face halo exchange of a box buffer: start(u) posts the receives of the ghost layers
// from the neighbours and sends the box's boundary layers; finish() waits and unpacks. Faces
// of the slowest axis are whole buffer planes, sent and received in place; the others are
// packed. Walls are never exchanged (the buffers hold them from the start).
template <class T>
class BoxHalo {
 public:
  BoxHalo(const Comm& comm, const BoxSplit& s);
  void start(T* u);
  void finish();
  double seconds() const { return seconds_; }  // the last start() + finish()
  std::int64_t halo_values() const { return s_.halo_values(); }

 private:
  Comm comm_;
  BoxSplit s_;
  Requests reqs_;
  T* u_ = nullptr;
  std::vector<T> send_[3][2], recv_[3][2];
  double seconds_ = 0;
};

// The Jacobi iteration of the heated room over a box: two buffers swapped each sweep, the
// halo exchanged while the points that do not need it are updated, then the shell next to the
// halo. The norm is the one-process cpu-stencil's bit for bit (stencil_sweep_cpu_planes): a
// row's change in 8 lanes along x, a plane's rows in order of y, the planes in order of z.
// x unsplit: each row's sum comes from the sweep; x split: after the sweep, a chain along x
// continues each row's lanes box after box (one more pass over the box, the boxes of a row of
// the process grid one after the other). 3D with y split: a chain along y adds each plane's row
// sums in order. The plane sums go into a vector of all planes (zeros elsewhere), summed over
// the ranks exactly, then in plane order: every rank takes the same decision.
template <class T>
class BoxJacobi {
 public:
  BoxJacobi(const Comm& comm, const HeatedRoom& room, const BoxSplit& s);
  // As SlabJacobi's: the starting grid for the next run, else the run sets it.
  void start();
  JacobiResult run(const JacobiStop& stop);
  // After run(): the box's points, in the order z, y, x.
  std::vector<T> owned() const;
  double exchange_seconds() const { return exchange_s_; }
  double allreduce_seconds() const { return allreduce_s_; }
  const BoxHalo<T>& halo() const { return halo_; }

 private:
  double squared_change(const T* old, const T* now);  // collective

  Comm comm_;
  HeatedRoom room_;
  BoxSplit s_;
  GridBox box_;
  std::vector<T> a_, b_;
  bool started_ = false;  // start() since the last run
  const T* cur_ = nullptr;
  BoxHalo<T> halo_;
  std::vector<double> rows_, lanes_, partial_, planes_;
  double exchange_s_ = 0, allreduce_s_ = 0;
};

// The planes [out.out0, out.out1) of the grid, the part OUT writes (a slab split of the same
// ranks), assembled from every rank's box (OWNED: BoxJacobi::owned) by one alltoallv; the walls
// as they start. Collective.
template <class T>
std::vector<T> boxes_to_planes(const Comm& comm, const HeatedRoom& room, const BoxSplit& mine,
                               const std::vector<T>& owned, const SlabSplit& out);

}  // namespace mm::dist
