// The heated room in boxes (mmjacobi --split boxes under mpirun): the process grid, the split
// for any grid of ranks, the face exchange, and the iteration against the one-process
// cpu-stencil bit for bit (grid, iteration count and norm) on every process grid of the ranks
// CTest runs it with (x split: the norm's chain along x; y split: along y).

#include "dist/box.hpp"
#include "dist_test.hpp"
#include "mm/error.hpp"

namespace mm::test {
namespace {

using dist::BoxSplit;
using dist::Dims;

// Every factorisation of RANKS over DIM axes (2D: z 1).
std::vector<Dims> process_grids(int dim, int ranks) {
  std::vector<Dims> out;
  for (int px = 1; px <= ranks; ++px)
    for (int py = 1; py <= ranks; ++py)
      if (ranks % (px * py) == 0 && (dim == 3 || px * py == ranks))
        out.push_back({px, py, ranks / (px * py)});
  return out;
}

TEST(BoxDims, FewestIdleThenSmallestHaloThenFewestAlongX) {
  EXPECT_EQ(dist::box_dims(3, 12, 1), (Dims{1, 1, 1}));
  EXPECT_EQ(dist::box_dims(3, 12, 2), (Dims{1, 1, 2}));  // ties: the slowest axis
  EXPECT_EQ(dist::box_dims(3, 12, 4), (Dims{1, 2, 2}));
  EXPECT_EQ(dist::box_dims(3, 102, 8), (Dims{2, 2, 2}));
  EXPECT_EQ(dist::box_dims(2, 12, 2), (Dims{1, 2, 1}));
  EXPECT_EQ(dist::box_dims(2, 12, 4), (Dims{2, 2, 1}));
  EXPECT_EQ(dist::box_dims(2, 5, 6), (Dims{2, 3, 1}));  // 3 x 3 points: none idle
  EXPECT_EQ(dist::box_dims(3, 3, 4), (Dims{1, 1, 4}));  // one point: idle ranks whatever
}

TEST(ParseSplit, AutoSlabsBoxesAndGrids) {
  // auto: slabs while every rank gets 4 planes.
  EXPECT_FALSE(dist::parse_split("auto", 3, 18, 4).boxes);
  EXPECT_EQ(dist::parse_split("auto", 3, 18, 4).dims, (Dims{1, 1, 4}));
  EXPECT_TRUE(dist::parse_split("auto", 3, 17, 4).boxes);
  EXPECT_FALSE(dist::parse_split("auto", 3, 3, 1).boxes);
  EXPECT_EQ(dist::parse_split("slabs", 2, 5, 3).dims, (Dims{1, 3, 1}));
  EXPECT_EQ(dist::parse_split("boxes", 2, 30, 4).dims, (Dims{2, 2, 1}));
  const dist::SplitChoice g = dist::parse_split("2x1x3", 3, 9, 6);
  EXPECT_TRUE(g.boxes);
  EXPECT_EQ(g.dims, (Dims{2, 1, 3}));
  EXPECT_EQ(dist::parse_split("4x1", 2, 9, 4).dims, (Dims{4, 1, 1}));
  for (const char* bad : {"2x2", "2x2x", "x2x2", "2xx2", "0x2x2", "2x2x2x1", "bricks", ""})
    EXPECT_THROW(dist::parse_split(bad, 3, 9, 4), UsageError) << bad;
  EXPECT_THROW(dist::parse_split("2x1x1", 3, 9, 3), UsageError);  // 2 ranks, not 3
}

// Every rank's box of an N-a-side grid: the interior points held once, neighbours mutual and
// adjacent, the empty boxes without neighbours.
TEST(BoxSplit, EveryPointOnceNeighboursMutual) {
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 4, 5, 9, 12})
      for (const int ranks : {1, 2, 3, 4, 6, 8})
        for (const Dims& d : process_grids(dim, ranks)) {
          const std::string what = std::to_string(dim) + "D N=" + std::to_string(n) + " grid " +
                                   std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
                                   std::to_string(d[2]);
          const std::int64_t m = n - 2;
          std::vector<int> held(static_cast<std::size_t>(dim == 3 ? m * m * m : m * m), 0);
          std::vector<BoxSplit> all;
          for (int r = 0; r < ranks; ++r) all.push_back(dist::box_split(dim, n, d, r));
          for (const BoxSplit& b : all) {
            if (b.empty()) {
              for (int a = 0; a < 3; ++a) EXPECT_TRUE(b.lower[a] < 0 && b.upper[a] < 0) << what;
              EXPECT_EQ(b.buffer_size(), 0);
              continue;
            }
            for (std::int64_t k = b.own.lo[2]; k < b.own.hi[2]; ++k)
              for (std::int64_t j = b.own.lo[1]; j < b.own.hi[1]; ++j)
                for (std::int64_t i = b.own.lo[0]; i < b.own.hi[0]; ++i)
                  ++held[static_cast<std::size_t>(((dim == 3 ? k - 1 : 0) * m + j - 1) * m + i -
                                                  1)];
            for (int a = 0; a < dim; ++a) {
              EXPECT_EQ(b.lower[a] < 0, b.own.lo[a] == 1) << what;
              EXPECT_EQ(b.upper[a] < 0, b.own.hi[a] == n - 1) << what;
              if (b.upper[a] >= 0) {
                const BoxSplit& u = all[static_cast<std::size_t>(b.upper[a])];
                EXPECT_EQ(u.lower[a], b.rank) << what;
                EXPECT_EQ(u.own.lo[a], b.own.hi[a]) << what;
                for (int o = 0; o < 3; ++o)
                  if (o != a) {
                    EXPECT_TRUE(u.own.lo[o] == b.own.lo[o] && u.own.hi[o] == b.own.hi[o]);
                  }
              }
            }
          }
          for (const int h : held) ASSERT_EQ(h, 1) << what;
        }
}

// Each rank's points hold codes of their grid index: after an exchange the ghost layers next
// to a neighbour hold the neighbour's codes, the rest is untouched; twice.
TEST(BoxHalo, ExchangeFillsTheFaces) {
  const dist::Comm& c = comm();
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 6, 9})
      for (const Dims& d : process_grids(dim, c.size())) {
        const BoxSplit s = dist::box_split(dim, n, d, c.rank());
        const GridBox b = s.grid_box();
        std::vector<double> u(static_cast<std::size_t>(s.buffer_size()), -1.0);
        auto code = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
          return static_cast<double>((k * n + j) * n + i);
        };
        auto owned = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
          return i >= s.own.lo[0] && i < s.own.hi[0] && j >= s.own.lo[1] && j < s.own.hi[1] &&
                 k >= s.own.lo[2] && k < s.own.hi[2];
        };
        const std::int64_t z0 = dim == 3 ? s.own.lo[2] - 1 : 0, z1 = dim == 3 ? s.own.hi[2] + 1 : 1;
        for (std::int64_t k = z0; k < z1 && !s.empty(); ++k)
          for (std::int64_t j = s.own.lo[1] - 1; j <= s.own.hi[1]; ++j)
            for (std::int64_t i = s.own.lo[0] - 1; i <= s.own.hi[0]; ++i)
              if (owned(i, j, k)) u[static_cast<std::size_t>(b.offset(i, j, k))] = code(i, j, k);
        dist::BoxHalo<double> halo(c, s);
        for (int pass = 0; pass < 2; ++pass) {
          halo.start(u.data());
          halo.finish();
          int bad = 0;
          for (std::int64_t k = z0; k < z1 && !s.empty(); ++k)
            for (std::int64_t j = s.own.lo[1] - 1; j <= s.own.hi[1]; ++j)
              for (std::int64_t i = s.own.lo[0] - 1; i <= s.own.hi[0]; ++i) {
                const std::int64_t g[3] = {i, j, k};
                // A face point: outside the box along one axis only, next to a neighbour.
                int out_axis = -1, outside = 0;
                for (int a = 0; a < dim; ++a)
                  if (g[a] < s.own.lo[a] || g[a] >= s.own.hi[a]) out_axis = a, ++outside;
                bool remote = false;
                if (outside == 1)
                  remote = g[out_axis] < s.own.lo[out_axis] ? s.lower[out_axis] >= 0
                                                            : s.upper[out_axis] >= 0;
                const double got = u[static_cast<std::size_t>(b.offset(i, j, k))];
                if (owned(i, j, k) || remote)
                  bad += got != code(i, j, k);
                else if (outside == 1)
                  bad += got != -1.0;  // a wall face: untouched
              }
          EXPECT_EQ(bad, 0) << dim << "D N=" << n << " grid " << s.grid_name() << " rank "
                            << c.rank();
        }
      }
}

// The distributed iteration against the one-process cpu-stencil on every process grid of the
// ranks: the grid (reassembled in planes) equal bit for bit, the same iterations and norm.
template <class T>
void check_box_jacobi(int dim, std::int64_t n, const JacobiStop& stop) {
  const dist::Comm& c = comm();
  const HeatedRoom room = heated_room(dim, n);
  const OneProcessRoom<T> want = one_process_room<T>(room, stop);
  for (const Dims& d : process_grids(dim, c.size())) {
    const BoxSplit s = dist::box_split(dim, n, d, c.rank());
    const std::string what = std::to_string(dim) + "D N=" + std::to_string(n) + " grid " +
                             s.grid_name() + " max_iter " + std::to_string(stop.max_iter) +
                             " check " + std::to_string(stop.check_every) + " tol " +
                             std::to_string(stop.tol) + (sizeof(T) == 4 ? " float" : " double");
    dist::BoxJacobi<T> jac(c, room, s);
    for (int run = 0; run < 2; ++run) {  // a second run starts again from the starting grid
      const JacobiResult got = jac.run(stop);
      const dist::SlabSplit out = dist::slab_split(dim, n, c.size(), c.rank());
      const std::vector<T> mine = dist::boxes_to_planes(c, room, s, jac.owned(), out);
      EXPECT_EQ(static_cast<std::int64_t>(mine.size()), (out.out1 - out.out0) * out.plane_size());
      expect_same_room(c, got, mine, want, what);
    }
  }
}

TEST(BoxJacobi, EqualsOneProcessBitForBit) {
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 4, 5, 7, 12, 19}) {
      check_box_jacobi<double>(dim, n, JacobiStop{7, -1, 1});
      check_box_jacobi<double>(dim, n, JacobiStop{40, -1, 6});
      check_box_jacobi<float>(dim, n, JacobiStop{9, -1, 4});
      check_box_jacobi<double>(dim, n, JacobiStop{10000, 1e-6, 3});
    }
}

}  // namespace
}  // namespace mm::test
