// The launch shapes of the CUDA heated-room sweeps (kernels/cuda/jacobi.cu), planned on the
// host from the room, the GPU's size and the tuning (JacobiTuning): plain C++, no CUDA, so the
// rules are tested on any machine (tests/unit/test_jacobi.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "device.hpp"
#include "jacobi.hpp"
#include "mm/error.hpp"

namespace mm::stencil {

// Tuning. A block of the plain sweeps is 256 threads; the coalesced stencil lays them out as a
// 32 x 8 tile of (x, y), a warp along x (256 B of doubles per row). Its 3D tile marches along
// z through a chunk of planes; the chunks are cut so that the grid holds kWaves full waves of
// blocks (one wave: every multiprocessor full, 2048 threads each), enough loads in flight.
constexpr int kThreads = 256;
constexpr int kTileX = 32;
constexpr int kTileY = kThreads / kTileX;
constexpr int kWaves = 4;
constexpr std::int64_t kMaxGridYZ = 65535;
// Warps a block of the 3D marching sweep unless --tune warps=16. On the H200 (double, the
// change every sweep, fraction of the copy), 16 warps ran at 0.76 / 0.83 / 0.79 at N = 256 /
// 384 / 512; 8 warps at 0.79 at 512 in the same run, 0.81 / 0.82 at 256 / 384 in earlier ones.
constexpr int kMarchWarps = 8;
// Warps a block of the 2D marching sweep (fixed: its kernel is bounded for 32 * 4 threads).
constexpr int kMarch2Warps = 4;

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// A sweep's launch: the grid (2D sweeps leave gz 1), threads a block, and for the marching
// and 3D coalesced sweeps the planes (2D: rows) a block marches through and their count.
struct Launch {
  std::int64_t gx = 1, gy = 1, gz = 1;
  int threads = kThreads;
  int wx = 1;                     // 3D marching: warps side by side along x
  std::int64_t chunk = 1;         // planes (rows) a block marches through
  std::int64_t chunks = 1;        // chunks each column of tiles is cut into
  int ahead = 0;                  // 3D marching, one row a thread: JacobiTuning::ahead (1, 2, 3)
  int stages = 0;                 // ahead=tma: planes in a block's ring of shared-memory stages
  std::int64_t stage_values = 0;  // ahead=tma: values of one stage
  std::size_t shared = 0;         // dynamic shared memory of a block
  int order = 0;                  // 3D marching, one row a thread: JacobiTuning::order (1, 2)
  int l2 = 0;                     // ahead=tma: JacobiTuning::l2 (1, 2)
  std::int64_t blocks() const { return gx * gy * gz; }
};

// The heated room's geometry as plain data for the kernels. The marching sweeps with RANGE
// update the planes (2D: rows) [k_lo, k_hi) of the slowest index of their buffers, without it
// the whole grid's [1, N - 1) (a template flag, so that the whole grid's sweeps keep their
// registers: 2D took 40 instead of 32 with the bounds read at run time). A distributed run's
// slab (kernels/cuda/jacobi_slab.cu) is a buffer whose plane 0 is the grid's plane FIRST, so
// there the slowest index and the radiator's range along it (rz, 2D: ry) are the grid's less
// FIRST.
struct Room {
  std::int64_t n;
  std::int64_t rx0, rx1, ry0, ry1, rz0, rz1;
  std::int64_t k_lo, k_hi;
  // ahead=tma (march3t_sweep): the stages a block's ring holds and the values of one.
  int stages = 0;
  std::int64_t stage_values = 0;
};

// Where a marching sweep (stencil_march.cuh) puts its change, and the sum it makes for the
// sweep before it. Summed now (COUNTER set): the grid's last block to finish sums the blocks'
// partials into *SLOT (reduce_change). Deferred (COUNTER null): each block leaves its partial in
// PARTIALS, and the next launch on the stream sums them: a sweep given BEFORE (the partials of
// the sweep before, whose grid was its own: one a block) sums them into *BEFORE_SLOT in its
// first block, once that sweep has finished (launch_sum_change where no sweep follows). The
// sum's order is the same either way (a block of the sweep's threads), so are its bits.
struct Change {
  double* slot = nullptr;
  double* partials = nullptr;
  unsigned* counter = nullptr;
  const double* before = nullptr;
  double* before_slot = nullptr;
};

// The kernels' view of room R: its heater box, and all its interior planes (rows in 2D) as
// the range a RANGE sweep takes.
inline Room room_of(const HeatedRoom& r) {
  return {r.n, r.rx.lo, r.rx.hi, r.ry.lo, r.ry.hi, r.rz.lo, r.rz.hi, 1, r.n - 1, 0, 0};
}

// ROOM as launch L's kernel takes it (its ring of stages, where L loads by TMA).
inline Room room_for(Room room, const Launch& l) {
  room.stages = l.stages;
  room.stage_values = l.stage_values;
  return room;
}

// How the 3D marching sweep of one row a thread issues its loads (JacobiTuning::ahead). The
// code's choice differs by device. H100, double, the change every sweep, fraction of the copy
// at N = 256 / 384 / 512 / 768: off 0.79 / 0.85 / 0.74 / 0.63, regs 0.85 / 0.87 / 0.86 / 0.81
// (single: 0.76 / 0.82 / 0.78 / 0.71 against 0.79 / 0.89 / 0.86 / 0.84;
// bench/results/jacobi_plain_h100_2026-11-25_23b6837.md). Without it the rows beside a thread's
// (loaded by the blocks beside) were fetched from DRAM again: ncu at N = 768 counted 1.6 times
// the sweep's least bytes (1.0 with it). The H200, in the same call for both: off 0.83 / 0.84 /
// 0.81 / 0.72, regs 0.75 / 0.77 / 0.80 / 0.70 (single: off 0.73 / 0.84 / 0.87 / 0.80, regs
// 0.68 / 0.80 / 0.78 / 0.75): with 1.4 times the H100's bytes a clock per multiprocessor, the
// extra registers' cost in resident blocks outweighs the loads they hide. So: regs, but off
// where memory is rich (device.hpp's gpu_memory_rich: H200 yes, H100 no). In double, where the
// rows are of 16-byte vectors, tma (the copy engine into shared memory, stencil_march_tma.cuh)
// beat both on both GPUs at its own block shape and ring (tma_warps, tma_stages): H100 0.89 /
// 0.95 / 0.94 / 0.90 (regs 0.85 / 0.87 / 0.86 / 0.81 in the same call), H200 0.83 / 0.92 / 0.89
// / 0.83 (off 0.83 / 0.85 / 0.83 / 0.72) (bench/results/jacobi_tma_2026-11-25_a904a59.md). In
// single it lost at one or two sizes of four on each until consecutive sweeps overlapped
// (launch_march, no event between checked sweeps) and the order alternated: since, H100 tma
// 0.90 / 0.89 / 0.95 / 0.86 against regs 0.84 / 0.91 / 0.87 / 0.84 (0.90 / 0.96 / 0.95 / 0.87
// with single's kernel bounded at kTmaSingleRegisters); H200 tma 0.81 / 0.81 / 0.88 / 0.78
// (unbounded) against off 0.77 / 0.83 / 0.85 / 0.80 in the same call
// (bench/results/jacobi_overlap_2026-11-25_882de66.md), bounded 0.82 / 0.91 / 0.89 / 0.81-0.84
// (bench/results/issue16_fifth_pass_2026-11-25_6e43d85.md). So tma wherever the rows are of
// 16-byte vectors.
enum class Ahead { off = 1, regs = 2, tma = 3 };
// The way of loading for values of VALUE_BYTES bytes in vectors of VEC: tma only where a
// vector is 16 bytes (else the device's choice between off and regs).
inline Ahead march_ahead(const JacobiTuning& t, std::size_t value_bytes, int vec) {
  const Ahead plain = gpu_memory_rich() ? Ahead::off : Ahead::regs;
  const bool sixteen = static_cast<std::size_t>(vec) * value_bytes == 16;
  if (t.ahead) return t.ahead == 3 && !sixteen ? plain : static_cast<Ahead>(t.ahead);
  return sixteen ? Ahead::tma : plain;
}
// The L2 policy of the tma sweep's stage loads (JacobiTuning::l2: 1 normal, 2 last) unless --tune
// l2=P, for ROOM's grids of VALUE_BYTES values on a GPU with L2_BYTES of L2, RICH its memory
// (gpu_memory_rich), ZIGZAG the launch's order (march_zigzag). A block loads its rows and the
// row beside each end, so every row is loaded by three blocks, at about the same time where they
// march in step; evict_last keeps those loads in L2 ahead of the results written beside them,
// which no block reads in this sweep. It wins where blocks march long chunks: the change every
// sweep, H200, the code's choice (last) / normal in one run, fraction of the copy, double N = 384
// 0.951 / 0.934, 512 0.941 / 0.909, 768 0.858-0.861 / 0.837; single 384 0.937 / 0.931, 512 0.924
// / 0.907, 768 0.843-0.845 / 0.834. Where the order is zigzag (chunks of 64 planes or fewer: N =
// 224-320 here) or a grid is not much larger than the L2, a sweep's start and its chunks' ends
// read what the sweep before wrote last, and there the results should stay in L2: last lost or
// tied, double 256 0.931-0.933 / 0.939 (its change at the last sweep 0.950 / 0.935), 320 0.841-
// 0.843 / 0.851, 224 and 288 within 0.005; single 256 0.856-0.857 / 0.873 (67 MB grids, 1.3 times
// the L2), 224 0.756 / 0.782-0.820, 320 0.793 / 0.802
// (bench/results/issue16_thirtyninth_pass_*.md). The H100 is not measured: normal there.
constexpr double kL2LastGridOverL2 = 2;
inline int march_l2(const JacobiTuning& t, const HeatedRoom& room, std::size_t value_bytes,
                    bool rich, std::int64_t l2_bytes, bool zigzag) {
  if (t.l2) return t.l2;
  const double grid = static_cast<double>(room.points()) * static_cast<double>(value_bytes);
  const bool large = l2_bytes > 0 && grid > kL2LastGridOverL2 * static_cast<double>(l2_bytes);
  return rich && large && !zigzag ? 2 : 1;
}

// Registers a thread of the tma sweep in single precision at most: two blocks of 18 warps
// (tma_warps at N = 384 and 768) resident a multiprocessor (65536 / 1152 = 56.9); unbounded,
// ptxas took 58-60 and one block fitted (on the H200, 6 blocks of 6 warps at N = 384 against
// 5: 0.91-0.92 of the copy against 0.81). In double the sweep stays unbounded: a cap of 56 cost
// 0.03-0.10 of the copy there (H100; bench/results/jacobi_overlap_2026-11-25_882de66.md).
constexpr int kTmaSingleRegisters = 56;
// Warps a block of the tma sweep (WX of them side by side along x) unless --tune warps=W. H100
// (double, fraction of the copy at N = 256 / 384 / 512 / 768; WX 4 / 6 / 8 / 12): 3 stages, 8
// warps 0.84 / 0.71 / 0.77 / 0.67, 16 0.89 / 0.85 / 0.94 / 0.68, 32 0.86 / 0.89 / 0.91 / 0.83;
// 4 stages, 32 warps 0.82 / 0.92 / 0.87 / 0.90. The best at each size is a block of at least
// 16 warps in whole rows (16 / 30 / 16 / 24 warps): the rows beside a block, read twice, are
// fewer in a taller block. The H200 (3 stages) 8 warps 0.83 / 0.92 / 0.89 / 0.83, 16 0.79 / 0.90 /
// 0.86 / 0.83, 32 0.75 / 0.79 / 0.82 / 0.74: there 8 (its richer memory wants the most blocks
// resident, hence bytes in flight; but see march_tall_wins). Blocks narrower than a row (one copy a
// row instead of one a stage, fewer rows beside a block) lost on the H200 at every size, 0.53-0.86
// of the copy against 0.82-0.95 (bench/results/issue16_tenth_pass_2026-11-28_ec5992a.md): whole
// rows it is.
// In single precision on the H200, rows of 6 warps (N = 768) go two a block (12 warps): 0.830 /
// 0.831 of the copy against one row's 0.792 / 0.792, alternating in one run (at the same 36
// warps a multiprocessor, 3 blocks of 12 against 6 of 6, fewer rows read twice); in double there
// one row is 12 warps already, and two (one block a multiprocessor) ran 0.824 against 0.835
// (bench/results/issue16_thirtysecond_pass_2026-11-30_e5c6037.md). The rule itself, two calls
// alternating with main 4d83c2e in one run: 0.831 / 0.831 against 0.806 / 0.788 at 768, the
// other sizes within 0.004 (bench/results/issue16_thirtythird_pass_2026-11-30_f2deda3.md). Rows
// wider than 6 warps (single past N = 768) take the same two rows, unmeasured.
inline int tma_warps(int wx, std::size_t value_bytes = 8) {
  if (gpu_memory_rich()) return value_bytes == 4 && wx >= 6 ? std::min(32, 2 * wx) : 8;
  const int rows = std::max(1, (16 + wx - 1) / wx);
  return std::min(32, wx * rows);
}
// Stages a ring unless --tune stages=S, for PER_SM blocks resident a multiprocessor at 3: the
// H100 ran 16 warps (2 blocks resident) fastest at 3 stages (4: 0.82 / 0.78 / 0.76 / 0.62 at N =
// 256..768) and 24-32 warps (one block) at 4 (see tma_warps): two planes in flight a
// multiprocessor.
inline int tma_stages(int per_sm) {
  return per_sm <= 1 ? 4 : 3;
}

// The 3D marching sweeps' direction along z (JacobiTuning::order) unless --tune order=O:
// alternate on both GPUs, where marching down keeps the blocks resident (plan_march_rows). A
// sweep that starts on the planes the last one wrote finds some of them in L2, which counts
// where the grid is not much larger than L2. Every sweep checked, fraction of the copy at N =
// 256 / 384 / 512 / 768, the code's choice against up in the same call (at 384, and at 768 on
// the H200, in double, the choice is up): H100 double 0.946 / 0.955 / 0.946 / 0.906 against
// 0.922 / 0.953 / 0.933 / 0.900, single 0.896 / 0.889 / 0.946 / 0.853 against 0.854 / 0.877 /
// 0.938 / 0.855; H200 double 0.883 / 0.932 / 0.894 / 0.849 against 0.869 / 0.929 / 0.896 / 0.843
// (bench/results/jacobi_overlap_2026-11-25_882de66.md).
inline int march_order(const JacobiTuning& t) {
  return t.order ? t.order : 2;
}
// Whether launch L's sweep of ITERATION (1-based) marches down: the even ones where the order
// alternates (so that cuda-norm and cuda-timetile's plain sweeps, planned alike, sum the same
// change).
inline bool march_down(const Launch& l, std::int64_t iteration) {
  return l.order >= 2 && iteration % 2 == 0;
}
// Whether launch L's stage loads are evicted last from L2 (l2=last; the tma sweep only): a kernel
// of its own (march3t_sweep's L2LAST), so that the others keep their registers.
inline bool march_l2_last(const Launch& l) {
  return l.l2 == 2;
}
// Whether launch L's odd chunks march the other way (order=zigzag; the tma sweep only).
inline bool march_zigzag(const Launch& l) {
  return l.order == 3;
}
// The planes a chunk of the zigzag order marches at most where it is the code's choice.
constexpr std::int64_t kZigzagMostPlanes = 64;
// Whether the code takes order=zigzag for the tma sweep planned as Z (with the zigzag kernels'
// occupancy), asked on a memory-rich GPU only (plan_march_rows): where a column is cut into
// chunks of kZigzagMostPlanes planes or fewer. Two chunks meeting at a boundary read the planes
// beside it at once, so a chunk of C planes reads C rather than C + 2 from memory: the shorter the
// chunk, the more that saves. H200, fraction of the copy, the change every sweep, default / zigzag
// twice each in one run (branch jacobi-zigzag 9a06328): N = 256 double 0.902 / 0.903 against 0.926
// / 0.927 (zigzag's kernels hold 5 blocks a multiprocessor, so 5 chunks of 51 planes against 4 of
// 64), single 0.861 / 0.861 against 0.880 / 0.880 (8 chunks of 32); 384 single (4 of 95) 0.926
// either way, 384 double (2 of 191, up) 0.935 against 0.931, 512 single (2 of 254) 0.905 either way
// (bench/results/issue16_thirtythird_pass_2026-11-30_f2deda3.md). The rule itself against main
// 4d83c2e, twice each alternating in one call: 256 double 0.926 / 0.925 against 0.903 / 0.902,
// single 0.878 / 0.878 against 0.861 / 0.862, the other sizes unchanged. More, shorter chunks
// (more waves) lost with zigzag too: at 256, 16 chunks 0.79-0.80; at 384, 6-12 chunks 0.83-0.90.
// The H100 is not measured: there the order stays as march_order has it.
inline bool zigzag_wins(const Launch& z) {
  return z.order == 3 && z.chunks > 1 && z.chunk <= kZigzagMostPlanes;
}

// ahead=tma: a block's stage holds its rows, the row beside each end, and this many bytes
// beyond its points each side along x (the end points' neighbours; 128 so that each row's copy
// starts on a line where the rows do). A ring of S stages: two planes read at a step, S - 2 in
// flight.
constexpr int kTmaHaloBytes = 128;

// Values of one stage of a block of WX x WY warps, VEC values a lane of VALUE_BYTES each.
inline std::int64_t tma_stage_values(std::int64_t n, int vec, std::size_t value_bytes, int wx,
                                     int wy) {
  const std::int64_t halo = kTmaHaloBytes / static_cast<std::int64_t>(value_bytes);
  return (wy + 2) * std::min<std::int64_t>(n, std::int64_t{wx} * 32 * vec + 2 * halo);
}

// The vector width of the marching sweeps: the widest (8 or 16 bytes) whose count of values
// divides N, so that every row starts aligned.
inline int march_vector(std::size_t value_bytes, std::int64_t n) {
  return value_bytes == 4 && n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
}

// Chunks of planes (rows in 2D) each column of TILES tiles is cut into, at most MOST, for
// RESIDENT block slots: REQUESTED when > 0 (--tune chunks=C), else the wave-fill rule: the
// fewest whose blocks fill their waves to 95% or more (up to four waves), else the best
// filling found, so that no slot idles for the whole sweep (at N = 512 in double one chunk
// left 510 blocks on 792 slots).
inline std::int64_t march_chunks(std::int64_t tiles, std::int64_t resident, std::int64_t most,
                                 int requested) {
  if (requested > 0) return std::min<std::int64_t>(requested, most);
  std::int64_t best = 1;
  double best_fill = 0;
  for (std::int64_t c = 1; c <= most && (c == 1 || tiles * c <= 4 * resident); ++c) {
    const std::int64_t blocks = tiles * c, waves = ceil_div(blocks, resident);
    const double fill = static_cast<double>(blocks) / static_cast<double>(waves * resident);
    if (fill >= 0.95) return c;
    if (fill > best_fill) best = c, best_fill = fill;
  }
  return best;
}

// Whether a plan of 32-warp blocks replaces the device's default block (tma_warps) of the tma
// sweep: on a memory-rich GPU, where its blocks, each resident on a multiprocessor alone, fill
// one wave to 95% or more, each marching at least half a column (at most 2 chunks). The default
// there is a block of 8 warps, one row in double at N = 512, which reads each row three times
// through the L2 (as its own and as the rows beside the blocks beside); a block of 4 rows reads
// it 1.5 times. Short marches pay for the ring's fill at each chunk's start, more waves for
// their ramps. H200, fraction of the copy, the change every sweep, main 6b36306 in one call,
// default / warps=32 at N = 256 / 384 / 512 / 768: double 0.902 / 0.931 / 0.890 / 0.830 against
// 0.902 / 0.895 / 0.908 / 0.824, single 0.860 / 0.923 / 0.883 / 0.800 against 0.826 / 0.854 /
// 0.905 / 0.804 (bench/results/issue16_thirtyfirst_pass_2026-11-30_15e7a15.md). The 32-warp
// plans on 132 multiprocessors: at 512, 128 blocks in one wave (one chunk a column in double,
// two in single); at 256 one wave too, but of 4 (double) and 8 (single) chunks a column; at 384
// and 768 more than one wave. Only where this rule holds did 32 warps win, in both precisions.
// The H100's default blocks are already 16-32 warps tall (tma_warps). The rule itself on the
// H200, two calls of each alternating in one run, at N = 512 every sweep: double 0.907 / 0.907
// against main e5c6037's 0.892 / 0.892, single 0.905 / 0.904 against 0.885 / 0.886; at 256, 384
// and 768 the same plans as before, within 0.005
// (bench/results/issue16_thirtysecond_pass_2026-11-30_e5c6037.md).
inline bool march_tall_wins(const Launch& tall, std::int64_t resident) {
  const std::int64_t blocks = tall.blocks();
  return tall.chunks <= 2 && blocks <= resident && 100 * blocks >= 95 * resident;
}

// Whether the 32-warp plan TALL (TALL_RESIDENT block slots) also replaces the default plan L
// (L_RESIDENT slots) of the tma sweep of rows of N values of VALUE_BYTES, off march_tall_wins's
// one wave, asked on a memory-rich GPU only (plan_march): where TALL's blocks march half a column
// or more (at most 2 chunks) and either hold as many warps resident as L's (the same bytes in
// flight, fewer rows read twice), or L's blocks are one row each of rows off the 128-byte lines.
// The four sizes the plans were tuned at hold more warps in L's blocks and have their rows on the
// lines, and keep them. Off them the default had fallen to 0.60-0.79 of the copy: ncu at N = 764 in
// double (one row of 6112 bytes a block) counted the sweep's DRAM reads at 1.94 times the least
// (the rows beside, fetched again), two rows a block 1.03 (at 768 one row: 1.03). H200, the
// change every sweep, main 8acf718 against this rule in one call, fraction of the copy
// (bench/results/issue16_thirtyfourth_pass_2026-11-30_8acf718.md): double N = 640 0.797 /
// 0.835, 760 0.652 / 0.824, 764 0.602 / 0.814, 772 0.725 / 0.807, 776 0.734 / 0.817, 832
// 0.694 / 0.730; single 772 0.707 / 0.780, 776 0.709 / 0.783, 832 0.658 / 0.744, 1024 0.704 /
// 0.716. Where it loses: 1024 in double (32 warps either way), 0.761 / 0.742. Kept: 768 (36
// warps a multiprocessor against 24; warps=32 ran 0.824 against 0.835), 384 in double (36
// against 30: 0.895 against 0.933), 764 in single (two rows a block already: 0.758 against
// 0.788).
inline bool march_tall_holds(const Launch& l, std::int64_t l_resident, const Launch& tall,
                             std::int64_t tall_resident, std::int64_t n, std::size_t value_bytes) {
  if (tall.chunks > 2) return false;
  const bool as_many = tall_resident * tall.threads >= l_resident * l.threads;
  const bool one_row_off_line =
      l.threads == 32 * l.wx && n * static_cast<std::int64_t>(value_bytes) % 128 != 0;
  return as_many || one_row_off_line;
}

// The marching sweep (cuda-norm*) of ROOM with VEC values of VALUE_BYTES a vector, RY rows of y a
// thread (3D), COL for one warp along x (march_col); SMS multiprocessors, PER_SM(threads, shared)
// the blocks of that many threads resident on one (the kernel's occupancy). One wave: every block
// resident at once, each marching one chunk of planes (rows in 2D); the two planes before a
// chunk are the only ones read twice. PLANES: the planes (2D: rows) a launch updates, when not
// all N - 2 (a distributed run's slab, kernels/cuda/jacobi_slab.cu).
template <class PerSm>
Launch plan_march(const HeatedRoom& room, int vec, std::size_t value_bytes, int ry, bool col,
                  const JacobiTuning& t, std::int64_t sms, PerSm&& per_sm,
                  std::int64_t planes = -1) {
  if (t.warps != 0 && t.warps != 8 && t.warps != 16 && t.warps != 32)
    throw std::invalid_argument("JacobiTuning::warps must be 0, 8, 16 or 32, not " +
                                std::to_string(t.warps));
  const std::int64_t n = room.n, m = n - 2;
  const std::int64_t span = planes >= 0 ? planes : m;
  // Warps side by side along x (at most 8 a block; 16 by TMA) to cover whole rows, the rest
  // of the block's warps along y; march_col: one warp along x, the rest along y. 32 warps a
  // block by TMA only (the other sweeps are bounded for 16).
  const Ahead ahead = march_ahead(t, value_bytes, vec);
  const bool tma = room.dim == 3 && ry == 1 && !col && ahead == Ahead::tma;
  const std::int64_t row_warps = ceil_div(n, 32 * std::int64_t{vec});
  const std::int64_t gx = col ? row_warps : ceil_div(row_warps, tma ? 16 : 8);
  const int wx = static_cast<int>(ceil_div(row_warps, gx));
  // The plan of blocks of WARPS warps (3D), and the block slots of the GPU for it.
  const auto plan = [&](int warps, std::int64_t& resident) {
    Launch l;
    if (room.dim == 3) {
      l.gx = gx;
      l.wx = wx;
      const int wy = std::max(1, warps / l.wx);
      l.threads = 32 * l.wx * wy;
      l.gy = ceil_div(m, std::int64_t{wy} * ry);
      if (l.gy > kMaxGridYZ) throw DeviceError("--poisson3d grid too large for the CUDA tiling");
      if (ry == 1) l.ahead = static_cast<int>(ahead);
      if (ry == 1 && !col) l.order = march_order(t) == 3 && !tma ? 2 : march_order(t);
      if (tma) {
        l.stage_values = tma_stage_values(n, vec, value_bytes, l.wx, wy);
        const auto ring = [&](int stages) {
          return static_cast<std::size_t>(stages) *
                 (static_cast<std::size_t>(l.stage_values) * value_bytes + 8);
        };
        l.stages = t.stages ? t.stages : tma_stages(per_sm(l.threads, ring(3)));
        l.shared = ring(l.stages);
        // As given where the caller resolved it (plan_march_rows, for its kernels).
        l.l2 = march_l2(t, room, value_bytes, gpu_memory_rich(), gpu_l2_bytes(), l.order == 3);
      }
    } else {
      l.threads = 32 * kMarch2Warps;
      l.gx = ceil_div(n, std::int64_t{l.threads} * vec);
    }
    resident = std::max<std::int64_t>(1, per_sm(l.threads, l.shared)) * sms;
    l.chunk =
        ceil_div(span, march_chunks(l.gx * l.gy, resident, std::min(span, kMaxGridYZ), t.chunks));
    l.chunks = ceil_div(span, l.chunk);  // no empty chunk at the end
    (room.dim == 3 ? l.gz : l.gy) = l.chunks;
    return l;
  };
  std::int64_t resident = 0;
  if (t.warps) return plan(tma ? t.warps : std::min(t.warps, 16), resident);
  const Launch l = plan(tma ? tma_warps(wx, value_bytes) : kMarchWarps, resident);
  if (!tma || !gpu_memory_rich()) return l;
  const std::int64_t l_resident = resident;
  const Launch tall = plan(32, resident);
  return march_tall_wins(tall, resident) ||
                 march_tall_holds(l, l_resident, tall, resident, n, value_bytes)
             ? tall
             : l;
}

// The naive sweep: a thread per interior point.
inline Launch plan_naive(const HeatedRoom& room) {
  Launch l;
  l.gx = ceil_div(room.interior(), kThreads);
  return l;
}

// The coalesced and partials sweeps: 32 x 8 tiles of (x, y); in 2D the grid strides along y
// past 65535 tiles, in 3D each column of tiles is cut into chunks of planes for kWaves waves of
// SMS multiprocessors.
inline Launch plan_tiled(const HeatedRoom& room, std::int64_t sms) {
  const std::int64_t m = room.n - 2;
  Launch l;
  l.gx = ceil_div(m, kTileX);
  if (room.dim == 2) {
    l.gy = std::min(ceil_div(m, kTileY), kMaxGridYZ);
    return l;
  }
  l.gy = ceil_div(m, kTileY);
  if (l.gy > kMaxGridYZ) throw DeviceError("--poisson3d grid too large for the CUDA tiling");
  const std::int64_t wave = sms * (2048 / kThreads);
  const std::int64_t chunks =
      std::clamp<std::int64_t>(ceil_div(kWaves * wave, l.gx * l.gy), 1, std::min(m, kMaxGridYZ));
  l.chunk = ceil_div(m, chunks);
  l.chunks = l.gz = ceil_div(m, l.chunk);  // no empty chunk at the end
  return l;
}

// --tune plan=search (cuda-norm, kernels/cuda/jacobi.cu): the plans tried, each timed on the GPU
// at upload. The plain sweep's best plan off the tuned sizes is rugged: on the H200 at N =
// 192-352 neighbouring plans differ by up to 0.2 of the copy, the wave-fill rule's plan lost 3-14%
// to the best found (double 288 0.833 against 0.903, 320 0.85 against 0.95, single 320 0.80
// against 0.90), and no rule tried ordered them; the best found were 3 or 4 stages with 2-11
// chunks (bench/results/issue16_fiftyfirst_pass_2026-12-03_cc424bf.md). So the candidates are
// the rule's plan (T as given: first, the one kept on a tie) and, for each key T leaves to the
// code, 3 or 4 stages by the rule's chunks or 1..kSearchMostChunks (a key given is kept).
constexpr int kSearchMostChunks = 8;
inline std::vector<JacobiTuning> plan_candidates(const JacobiTuning& t) {
  std::vector<JacobiTuning> c{t};
  const std::vector<int> stages = t.stages ? std::vector<int>{t.stages} : std::vector<int>{3, 4};
  std::vector<int> chunks{t.chunks};
  if (!t.chunks)
    for (int k = 1; k <= kSearchMostChunks; ++k) chunks.push_back(k);
  for (const int s : stages)
    for (const int k : chunks) {
      JacobiTuning x = t;
      x.stages = s;
      x.chunks = k;
      c.push_back(x);
    }
  return c;
}
// Whether launches A and B run the same sweep (plan_candidates's tunings may plan alike: the
// stages of a sweep that does not load by TMA, chunks beyond the planes).
inline bool same_plan(const Launch& a, const Launch& b) {
  return a.gx == b.gx && a.gy == b.gy && a.gz == b.gz && a.threads == b.threads &&
         a.chunk == b.chunk && a.ahead == b.ahead && a.stages == b.stages && a.order == b.order &&
         a.l2 == b.l2;
}
// A search's sweeps a plan: kSearchRuns timed runs of kSearchSweeps sweeps each after one
// untimed, the plan's time their median; kept over the rule's plan (SECONDS[0]) where faster by
// kSearchMargin (the bench's rounds of one plan agree within 0.001-0.008 of the copy).
constexpr int kSearchRuns = 3;
constexpr int kSearchSweeps = 8;
constexpr double kSearchMargin = 0.01;
inline std::size_t plan_chosen(const std::vector<double>& seconds) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < seconds.size(); ++i)
    if (seconds[i] < seconds[best]) best = i;
  return best && seconds[best] < (1 - kSearchMargin) * seconds[0] ? best : 0;
}

// The tuning a marching launch L of a DIM-dimensional room used (warps: 3D only).
inline JacobiTuning march_tuning(const Launch& l, int dim) {
  JacobiTuning used;
  if (dim == 3)
    used.warps = l.threads / 32, used.ahead = l.ahead, used.stages = l.stages, used.order = l.order,
    used.l2 = l.l2;
  used.chunks = static_cast<int>(l.chunks);
  return used;
}

}  // namespace mm::stencil
