// Jacobi iteration: on a sparse system A x = b, and on the heated-room Poisson stencil
// (2D/3D grid updated in place, no matrix stored). Declarations for every backend.
//
// Stopping (both forms): iteration k computes x_k from x_{k-1} (x_0 = 0; the grid starts
// with its walls and a zero interior). Every CHECK_EVERY-th iteration, and at the last one
// allowed, the change ||x_k - x_{k-1}||_2 is computed (the plain Euclidean norm over all
// unknowns, accumulated in double; for the grid the interior points, which is also the
// Frobenius norm of u_new - u_old since the walls never change). With TOL >= 0 the
// iteration stops at the first checked k whose change is <= TOL; it stops in any case
// after MAX_ITER iterations.
//
// Work formulas (the record's flops and bytes), for ITERATIONS iterations:
//   system:  flops = iterations * (2*nnz + 3*n): per row, 2 per off-diagonal entry (multiply,
//            add), 1 subtraction from b_i, 1 multiplication by 1/a_ii and 3 for the change
//            (subtract, square, add) = 2*(nnz-n) + 5*n. Complex values: 4x those counts.
//            bytes = iterations * (nnz*(value+index) + (n+1)*index + 4*n*value): the matrix,
//            x_{k-1}, b and 1/diag read once, x_k written once (x's neighbours from cache).
//   stencil: flops = iterations * interior * (8 in 3D, 6 in 2D): the neighbour sum and h^2 f
//            (6 adds in 3D, 4 in 2D), 1 multiply by 1/6 (1/4), 1 fused multiply-add of the
//            squared change. bytes = iterations * interior * 2*value (16 B in double: u_old
//            read once, u_new written once, neighbours from cache).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "impl.hpp"
#include "mm/matrix.hpp"
#include "mm/tuning.hpp"

namespace mm {

struct JacobiStop {
  std::int64_t max_iter = 1;
  double tol = -1;  // < 0: no tolerance, exactly MAX_ITER iterations
  std::int64_t check_every = 1;
};

struct JacobiResult {
  std::int64_t iterations = 0;
  double norm = -1;        // the last change computed; -1 before any was computed
  bool converged = false;  // TOL was given and reached (always false without TOL)
};

// Whether iteration K (1-based) computes the change.
inline bool jacobi_checks(const JacobiStop& s, std::int64_t k) {
  return k % s.check_every == 0 || k == s.max_iter;
}

// Iterations 1..STOP.max_iter, stopping as the header says: SWEEP(check) makes one iteration
// and, where CHECK, returns its squared change (anything where not). The loop of every host
// engine, one process or many (dist/sweep_loop.hpp).
template <class Sweep>
JacobiResult jacobi_iterate(const JacobiStop& stop, Sweep&& sweep) {
  JacobiResult res;
  for (std::int64_t k = 1; k <= stop.max_iter; ++k) {
    const bool check = jacobi_checks(stop, k);
    const double change = sweep(check);
    res.iterations = k;
    if (!check) continue;
    res.norm = std::sqrt(change);
    if (stop.tol >= 0 && res.norm <= stop.tol) {
      res.converged = true;
      break;
    }
  }
  return res;
}

// Tuning of the CUDA marching sweeps (cuda-norm and its -ry2, -ry4, -col variants; cuda-norm's
// plan found by a search: plan), of the
// time-tiled one (cuda-timetile: chunks, norm) and how every CUDA run is launched (launch: the
// system's cuda too, its only key). 0 is the code's choice. --tune warps=W, chunks=C,
// norm=fused|plain (the keys, their allowed values and defaults: keys(), in jacobi_impls.cpp).
struct JacobiTuning {
  // Warps a block of the 3D sweep: 8 or 16 (0: 8). Warps cover whole rows of x first, so a
  // block holds fewer where the warps along x do not divide it (the 2D sweep: 4, fixed).
  int warps = 0;
  // Chunks of planes (2D: rows) each column of tiles is cut into, each marched by one block
  // (0: the fewest whose blocks fill the GPU's block slots, see stencil_plan.hpp). For
  // cuda-timetile: the chunks of its time-tiled sweep (0: its fewest-steps rule).
  int chunks = 0;
  // cuda-timetile: how a checked pass computes its change. 0: the code's choice (fused);
  // 1 (fused): in the time-tiled sweep's last level, summed in its own order (the same norm
  // on every run, equal to cuda-norm's within rounding); 2 (plain): the pass's last sweep is
  // cuda-norm's, so the change is cuda-norm's bit for bit, at the cost of one more pass
  // through memory a check.
  int norm = 0;
  // How the 3D marching sweep of one row a thread (cuda-norm) issues its loads: 0 the code's
  // choice (by device: off where gpu_memory_rich(), else regs); 1 (off) at the step that uses them;
  // 2 (regs) one step ahead, into registers (two steps' loads in flight a thread; more registers,
  // fewer blocks); 3 (tma) by the copy engine into a ring of shared-memory stages several planes
  // ahead (vectors of 16 bytes; else regs). The grid and the change are the same bit for bit
  // (kernels/cuda/stencil_march.cuh, stencil_march_tma.cuh).
  int ahead = 0;
  // ahead=tma: the planes a block's ring of shared-memory stages holds, 3..12 (0: the code's
  // choice, stencil_plan.hpp's tma_stages).
  int stages = 0;
  // The 3D marching sweeps' direction along z: 0 the code's choice (stencil_plan.hpp's
  // march_order); 1 (up) every sweep marches up; 2 (alternate) the even iterations march down,
  // so that a sweep starts on the planes the sweep before wrote last (still in L2); 3 (zigzag,
  // ahead=tma; else 2) so, and the odd chunks of each column march the other way, so that two
  // chunks read the planes about the boundary between them at the same time (once from memory,
  // not twice). The grid is the same bit for bit; the change of a sweep marching down is summed
  // in another order.
  int order = 0;
  // cuda-timetile, passes of 4 levels: how its blocks share the columns of tiles. 0: the code's
  // choice (the even split where it makes fewer steps than the chunks, chunks not given); 1
  // (chunks): each column cut into chunks, a block each; 2 (even): the columns' planes in equal
  // shares, one a block the GPU holds at once (one wave; a share may reach over into the next
  // column). Passes of fewer levels take chunks (timetile_plan.hpp's even_split).
  int split = 0;
  // ahead=tma: the L2 policy of the stages' loads. 0 the code's choice (stencil_plan.hpp's
  // march_l2); 1 (normal); 2 (last): evict_last, so that the rows a block loads, which the blocks
  // beside it load again (the rows beside its own), stay in L2 before the results written
  // beside them. The grid and the change are the same bit for bit.
  int l2 = 0;
  // How a run's sweeps reach the GPU (every CUDA runner: cuda-norm and its variants,
  // cuda-partials, -coalesced, -naive, cuda-timetile, and the system's cuda). 0: the code's choice
  // (graph where the run has no tolerance); 1 (stream): launched one by one as the host loop goes;
  // 2 (graph): a run without a tolerance captured once as a CUDA graph and replayed each run
  // (jacobi_drive.cuh's RunGraph). A run with a tolerance reads its change as it goes, so it takes
  // stream whatever the key says. The grid and the change are the same bit for bit.
  int launch = 0;
  // How cuda-norm's plan (its ring's stages and its chunks) is found. 0: the code's choice
  // (rule); 1 (rule): stencil_plan.hpp's rules, from the GPU's size and the kernel's occupancy;
  // 2 (search): the plans those keys not given allow (stencil_plan.hpp's plan_candidates) are
  // timed on this GPU at upload, a few short runs each, and the fastest kept where it beats the
  // rule's (plan_chosen). The grid is the same bit for bit; the change of a plan of other chunks
  // or order is summed in another order. Its cost is upload's (the record's h2d phase).
  int plan = 0;

  static const TuneKeys& keys();
  // The keys given in ARGS; UsageError for a bad value.
  static JacobiTuning from(const TuneArgs& args);
  // The keys whose value is set (non-zero): a runner's resolved values hold only the keys
  // its kernel uses.
  nlohmann::json to_json() const;
};

// ---- the sparse (or dense) system ------------------------------------------------------

// A square with no zero on its diagonal (jacobi_zero_diagonal_row finds the first such row).
// X holds n values and gets x_k; runs start again from x_0 = 0 every time.
template <class I, class T>
struct JacobiProblem {
  const Csr<I, T>* a = nullptr;
  const T* b = nullptr;
  T* x = nullptr;
  JacobiStop stop;
  JacobiResult* result = nullptr;  // written by every run
  JacobiTuning tuning{};           // the CUDA runner's: launch only
};

template <class I, class T>
using JacobiMake = std::function<std::unique_ptr<Runner>(const JacobiProblem<I, T>&)>;

template <class I, class T>
const ImplList<JacobiMake<I, T>>& jacobi_impls();

// First row (0-based) whose diagonal entry is zero or absent; -1 when there is none.
template <class I, class T>
std::int64_t jacobi_zero_diagonal_row(const Csr<I, T>& a);
// First row (0-based) with |a_ii| <= sum_{j != i} |a_ij| (not strictly dominant); -1: none.
template <class I, class T>
std::int64_t jacobi_not_dominant_row(const Csr<I, T>& a);

template <class I, class T>
double jacobi_flops(const Csr<I, T>& a, std::int64_t iterations) {
  const double per = 2.0 * static_cast<double>(a.nnz()) + 3.0 * static_cast<double>(a.rows);
  return (is_complex_v<T> ? 4.0 : 1.0) * per * static_cast<double>(iterations);
}
template <class I, class T>
double jacobi_bytes(const Csr<I, T>& a, std::int64_t iterations) {
  const double s = sizeof(T), i = sizeof(I), n = static_cast<double>(a.rows);
  return (static_cast<double>(a.nnz()) * (s + i) + (n + 1) * i + 4 * n * s) *
         static_cast<double>(iterations);
}

// Serial reference: x_k[i] = (b_i - sum_{j != i} a_ij x_{k-1}[j]) / a_ii, row by row.
template <class I, class T>
JacobiResult jacobi_ref(const Csr<I, T>& a, const T* b, T* x, const JacobiStop& stop);

// OpenMP: the off-diagonal part and 1/diag prepared once (OFFDIAG, INV_DIAG, by
// jacobi_split_diagonal); each iteration one parallel pass over the rows, updating and
// reducing the change together. X_OLD is scratch of n values.
template <class I, class T>
void jacobi_split_diagonal(const Csr<I, T>& a, Csr<I, T>& offdiag, std::vector<T>& inv_diag);
template <class I, class T>
JacobiResult jacobi_cpu(const Csr<I, T>& offdiag, const std::vector<T>& inv_diag, const T* b, T* x,
                        std::vector<T>& x_old, const JacobiStop& stop);

// ---- the heated-room stencil -----------------------------------------------------------
//
// [-1,1]^DIM with N points a side (walls included), h = 2/(N-1). u = 20 on every wall
// except u = 0 on y = -1 (where walls meet, y = -1 wins; those edge points are never read).
// A radiator f = 200 in x in [-1,-3/8], y in [-1,-1/2] (3D: and z in [-2/3,0]); f = 0
// elsewhere. Update u = (sum of the 2*DIM neighbours + h^2 f) * (1/(2*DIM)).
// Layout: x fastest, then y, then z: u[(k*N + j)*N + i] is the point (x_i, y_j, z_k),
// x_i = -1 + i*h. Written as a dense array, 2D is N x N with entry (j+1, i+1) and 3D is
// N^2 x N with entry (k*N + j + 1, i + 1): the array's rows are the grid's rows of x.

// The grids the heated room takes: N >= 3 (walls and one interior point), N^DIM points
// addressable (N <= 2^20 in 3D, 2^30 in 2D); UsageError naming --poissonDIMd otherwise.
void check_heated_room_size(int dim, std::int64_t n);

// Points [lo, hi] (lo > hi: none) of one axis whose coordinate lies in [a, b], edges
// included (with a tolerance of 1e-9 h for coordinates that are on an edge in exact terms).
struct IndexRange {
  std::int64_t lo = 1, hi = 0;
  bool contains(std::int64_t i) const { return i >= lo && i <= hi; }
};
IndexRange heated_room_range(std::int64_t n, double a, double b);

struct HeatedRoom {
  int dim = 3;
  std::int64_t n = 3;     // points a side, >= 3
  IndexRange rx, ry, rz;  // the radiator's points per axis (rz unused in 2D)
  double h2f = 0;         // h^2 * 200
  std::int64_t points() const { return dim == 3 ? n * n * n : n * n; }
  std::int64_t interior() const {
    const std::int64_t m = n - 2;
    return dim == 3 ? m * m * m : m * m;
  }
};
HeatedRoom heated_room(int dim, std::int64_t n);

// The starting grid: walls set, interior 0.
template <class T>
void heated_room_init(const HeatedRoom& room, T* u);

// U gets the grid after the run (N^DIM values); runs start again from the initial grid.
template <class T>
struct StencilProblem {
  HeatedRoom room;
  T* u = nullptr;
  JacobiStop stop;
  JacobiResult* result = nullptr;
  JacobiTuning tuning;
  int time_tile = 0;  // cuda-timetile: sweeps a pass at most (0: stencil_time_tile_default)
};

template <class T>
using StencilMake = std::function<std::unique_ptr<Runner>(const StencilProblem<T>&)>;

template <class T>
const ImplList<StencilMake<T>>& stencil_impls();

inline double stencil_flops(const HeatedRoom& r, std::int64_t iterations) {
  return (r.dim == 3 ? 8.0 : 6.0) * static_cast<double>(r.interior()) *
         static_cast<double>(iterations);
}
template <class T>
double stencil_bytes(const HeatedRoom& r, std::int64_t iterations) {
  return 2.0 * sizeof(T) * static_cast<double>(r.interior()) * static_cast<double>(iterations);
}

// ---- time-tiled sweeps (cuda-timetile; mmjacobi --time-tile K) ------------------------------
//
// K sweeps a pass through memory: a pass reads the grid once and writes it once for up to K
// sweeps, the grid bit for bit that of K plain sweeps. A pass ends after K sweeps and at every
// checked iteration (jacobi_checks), whose change is that of the pass's last sweep; with
// CHECK_EVERY a multiple of K (what mmjacobi asks for) every pass but the last makes K sweeps.
// Work formula: flops as stencil_flops (8 a point a sweep: effective updates, the halo's
// recomputation not counted); bytes = passes * interior * 2*value, the traffic the passes make
// at least (each reads u once and writes it once; the halo's second reads come mostly from L2),
// a plain sweep of a check (--tune norm=plain) counted as one more pass.

// K at most for VALUE_BYTES-byte values (4 in double, 8 in single: the registers a level
// takes, kernels/cuda/timetile_plan.hpp), and the code's choice (the same in both precisions).
constexpr int stencil_time_tile_max(std::size_t value_bytes) {
  return value_bytes == 4 ? 8 : 4;
}
int stencil_time_tile_default();

// Sweeps of the pass that follows DONE sweeps: K, or fewer to end at the next checked
// iteration (a multiple of CHECK_EVERY, or MAX_ITER).
inline std::int64_t stencil_pass_sweeps(const JacobiStop& s, std::int64_t done, int k) {
  const std::int64_t next = std::min(s.max_iter, (done / s.check_every + 1) * s.check_every);
  return std::min<std::int64_t>(k, next - done);
}

// One pass of a run in passes (jacobi_lagged_passes): SWEEPS sweeps, the last of them iteration
// LAST (1-based), its change wanted (CHECK), and whether it writes the buffer it reads (IN_PLACE:
// a time-tiled pass in two launches, the result back where it started).
struct JacobiPass {
  std::int64_t sweeps = 1;
  std::int64_t last = 1;
  bool check = false;
  bool in_place = false;
};

// The loop of the engines that read their checks late (the GPU ones: one process, and each rank
// of a distributed run), stopping as jacobi_iterate does. STOP's iterations run from buffer 0 in
// passes of at most K sweeps (stencil_pass_sweeps; K = 1: one sweep a pass). IN_PLACE(pass):
// whether the pass writes its source buffer. QUEUE(src, pass, slot) queues it from buffer SRC (0
// or 1), its last sweep's squared change into SLOT (0 and 1 in turn over the checked passes; -1:
// not computed). READ(slot) waits for that change and returns it (on ranks: the whole grid's,
// collective). A change is read only where it can stop the run (with a tolerance, or at the last
// pass), and then only once the next pass is queued, so that the device sweeps while the host
// waits; first where that pass would overwrite the checked result in place. RESULT_BUF gets the
// buffer holding the result: where a change stops the run, the pass queued after it wrote the
// other buffer (or none was queued), so at most one pass past the stop is ever queued and the
// result is intact. Every caller taking its decisions from the same values takes the same path.
template <class InPlace, class Queue, class Read>
JacobiResult jacobi_lagged_passes(const JacobiStop& stop, int k, InPlace&& in_place, Queue&& queue,
                                  Read&& read, int& result_buf) {
  JacobiResult res;
  int cur = 0, checks = 0, last_slot = 0;
  bool pending = false;  // a checked pass whose change is read next
  std::int64_t pend_k = 0;
  int pend_slot = 0, pend_buf = 0;
  const auto settle = [&]() {  // the pending change read; true when it stops the run
    pending = false;
    res.norm = std::sqrt(read(pend_slot));
    if (!(res.norm <= stop.tol)) return false;
    res.iterations = pend_k;
    res.converged = true;
    result_buf = pend_buf;
    return true;
  };
  for (std::int64_t done = 0; done < stop.max_iter;) {
    JacobiPass p;
    p.sweeps = stencil_pass_sweeps(stop, done, k);
    done += p.sweeps;
    p.last = done;
    p.check = jacobi_checks(stop, done);
    p.in_place = in_place(p);
    if (pending && p.in_place && pend_buf == cur && settle()) return res;
    const int slot = checks & 1;  // never the pending one (the previous check's)
    queue(cur, p, p.check ? slot : -1);
    checks += p.check;
    if (!p.in_place) cur = 1 - cur;
    if (pending && settle()) return res;
    if (p.check) {
      last_slot = slot;
      if (stop.tol >= 0) pending = true, pend_k = done, pend_slot = slot, pend_buf = cur;
    }
  }
  if (stop.max_iter <= 0) return res;
  // The last pass is always checked; its change is read here (pending or not).
  res.iterations = stop.max_iter;
  res.norm = std::sqrt(read(last_slot));
  res.converged = stop.tol >= 0 && res.norm <= stop.tol;
  result_buf = cur;
  return res;
}

// The passes through memory that ITERATIONS sweeps made in passes of at most K: time-tiled
// ones, and plain sweeps (PLAIN_CHECKS: each checked pass's last sweep is a plain one).
struct StencilPasses {
  std::int64_t tiled = 0, plain = 0;
};
StencilPasses stencil_time_tile_passes(const JacobiStop& s, std::int64_t iterations, int k,
                                       bool plain_checks);
template <class T>
double stencil_time_tile_bytes(const HeatedRoom& r, const StencilPasses& p) {
  return 2.0 * sizeof(T) * static_cast<double>(r.interior()) *
         static_cast<double>(p.tiled + p.plain);
}

// One sweep each: U_NEW's interior from U_OLD (walls untouched); returns the squared change
// when NORM, else 0. Ref: a plain loop nest; cpu: OpenMP over the grid's rows, the innermost
// loop contiguous and vectorised, the change summed in the same pass in an order fixed by the
// grid alone (stencil_sweep_cpu_planes): the same norm bit for bit whatever the threads.
template <class T>
double stencil_sweep_ref(const HeatedRoom& r, const T* u_old, T* u_new, bool norm);
template <class T>
double stencil_sweep_cpu(const HeatedRoom& r, const T* u_old, T* u_new, bool norm);

// The cpu sweep of the planes [K0, K1) only (the slowest index: z in 3D, y in 2D), for a grid
// held in part, as a distributed run holds its slab: U_OLD and U_NEW point at plane FIRST
// (<= K0 - 1), and planes FIRST..K1 exist. PLANE_CHANGE, when not null, gets the squared change
// of each plane (K1 - K0 values): its rows' changes added in row order, each row's in 8 fixed
// lanes, so that a plane's sum depends on its values only, not on the threads or on where the
// buffers lie. stencil_sweep_cpu is this over every interior plane, the sums added in plane
// order by stencil_sum_planes: a run split in slabs (lib/dist) that adds the same plane sums
// in the same order gets the one-process norm bit for bit, and so the same iteration count.
template <class T>
void stencil_sweep_cpu_planes(const HeatedRoom& r, const T* u_old, T* u_new, std::int64_t first,
                              std::int64_t k0, std::int64_t k1, double* plane_change);
double stencil_sum_planes(const double* plane_change, std::int64_t count);

// The starting values of planes [FIRST, LAST) (the slowest index) into U, which points at plane
// FIRST: heated_room_init for a part of the grid.
template <class T>
void heated_room_init_planes(const HeatedRoom& room, T* u, std::int64_t first, std::int64_t last);

// The starting value of point (I, J, K) (2D: K = 0): 20 on the walls, 0 on y = -1 (J = 0, where
// walls meet too), 0 inside.
template <class T>
T heated_room_start(const HeatedRoom& r, std::int64_t i, std::int64_t j, std::int64_t k) {
  const std::int64_t n = r.n;
  const bool wall =
      i == 0 || i == n - 1 || j == 0 || j == n - 1 || (r.dim == 3 && (k == 0 || k == n - 1));
  return !wall || j == 0 ? T(0) : T(20);
}

// ---- a box of the grid (lib/dist's boxes) ------------------------------------------------------
//
// A part of the grid held in a buffer of its own: grid point (i, j, k) (2D: k = 0) at
// u[((k - z0) * sy + (j - y0)) * sx + (i - x0)], so (x0, y0, z0) is the buffer's first point,
// SX points a row and SY rows a plane. A box keeps one ghost layer around its points.
struct GridBox {
  std::int64_t x0 = 0, y0 = 0, z0 = 0;
  std::int64_t sx = 1, sy = 1;
  std::int64_t offset(std::int64_t i, std::int64_t j, std::int64_t k) const {
    return ((k - z0) * sy + (j - y0)) * sx + (i - x0);
  }
};

// A region of interior points [lo[a], hi[a]) along x, y, z (2D: z [0, 1)).
struct GridRegion {
  std::int64_t lo[3] = {1, 1, 0}, hi[3] = {1, 1, 1};
  std::int64_t rows() const { return (hi[1] - lo[1]) * (hi[2] - lo[2]); }
  bool empty() const { return hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]; }
};

// The squared change of a row is summed in kStencilLanes lanes: point i into lane
// (i - 1) % kStencilLanes, each lane in the order of i, the lanes added in lane order at the end
// (stencil_lane_sum). stencil_sweep_cpu_planes sums every row so.
inline constexpr int kStencilLanes = 8;
double stencil_lane_sum(const double* lanes);

// The cpu sweep of REGION of a box buffer (U_OLD and U_NEW laid out by BOX): the same values as
// stencil_sweep_cpu_planes. ROW_CHANGE, when not null, gets each row's squared change summed in
// lanes from zero, row (j, k) at ROW_CHANGE[(k - lo[2]) * LD + (j - lo[1])]: the one-process
// row sum when the region spans the row's interior (x from 1 to N - 2).
template <class T>
void stencil_sweep_cpu_box(const HeatedRoom& r, const GridBox& box, const T* u_old, T* u_new,
                           const GridRegion& region, double* row_change, std::int64_t ld);

// The squared change between U_OLD and U_NEW over REGION added on to kStencilLanes lanes a row
// (LANES: rows in the order (k, j), each row's lanes together), the lanes of a row split along
// x: continued by the box holding the next stretch of x, the last one's stencil_lane_sum is the
// one-process row sum bit for bit.
template <class T>
void stencil_change_lanes(const GridBox& box, const T* u_old, const T* u_new,
                          const GridRegion& region, double* lanes);

// Iterates SWEEP from the initial grid in two buffers swapped each iteration; U_A and U_B
// hold N^DIM values each, and the result is left in U_A. stencil_iterate sets both to the
// initial grid first; stencil_iterate_set takes them set (heated_room_init), so that a timed run
// is the sweeps' alone.
template <class T>
using StencilSweep = double (*)(const HeatedRoom&, const T*, T*, bool);
template <class T>
JacobiResult stencil_iterate(const HeatedRoom& r, StencilSweep<T> sweep, T* u_a, T* u_b,
                             const JacobiStop& stop);
template <class T>
JacobiResult stencil_iterate_set(const HeatedRoom& r, StencilSweep<T> sweep, T* u_a, T* u_b,
                                 const JacobiStop& stop);

}  // namespace mm
