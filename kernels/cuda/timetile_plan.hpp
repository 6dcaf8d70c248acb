// The launch shape of the time-tiled heated-room sweep (cuda-timetile, kernels/cuda/
// jacobi_timetile.cu), planned on the host from the room, the levels and the GPU's size: plain
// C++, no CUDA, so the rules are tested on any machine (tests/unit/test_timetile_plan.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "jacobi.hpp"
#include "mm/error.hpp"

namespace mm::timetile {

// A block of 512 threads owns a tile of 64 x H points of (x, y), its halo included, and marches
// along z through one chunk of planes. A thread holds W consecutive points of x (W = 1 or 2) in
// each of R rows of y: 64 / W threads along x, 512 W / 64 along y, H = 512 W R / 64 rows. L
// levels (sweeps) a pass: the points within L of the tile's edge are the halo, recomputed by the
// neighbouring tiles, so a tile writes (64 - 2L) x (H - 2L) points of each plane. Wide tiles
// waste less: at L = 2 in double (W = 1, R = 8) 60 x 60 of 64 x 64 points are written (1.14
// computed a written point). A wall needs no halo: it holds its value at every level, so the
// first and the last tile along each axis write up to the wall on that side (Axis).
constexpr int kTileX = 64;
constexpr int kThreads = 512;
constexpr std::int64_t kMaxGridYZ = 65535;
constexpr std::int64_t kMaxGridX = 2147483647;

// The shape's rules below serve both the host's plan and the kernel's constants.
#ifdef __CUDACC__
#define MM_TIMETILE_HD __host__ __device__
#else
#define MM_TIMETILE_HD
#endif

// Levels a pass at most: each level keeps one plane of the thread's W R points in registers
// (L W R values, twice the registers in double) and three centre values sliding along y, within
// the 128 registers a thread that one block of 512 threads a multiprocessor allows.
constexpr int max_levels(std::size_t value_bytes) {
  return stencil_time_tile_max(value_bytes);
}

// Whether the sweep of L levels pins the thread's masks (stencil_timetile.cuh): opaque to the
// compiler once computed, so that it keeps each in one register. Unpinned, the front end may
// remake them from the thread's indices at every step (PTX: single K = 2 without the change, the
// step 595 instructions, pinned 488), or keep them and leave ptxas less room. Where pinning won,
// H200, fraction of the copy bound at N = 256 / 384 / 512 / 768 in one call
// (bench/results/issue16_twentyseventh_pass_*.md): double K = 2 1.02 / 1.22 / 1.29 / 1.28 against
// 0.89 / 1.05 / 1.13 / 1.16; single K = 4 without the change 1.09 / 1.37 / 1.26 / 1.30 against
// 0.90 / 1.13 / 1.04 / 1.12 (with it 0.98 / 1.28 / 1.18 / 1.24 either way). It lost in double at
// K = 4 (1.22 / 1.56 / 1.54 / 1.54 against 1.24 / 1.58 / 1.56 / 1.58) and was even at K = 3.
MM_TIMETILE_HD constexpr bool pinned_masks(std::size_t value_bytes, int levels) {
  return value_bytes == 8 ? levels == 2 : levels == 4;
}

// How the sweep with the change (and the masks: single, or 4 levels) sums it: where
// selected_change, each point of the step's last level adds the change of a value chosen between
// its update (where written) and its old value (elsewhere, so +0: the same sums, bit for bit,
// the shared planes starting at 0 so that every value is finite: timetile3_sweep),
// rather than adding only where written. H200, fraction of the copy bound at N = 256 / 384 / 512
// / 768 (bench/results/issue16_twentyseventh_pass_*.md): in one call, double K = 4 1.27 / 1.64 /
// 1.61 / 1.63 against 1.23 / 1.57 / 1.55 / 1.57, single K = 4 1.03 / 1.34 / 1.23 / 1.28 against
// 0.98 / 1.28 / 1.17 / 1.24; against the call before, single K = 2 0.78 / 0.97 / 1.05 / 1.06
// against 0.77 / 0.96 / 1.03 / 1.05, and single K = 3 lost (0.89 / 1.08 / 1.18 against 0.91 /
// 1.10 / 1.20 at N = 256 / 384 / 512).
MM_TIMETILE_HD constexpr bool selected_change(int levels) {
  return levels == 2 || levels == 4;
}

// The sums a thread keeps the change in (stencil_timetile.cuh's march_column), each of W POINTS
// a thread's points of x where more than one: point e's squares go to sum e, and the sums join
// the block's change at the column's end. A step's last level then adds its W R squares in W
// chains of R dependent double adds, not one chain of W R. The order of the adds changes, so the
// norm is cuda-norm's within rounding (as the fused change already was), the grid the same bit
// for bit. H200, K = 4, the change every 4, fraction of the single-sweep copy bound at N = 256 /
// 384 / 512 / 768, against main cc424bf in two calls (bench/results/issue16_fiftyfirst_pass_*.md):
// single (W = 2) 1.155-1.156 / 1.495-1.503 / 1.519 / 1.614-1.616 against 1.144-1.145 / 1.480-1.486
// / 1.501 / 1.600-1.603; double at W = 2 lost, 1.326 / 1.652 / 1.816 / 1.846 against 1.379 /
// 1.721 / 1.888 / 1.917 (its registers are the tighter), so it keeps one sum.
MM_TIMETILE_HD constexpr int change_sums(std::size_t value_bytes, int points) {
  return value_bytes == 4 ? points : 1;
}

// The points a thread holds at L levels. Two along x (W = 2) move a pair as one access in
// shared memory (16 bytes in double), and in global memory where N is even (tiles then start on
// even x: x_first), halving the loads, stores and index arithmetic a point. Fraction of the
// single-sweep copy bound at N = 256 / 384 / 512 / 768, W = 2 against W = 1 in one call
// (bench/results/issue16_eighth_pass_*.md): double K = 4 H100 1.54 / 1.90 / 1.91 / 1.99
// against 1.33 / 1.59 / 1.61 / 1.67, H200 1.09 / 1.34 / 1.35 / 1.40 against 0.96 / 1.16 / 1.17
// / 1.22; K = 3 gained as much, single K = 2 and 3 0.07-0.18, K = 4 -0.02 to +0.08. At 2 levels in
// double W = 2 (R = 4) spills and W = 1 (R = 8) ran 1.1-1.2x as fast; in single W = 2 won at K = 5
// (H100 1.12-1.34 against 1.02-1.23) and lost at 6 and 8 (0.60-0.79 against 0.98-1.22 at 8: R = 2
// leaves 16 of 32 rows written), so beyond 4 levels single keeps W = 1. R: 8 rows of W = 1 where
// the registers allow (the squarest tile, the least halo), fewer as the levels grow (ptxas: at most
// 128 registers; single at 5 to 8 levels spills 24-72 bytes); W = 2 takes half the rows for the
// same tile. With N even (EVEN: the pairs one access in memory too) double at 4 levels takes
// R = 3, 64 x 48 tiles (of 64 x 32: less halo; 213 KB of shared memory, ptxas spills 8 bytes):
// H100 1.54 / 1.93 / 2.16 / 2.06 against 1.52 / 1.88 / 1.89 / 1.96, H200 1.09 / 1.36 / 1.52 /
// 1.46 against 1.08 / 1.34 / 1.35 / 1.40; with N odd (52 bytes spilled) it lost, H200 at N =
// 255..767 0.77 / 0.96 / 1.07 / 1.02 against 1.00 / 1.20 / 1.22 / 1.26.
struct Shape {
  int points = 1, rows = 8;  // W, R
  MM_TIMETILE_HD constexpr int threads_x() const { return kTileX / points; }
  MM_TIMETILE_HD constexpr int threads_y() const { return kThreads / threads_x(); }
  MM_TIMETILE_HD constexpr int tile_y() const { return threads_y() * rows; }
  // A shared row: the tile's 64 points and W border points a side (a pair stays aligned).
  MM_TIMETILE_HD constexpr int shared_row() const { return kTileX + 2 * points; }
  // Points a tile writes along x at L levels (its halo of L points a side recomputed by the
  // tiles beside), and so the step from one tile to the next (the first and the last write up to
  // the wall: Axis).
  static MM_TIMETILE_HD constexpr int out_x(int levels) { return kTileX - 2 * levels; }
  // Rows a tile writes along y.
  MM_TIMETILE_HD constexpr int out_y(int levels) const { return tile_y() - 2 * levels; }
  // Values of a shared plane: the tile's rows and a border row above and below.
  MM_TIMETILE_HD constexpr int plane_values() const { return (tile_y() + 2) * shared_row(); }
  // Values of a block's shared memory at L levels: each level's centre plane, twice (the planes
  // of two steps alternate: one barrier a step).
  MM_TIMETILE_HD constexpr int shared_values(int levels) const {
    return 2 * levels * plane_values();
  }
};
// Where a thread's pair is one access in global memory too: N even (the rows then start on even
// x, and so do the tiles: x_first). EVEN below is this, for the plan and the runner's choice of
// kernel alike.
constexpr bool pairs_aligned(std::int64_t n) {
  return n % 2 == 0;
}
MM_TIMETILE_HD constexpr Shape shape(std::size_t value_bytes, int levels, bool even) {
  if (value_bytes == 4) {
    if (levels >= 2 && levels <= 4) return {2, 4};
    return {1, levels == 1 ? 8 : levels <= 6 ? 6 : 5};
  }
  if (levels <= 2) return {1, 8};
  return {2, levels == 4 && even ? 3 : 2};
}
// The tiles along one axis of the room (N points, walls at 0 and N - 1): SIDE points each, the
// halo included, each writing OUT = SIDE - 2L, tile B starting at point FIRST + B OUT. FIRST <= 0:
// tile 0 holds the wall at 0.
struct Axis {
  int side = kTileX, levels = 1, first = 0;
  MM_TIMETILE_HD constexpr int out() const { return side - 2 * levels; }
  MM_TIMETILE_HD constexpr std::int64_t start(std::int64_t b) const { return first + b * out(); }
  // The tile's points that its last level holds right, as offsets from its start: from L in, or
  // from 0 in tile 0 (the wall's value is the same at every level, so no level there depends on
  // a point outside the tile) ...
  MM_TIMETILE_HD constexpr int written_from(std::int64_t b) const { return b == 0 ? 0 : levels; }
  // ... up to SIDE - L, or up to SIDE where the tile holds the wall N - 1. Within 1..N-2 the
  // tiles' written points so cover the axis once: tile B + 1 writes from start(B) + SIDE - L on.
  MM_TIMETILE_HD constexpr int written_to(std::int64_t b, std::int64_t n) const {
    return start(b) + side >= n ? side : side - levels;
  }
  // The tiles: the fewest whose last holds the wall N - 1.
  MM_TIMETILE_HD constexpr std::int64_t tiles(std::int64_t n) const {
    return n - first <= side ? 1 : 1 + (n - first - side + out() - 1) / out();
  }
};
// Where the tiles start along x. Where the points a tile writes are a whole number of the
// 32-byte sectors of memory (OUT x the value's bytes), at the largest point <= 0 (even: pairs
// of W = 2 aligned) from which every tile's written rows lie on sectors. Elsewhere they cannot,
// and the tiles start where tile 0's first written point is x = 1, its halo past the wall (one
// point further left where pairs need an even start), as before 0a56a67. Along y (y_axis)
// each row is its own run of memory. H200, fraction of the single-sweep copy
// bound at N = 256 / 384 / 512 / 768, one call (bench/results/issue16_fortyfirst_pass_*.md):
// - Double at 4 levels starts at 0 (written from 60 + 56 b: 480 + 448 b bytes). Against -4 it
//   saves a tile a side at N = 512 (9 x 13 tiles against 10 x 13), and the start at 0 along y a
//   row of tiles at 768 (19 against 20): 1.33 / 1.67 / 1.84 / 1.88 against 1.34 / 1.68 / 1.66 /
//   1.81.
// - Single at 4 levels starts at -4 (written from 56 b). From 0 its rows were written from
//   60 + 56 b, half a sector in, two blocks writing each sector between tiles: 1.02 / 1.28 /
//   1.37 / 1.32 against 1.04 / 1.38 / 1.27 / 1.50. Along y from 0 it saves a row of tiles at
//   N = 512: 1.04 / 1.37 / 1.39 / 1.50.
// - Double at 2 levels starts at -2 (written from 60 b), not -1: 1.03 / 1.24 / 1.33 / 1.41
//   against 1.02 / 1.22 / 1.31 / 1.37.
// - Double at 3 levels and single at 2 and 3 (OUT not whole sectors): from 0 they lost 1-3%
//   against the start before (single at 2 levels, N = 768: 1.13 against 1.17).
MM_TIMETILE_HD constexpr int x_first(std::size_t value_bytes, int levels) {
  constexpr int kSector = 32;
  const int bytes = static_cast<int>(value_bytes), out = kTileX - 2 * levels;
  if (out * bytes % kSector != 0) {
    const bool pairs = shape(value_bytes, levels, true).points == 2;  // W whatever N
    return 1 - levels - (pairs && levels % 2 == 0 ? 1 : 0);
  }
  int c = 0;
  while (c > -kTileX && ((c + levels) * bytes % kSector != 0 || c % 2 != 0)) --c;
  return c;
}
MM_TIMETILE_HD constexpr Axis x_axis(std::size_t value_bytes, int levels) {
  return {kTileX, levels, x_first(value_bytes, levels)};
}
// Along y the tiles start at the wall (0), or for single at 4 levels at 1 - L (tile 0's first
// written row is y = 1, its halo past the wall) wherever that takes no more tiles for N points.
// H200, single at 4 levels, fraction of the single-sweep copy bound at N = 256 / 384 / 512 /
// 768, two calls alternating in one (bench/results/issue16_fortysecond_pass_*.md): 1.041 /
// 1.376 / 1.396 / 1.501 against 1.032 / 1.370 / 1.389 / 1.495 from the wall (512 from the wall
// in both: from 1 - L it takes a row of tiles more, 10 against 9). The kernels take the start
// from the plan only there (y_start_planned; stencil_timetile.cuh).
MM_TIMETILE_HD constexpr bool y_start_planned(std::size_t value_bytes, int levels) {
  return value_bytes == 4 && levels == 4;
}
MM_TIMETILE_HD constexpr Axis y_axis(std::size_t value_bytes, const Shape& s, int levels,
                                     std::int64_t n) {
  const Axis wall{s.tile_y(), levels, 0}, before{s.tile_y(), levels, 1 - levels};
  return y_start_planned(value_bytes, levels) && before.tiles(n) == wall.tiles(n) ? before : wall;
}
// Dynamic shared memory of a block: each level's centre plane of the tile, with a border (rows
// of 64 + 2W, H + 2 rows) so that the halo's outer points read no neighbour outside the array,
// twice (the planes of two steps alternate: one barrier a step).
constexpr std::size_t shared_bytes(std::size_t value_bytes, int levels, bool even) {
  return static_cast<std::size_t>(shape(value_bytes, levels, even).shared_values(levels)) *
         value_bytes;
}

// The most levels at which the sweep indexes the room in 32 bits (int: rooms of up to
// kMaxIndex32Side points a side, which plan() checks), else in 64. In 32 bits ptxas keeps
// 10-20 registers fewer at one and two levels, and K = 2 in double ran 1.06-1.10x as fast on
// the H200 (its default; N = 256..768: 1.01 / 1.21 / 1.28 / 1.28 of the copy bound, against
// 0.94 / 1.11 / 1.18 / 1.22) and 1.01-1.08x on the H100; at three and four levels the schedule
// lost 0.02-0.14 in an experiment (H200, K = 4 in double 0.81 / 0.96 / 0.97 / 1.01 against
// 0.90 / 1.10 / 1.10 / 1.14), so those keep 64-bit offsets and their code
// (bench/results/issue16_sixth_pass_2026-11-25_8fc74d1.md). Plane indices are 32-bit at every
// level (stencil_timetile.cuh's Iz; issue16_fortyfourth_pass_*.md).
constexpr int kMaxIndex32Levels = 2;
// The largest N whose plane offsets (y n + x, up to n^2 + n) fit an int.
constexpr std::int64_t kMaxIndex32Side = 46340;

// Where a pass may take the even split (TileLaunch::even): at 4 levels, whose kernels march a
// block's share of the columns in a loop. The chunks' waves leave multiprocessors idle in the
// last one: at N = 384 in double, 490 blocks on 132 make 4 waves of 63 steps where 132 even
// shares take 219. Fraction of the single-sweep copy bound at N = 256 / 384 / 512 / 768, H200,
// one call (bench/results/issue16_twentyfifth_pass_*.md): double K = 4 1.24 / 1.58 / 1.56 /
// 1.58 against main's chunks 1.12 / 1.40 / 1.56 / 1.50 (512: the chunks, one wave of 130
// blocks, as few steps), single K = 4 0.99 / 1.28 / 1.18 / 1.24 against 0.88 / 1.10 / 1.01 /
// 1.14. With the loop in every kernel, K = 3 lost 0.05-0.20 under the same chunks (ptxas: other
// schedules, double spilled), and the even split there lost 0.05-0.10 more (single at 384:
// 0.92 against 1.03, the same kernel; not profiled), so fewer levels keep a block a chunk.
MM_TIMETILE_HD constexpr bool even_split(int levels) {
  return levels == 4;
}

// How the blocks share the columns of tiles, as the kernel sees it. Column c is tile (c % gx,
// c / gx). Where not even_split, a 3D grid of chunks: block (x, y, z) marches the planes from
// 1 + z span of column x + y gx, at most span. Where even_split, a 1D grid: the columns' planes
// lie on one line of SLOTS slots, column c's planes 1..m at c stride .. c stride + m - 1 (slots
// past m in a column: none), and block b marches the SPAN slots from (b % lanes) stride +
// (b / lanes) span on (up to SLOTS), a column at a time. Chunks: stride = chunks x chunk, span =
// chunk, lanes = the columns (a wave takes the same chunk of neighbouring columns); the even
// split: stride = m + L + 1 (even_stride), lanes = 1 (block b the b-th equal share of the line).
struct Split {
  std::int64_t gx = 1;  // tiles along x
  std::int64_t stride = 1, span = 1, lanes = 1, slots = 1;
  int y_first = 0;  // where the tiles start along y (y_axis)
};

// Calls F(column, z0, z1) for the planes [z0, z1) of each column that block B marches under
// SP where even_split (M planes a column), in order.
template <class F>
MM_TIMETILE_HD void for_each_share(const Split& sp, std::int64_t b, std::int64_t m, F&& f) {
  std::int64_t at = b % sp.lanes * sp.stride + b / sp.lanes * sp.span;
  const std::int64_t end = at + sp.span < sp.slots ? at + sp.span : sp.slots;
  while (at < end) {
    const std::int64_t c = at / sp.stride, first = c * sp.stride;
    const std::int64_t stop = first + sp.stride < end ? first + sp.stride : end;
    const std::int64_t z1 = stop - first < m ? stop - first : m;
    if (at - first < z1) f(c, 1 + at - first, 1 + z1);
    at = stop;
  }
}

struct TileLaunch {
  int levels = 1, points = 1, rows = 8;
  std::int64_t out_x = 0, out_y = 0;    // points a tile writes along x and y
  std::int64_t gx = 1, gy = 1, gz = 1;  // tiles along x, along y; chunks of planes (even: 0)
  Split split;
  std::size_t shared = 0;  // dynamic shared memory a block, bytes
  // The even split, else chunks.
  bool even() const { return gz == 0; }
  // Planes a chunk (the last may hold fewer); under the even split, a share.
  std::int64_t chunk() const { return split.span; }
  // The blocks: a chunk or a share each of the split's line (chunks: columns x gz).
  std::int64_t blocks() const { return (split.slots + split.span - 1) / split.span; }
  // Points a block reads from u a plane for each it writes (the halo's share, through L2).
  double read_per_written() const {
    return static_cast<double>(kTileX * Shape{points, rows}.tile_y()) /
           static_cast<double>(out_x * out_y);
  }
};

// The steps march_column makes for the planes [Z0, Z1) of a column at L levels: from plane
// max(z0 - L, 0) to z1 - 1 + L, so L + 1 more than the planes where z0 = 1 (the column's
// start), 2L more elsewhere.
constexpr std::int64_t segment_steps(std::int64_t z0, std::int64_t z1, int levels) {
  return z1 - 1 + levels - (z0 - levels > 0 ? z0 - levels : 0) + 1;
}
// Steps of the slowest block, each column of TILES tiles in C chunks of M planes (the last
// chunk may hold fewer; none empty), RESIDENT blocks at once: the blocks run in waves of
// RESIDENT, and a chunk makes segment_steps (its planes and 2L more, L + 1 at the column's
// start).
constexpr std::int64_t chunk_steps(std::int64_t tiles, std::int64_t resident, std::int64_t m,
                                   int levels, std::int64_t c) {
  const std::int64_t chunk = (m + c - 1) / c, count = (m + chunk - 1) / chunk;
  const std::int64_t waves = (tiles * count + resident - 1) / resident;
  std::int64_t worst = segment_steps(1, 1 + chunk, levels);  // the first
  const std::int64_t last = segment_steps(1 + (count - 1) * chunk, m + 1, levels);
  if (count > 1 && last > worst) worst = last;
  if (count > 2 && chunk + 2 * levels > worst) worst = chunk + 2 * levels;  // one between
  return waves * worst;
}
// The even split: RESIDENT blocks take equal shares of a line of slots (one wave), each column
// of M planes M + L + 1 slots of it, the last L + 1 empty (even_stride). A share within a
// column then costs its slots and 2L steps; one reaching into the next column costs as much:
// its planes are L + 1 fewer than its slots, and the next column's start costs L + 1 steps
// more. Counting the planes alone, a share reaching into a second column cost its planes and
// 3L + 1 steps: at N = 256, 132 blocks at once, in double (35 columns of 254 planes) the
// slowest block made 81 steps, now 77; in single (25 columns) 62, now 58 (empty slots of 0 to
// 10 planes: 77-81 and 58-62 steps, L + 1 the fewest or one more at every N from 130 to 768).
// Every column's slot costs the same: the last row of tiles, whose warps past the room compute
// planes nothing needs (9 of 16 at N = 256 in double), was weighed by its working warps, those
// warps keeping only the barriers, and lost (H200: 0.75-1.11 against 1.04-1.65 of the copy
// bound; unweighted 0.90-1.16): a step with fewer warps is not much shorter (in single about
// 0.8-0.9 of a full one with 9 of 16 warps working), and any branch around march_column cost
// 14-32% (in double ptxas then spills) (bench/results/issue16_twentyninth_pass_*.md).
constexpr std::int64_t even_stride(std::int64_t m, int levels) {
  return m + levels + 1;
}
constexpr std::int64_t even_share(std::int64_t tiles, std::int64_t resident, std::int64_t m,
                                  int levels) {
  const std::int64_t r = resident < 1 ? 1 : resident;
  return (tiles * even_stride(m, levels) + r - 1) / r;
}
// The steps of the slowest block under the even split: its share's slots and 2L.
constexpr std::int64_t even_steps(std::int64_t share, int levels) {
  return share + 2 * levels;
}

// Chunks each column of TILES tiles is cut into for M planes, RESIDENT blocks at once:
// REQUESTED when > 0 (--tune chunks=C, at most M), else the fewest steps (chunk_steps: the
// waves of RESIDENT blocks, each a chunk and 2L planes before and after it read again); the
// smallest c of the least.
inline std::int64_t chunks(std::int64_t tiles, std::int64_t resident, std::int64_t m, int levels,
                           int requested) {
  const std::int64_t most = std::min(m, kMaxGridYZ);
  if (requested > 0) return std::min<std::int64_t>(requested, most);
  resident = std::max<std::int64_t>(1, resident);
  std::int64_t best = 1, best_steps = -1;
  for (std::int64_t c = 1; c <= most; ++c) {
    const std::int64_t steps = chunk_steps(tiles, resident, m, levels, c);
    if (best_steps < 0 || steps < best_steps) best = c, best_steps = steps;
  }
  return best;
}

// The sweep of ROOM at LEVELS levels a pass for VALUE_BYTES-byte values, RESIDENT blocks at
// once on the GPU (its multiprocessors times the kernel's occupancy), REQUESTED chunks and
// SPLIT as JacobiTuning's (0: the code's choice; 1 chunks; 2 even, where even_split).
inline TileLaunch plan(const HeatedRoom& room, std::size_t value_bytes, int levels, int requested,
                       std::int64_t resident, int split = 0) {
  if (room.dim != 3) throw std::logic_error("timetile::plan: the 3D room only");
  if (levels < 1 || levels > max_levels(value_bytes))
    throw std::logic_error("timetile::plan: levels out of range");
  if (levels <= kMaxIndex32Levels && room.n > kMaxIndex32Side)
    throw DeviceError("--poisson3d " + std::to_string(room.n) +
                      ": the time-tiled sweep at 1 or 2 levels takes N up to " +
                      std::to_string(kMaxIndex32Side));
  const std::int64_t m = room.n - 2;
  TileLaunch l;
  l.levels = levels;
  const bool aligned = pairs_aligned(room.n);
  const Shape s = shape(value_bytes, levels, aligned);
  l.points = s.points;
  l.rows = s.rows;
  l.out_x = Shape::out_x(levels);
  l.out_y = s.out_y(levels);
  l.gx = x_axis(value_bytes, levels).tiles(room.n);
  const Axis ay = y_axis(value_bytes, s, levels, room.n);
  l.gy = ay.tiles(room.n);
  if (l.gy > kMaxGridYZ) throw DeviceError("--poisson3d grid too large for the time-tiled sweep");
  const std::int64_t columns = l.gx * l.gy;
  const std::int64_t at_once = std::max<std::int64_t>(1, resident);
  const std::int64_t c = chunks(columns, at_once, m, levels, requested);
  const std::int64_t share = even_share(columns, at_once, m, levels);
  const bool even =
      even_split(levels) &&
      (split == 2 || (split == 0 && requested == 0 &&
                      even_steps(share, levels) < chunk_steps(columns, at_once, m, levels, c)));
  if (even) {
    l.gz = 0;
    const std::int64_t stride = even_stride(m, levels);
    l.split = {l.gx, stride, share, 1, columns * stride};
  } else {
    const std::int64_t chunk = (m + c - 1) / c;
    l.gz = (m + chunk - 1) / chunk;  // no empty chunk at the end
    l.split = {l.gx, l.gz * chunk, chunk, columns, columns * l.gz * chunk};
  }
  l.split.y_first = ay.first;
  if (l.blocks() > kMaxGridX)
    throw DeviceError("--poisson3d grid too large for the time-tiled sweep");
  l.shared = shared_bytes(value_bytes, levels, aligned);
  return l;
}

}  // namespace mm::timetile
