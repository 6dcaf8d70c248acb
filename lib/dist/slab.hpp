// The heated-room grid (mmjacobi --poisson2d/3d) split in slabs of planes among the ranks: the
// split, the one-plane halo exchange, and the sweep of a slab with the exchange overlapped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dist/comm.hpp"
#include "dist/partition.hpp"
#include "jacobi.hpp"

namespace mm::dist {

// Planes are the grid's slowest index: z in 3D (N x N points each), y in 2D (rows of N points).
// The N - 2 interior planes are shared out in uniform contiguous blocks (every plane is the
// same work), the larger blocks first: with fewer planes than ranks the last ranks hold none.
// The wall planes 0 and N - 1 are no one's work; for the output the first rank writes plane 0
// and the last rank holding planes writes plane N - 1.
struct SlabSplit {
  int dim = 3;
  std::int64_t n = 3;
  int rank = 0;
  Partition interior;               // over the interior planes: index p is plane p + 1
  std::int64_t k0 = 1, k1 = 1;      // this rank's planes [k0, k1) (k0 == k1: none)
  int lower = -1, upper = -1;       // the ranks holding planes k0 - 1 and k1; -1: a wall (or none)
  std::int64_t out0 = 0, out1 = 0;  // the planes this rank writes, [out0, out1)

  std::int64_t planes() const { return k1 - k0; }
  bool empty() const { return k1 == k0; }
  // Points a plane (3D: N^2, 2D: N) and the output's array rows a plane (3D: N, 2D: 1).
  std::int64_t plane_size() const { return dim == 3 ? n * n : n; }
  std::int64_t rows_per_plane() const { return dim == 3 ? n : 1; }
  // The slab's buffer: planes k0 - 1 .. k1 (the halo or wall planes around the rank's own).
  std::int64_t buffer_size() const { return empty() ? 0 : (planes() + 2) * plane_size(); }
  // The output's rows of every rank (the array of 3D: N^2 x N, 2D: N x N), for the index of
  // --output-per-rank.
  Partition output_rows() const;
  // "z slab" / "y slab", the axis of the split.
  std::string axis() const { return dim == 3 ? "z" : "y"; }
};

// RANK's part of the N-a-side DIM-dimensional grid split among RANKS ranks.
SlabSplit slab_split(int dim, std::int64_t n, int ranks, int rank);

// Tags of the two directions of the plane exchange: distinct from the library's other messages.
inline constexpr int kTagPlaneUp = 210, kTagPlaneDown = 211;

// The one-plane halo exchange of a slab buffer: start(u) posts the receives of planes k0 - 1
// and k1 from the neighbours into U's first and last planes and sends planes k0 and k1 - 1;
// finish() waits. Walls are never exchanged (both buffers hold them from the start).
template <class T>
class SlabHalo {
 public:
  SlabHalo(const Comm& comm, const SlabSplit& s) : comm_(comm), s_(s) {}
  void start(T* u);
  // The same from planes anywhere in memory (a GPU rank's pinned copies): OUT_LO / OUT_HI to the
  // ranks below and above, theirs into IN_LO / IN_HI; the pointers of a side with no rank unused.
  void start(const T* out_lo, T* in_lo, const T* out_hi, T* in_hi);
  void finish();
  double seconds() const { return seconds_; }  // the last start() + finish()
  // Values this rank receives an exchange.
  std::int64_t halo_values() const { return ((s_.lower >= 0) + (s_.upper >= 0)) * s_.plane_size(); }

 private:
  Comm comm_;
  SlabSplit s_;
  Requests reqs_;
  double seconds_ = 0;
};

// The Jacobi iteration of the heated room over a slab: two buffers swapped each sweep, the
// halo exchanged each sweep while the planes that do not need it are updated, then the two
// planes next to the halo. The change is checked as the one-process tool checks it (JacobiStop)
// with the same norm bit for bit: each plane's squared change from stencil_sweep_cpu_planes
// (an order fixed by the plane's values), the plane sums gathered exactly (an allreduce of the
// vector of all planes' sums, each entry non-zero on one rank only), added in plane order by
// stencil_sum_planes on every rank. Every rank takes the same decision.
template <class T>
class SlabJacobi {
 public:
  SlabJacobi(const Comm& comm, const HeatedRoom& room, const SlabSplit& s);
  // Sets the starting grid, which the next run takes (untimed: RoomEngine::prepare); a run
  // not so prepared sets it itself.
  void start();
  // A run from the starting grid; collective.
  JacobiResult run(const JacobiStop& stop);
  // After run(): the slab buffer holding the result (planes k0 - 1 .. k1).
  const T* result() const { return cur_; }
  // Planes [out0, out1) of the result, the rank's part of the output.
  std::vector<T> output_planes() const;
  // The last run's seconds in the halo exchange (outside the overlap) and in the norm's
  // allreduce (the wait for slower ranks included).
  double exchange_seconds() const { return exchange_s_; }
  double allreduce_seconds() const { return allreduce_s_; }
  const SlabHalo<T>& halo() const { return halo_; }

 private:
  void sweep(const T* u, T* out, std::int64_t p0, std::int64_t p1, bool norm);

  Comm comm_;
  HeatedRoom room_;
  SlabSplit s_;
  std::vector<T> a_, b_;
  bool started_ = false;  // start() since the last run
  T* cur_ = nullptr;
  SlabHalo<T> halo_;
  // Every interior plane's sum (index: plane - 1): this rank's, then all (the allreduce's).
  std::vector<double> plane_change_, all_;
  double exchange_s_ = 0, allreduce_s_ = 0;
};

}  // namespace mm::dist
