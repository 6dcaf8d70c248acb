// --partition metis: the graph of A + A^T, METIS's parts, the renumbering across the ranks,
// and the distributed product and CG in the renumbered order against one process; the halo
// METIS saves on a scrambled grid. On every rank count CTest runs (mpirun -np 1..4, none).
#include <algorithm>
#include <numeric>

#include "dist/dist_krylov.hpp"
#include "dist/metis.hpp"
#include "dist/renumber.hpp"
#include "dist/row_order.hpp"
#include "dist_test.hpp"
#include "mm/error.hpp"
#include "solve.hpp"

namespace mm::test {
namespace {

using dist::Op;

std::vector<std::int32_t> pairs_of(const std::vector<std::pair<int, int>>& e) {
  std::vector<std::int32_t> p;
  for (auto [i, j] : e) p.push_back(i), p.push_back(j);
  return p;
}

TEST(Metis, GraphOfAPlusATransposed) {
  // (2,1) twice, (1,0) and (0,1) the same edge, (1,3) alone, (0,0) and (3,3) no edge.
  const dist::Graph g =
      dist::symmetric_graph(4, pairs_of({{0, 0}, {0, 1}, {1, 0}, {2, 1}, {3, 3}, {2, 1}, {1, 3}}));
  EXPECT_EQ(g.xadj, (std::vector<std::int32_t>{0, 1, 4, 5, 6}));
  EXPECT_EQ(g.adj, (std::vector<std::int32_t>{1, 0, 2, 3, 1, 1}));
  EXPECT_EQ(g.weight, (std::vector<std::int32_t>{3, 3, 3, 2}));  // entries + 1
  EXPECT_EQ(g.edges(), 3);
  const dist::Graph e = dist::symmetric_graph(3, {});
  EXPECT_EQ(e.xadj, (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(e.weight, (std::vector<std::int32_t>{1, 1, 1}));
}

TEST(Metis, TwoCliquesJoinedByOneEdgeSplitThere) {
  if (!dist::metis_built()) GTEST_SKIP() << "built without METIS (Debian: libmetis-dev)";
  // Vertices 0..7 and 8..15 each all to all, and 7 -- 8: the one cut worth making.
  std::vector<std::pair<int, int>> e{{7, 8}};
  for (int base : {0, 8})
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < i; ++j) e.emplace_back(base + i, base + j);
  const dist::GraphParts p = dist::partition_graph(dist::symmetric_graph(16, pairs_of(e)), 2);
  EXPECT_EQ(p.edge_cut, 1);
  for (int i = 1; i < 8; ++i) EXPECT_EQ(p.part[i], p.part[0]) << i;
  for (int i = 9; i < 16; ++i) EXPECT_EQ(p.part[i], p.part[8]) << i;
  EXPECT_NE(p.part[0], p.part[8]);
  // One part: no METIS call (METIS 5.1 divides by zero there), every vertex in part 0.
  const dist::GraphParts one = dist::partition_graph(dist::symmetric_graph(16, pairs_of(e)), 1);
  EXPECT_EQ(one.part, std::vector<int>(16, 0));
  EXPECT_EQ(one.edge_cut, 0);
}

TEST(Renumbering, PartsBecomeContiguousBlocksBothWays) {
  const dist::Comm& c = comm();
  const int p = c.size(), me = c.rank();
  for (std::int64_t n : {0, 1, 3, 23}) {
    auto part_of = [&](std::int64_t i) { return static_cast<int>((i * 5 + 1) % p); };
    std::vector<int> part;
    if (c.root())
      for (std::int64_t i = 0; i < n; ++i) part.push_back(part_of(i));
    const auto r = dist::Renumbering::from_parts(c, n, part);
    // Expected: part 0's rows first, each part's in the file's order.
    std::vector<std::int64_t> old_of_new;
    for (int q = 0; q < p; ++q)
      for (std::int64_t i = 0; i < n; ++i)
        if (part_of(i) == q) old_of_new.push_back(i);
    std::vector<std::int64_t> new_of_old(static_cast<std::size_t>(n));
    for (std::size_t j = 0; j < old_of_new.size(); ++j)
      new_of_old[static_cast<std::size_t>(old_of_new[j])] = static_cast<std::int64_t>(j);
    const dist::Partition& b = r.blocks();
    ASSERT_EQ(b.parts(), p);
    EXPECT_EQ(b.n(), n);
    for (int q = 0; q < p; ++q)
      for (std::int64_t j = b.begin(q); j < b.end(q); ++j)
        EXPECT_EQ(part_of(old_of_new[static_cast<std::size_t>(j)]), q) << "n " << n;
    EXPECT_EQ(r.old_of_new(), std::vector<std::int64_t>(old_of_new.begin() + b.begin(me),
                                                        old_of_new.begin() + b.end(me)));
    // Indices: any, repeated, on any rank.
    std::vector<std::int64_t> rows, cols;
    for (std::int64_t i = me; i < n; i += p) rows.push_back(i), cols.push_back(n - 1 - i);
    if (n > 0) rows.push_back(0);
    auto want_rows = rows, want_cols = cols;
    for (auto& i : want_rows) i = new_of_old[static_cast<std::size_t>(i)];
    for (auto& i : want_cols) i = new_of_old[static_cast<std::size_t>(i)];
    r.renumber(c, {&rows, &cols});
    EXPECT_EQ(rows, want_rows);
    EXPECT_EQ(cols, want_cols);
    // Rows of 2 values: the file's uniform blocks -> the working blocks, and back.
    const dist::Partition& f = r.file_blocks();
    std::vector<double> file_rows;
    for (std::int64_t i = f.begin(me); i < f.end(me); ++i)
      file_rows.push_back(10.0 * i), file_rows.push_back(10.0 * i + 1);
    const std::vector<double> mine = r.to_new(c, file_rows, 2);
    ASSERT_EQ(mine.size(), 2 * r.old_of_new().size());
    for (std::size_t j = 0; j < r.old_of_new().size(); ++j) {
      EXPECT_EQ(mine[2 * j], 10.0 * r.old_of_new()[j]);
      EXPECT_EQ(mine[2 * j + 1], 10.0 * r.old_of_new()[j] + 1);
    }
    EXPECT_EQ(r.to_old(c, mine, 2), file_rows);
  }
}

// A's rows by --partition metis from the ranks' shares: the order and the distributed matrix.
template <class T>
std::pair<dist::RowOrder, dist::DistCsr<std::int32_t, T>> metis_dist(
    const Csr<std::int32_t, T>& a, dist::PartitionKind kind = dist::PartitionKind::metis) {
  const dist::Comm& c = comm();
  dist::Triplets<T> t = my_share(a, c);
  MtxHeader h;
  h.rows = a.rows;
  h.cols = a.cols;
  dist::RowOrder o = dist::partition_rows(c, h, t, kind, CommonOptions{}, "test");
  t = dist::route_to_owners(c, o.rows, std::move(t));
  auto d = dist::build_dist_csr<std::int32_t, T>(c, a.rows, a.cols, o.rows, o.rows, t);
  return {std::move(o), std::move(d)};
}

// The file's index of this rank's working row J.
std::int64_t file_row(const dist::RowOrder& o, std::int64_t row_begin, std::int64_t j) {
  return o.renumbered() ? o.perm->old_of_new()[static_cast<std::size_t>(j)] : row_begin + j;
}

TEST(Metis, DistSpmvEqualsSerialInTheFilesOrder) {
  if (!dist::metis_built()) GTEST_SKIP() << "built without METIS (Debian: libmetis-dev)";
  const dist::Comm& c = comm();
  std::vector<Shape> shapes;
  for (const Shape& s : awkward_shapes())
    if (s.rows == s.cols) shapes.push_back(s);  // empty rows, a dense row, 1x1, 0x0 among them
  shapes.push_back({"3x3 (fewer rows than 4 ranks)", 3, 3, 0.7});
  for (const Shape& s : shapes) {
    const Csr<std::int32_t, double> a = random_csr<std::int32_t, double>(s, 21);
    const auto [o, d] = metis_dist(a);
    EXPECT_EQ(o.renumbered(), c.size() > 1) << s.name;
    EXPECT_EQ(c.allreduce(d.local_nnz(), Op::sum), a.nnz()) << s.name;
    const std::vector<double> x = random_vector<double>(a.cols, 5);
    std::vector<double> want(static_cast<std::size_t>(a.rows));
    spmv_ref(a, x.data(), want.data(), 1.0, 0.0);
    // x in the working order: this rank's rows' entries (square: columns follow rows).
    std::vector<double> xl(static_cast<std::size_t>(d.local_rows())), y(xl.size());
    for (std::int64_t j = 0; j < d.local_rows(); ++j)
      xl[static_cast<std::size_t>(j)] = x[static_cast<std::size_t>(file_row(o, d.row_begin(), j))];
    dist::DistSpmv<std::int32_t, double> op(c, d, dist::LocalKernel::cpu_csr);
    op.apply(xl.data(), y.data(), 1.0, 0.0, nullptr);
    for (std::int64_t j = 0; j < d.local_rows(); ++j) {
      const std::int64_t i = file_row(o, d.row_begin(), j);
      double scale = 0;
      for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) scale += std::abs(a.val[k] * x[a.idx[k]]);
      EXPECT_LE(std::abs(y[static_cast<std::size_t>(j)] - want[static_cast<std::size_t>(i)]),
                1e-14 * scale)
          << s.name << ": file row " << i;
    }
  }
}

TEST(Metis, RectangularRefused) {
  const Csr<std::int32_t, double> a = random_csr<std::int32_t, double>({"r", 30, 40, 0.1}, 2);
  EXPECT_THROW(metis_dist(a), UsageError);
}

// The 5-point Laplacian on an m x m grid with its points numbered at random: row blocks of it
// cut nearly every edge; METIS's parts are the grid's patches again.
Csr<std::int32_t, double> scrambled_laplacian(std::int32_t m) {
  std::vector<std::int32_t> perm(static_cast<std::size_t>(m * m));
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 rng(17);
  std::shuffle(perm.begin(), perm.end(), rng);
  Coo<std::int32_t, double> e;
  e.rows = e.cols = m * m;
  auto put = [&](std::int32_t i, std::int32_t j, double v) {
    e.row.push_back(perm[static_cast<std::size_t>(i)]);
    e.col.push_back(perm[static_cast<std::size_t>(j)]);
    e.val.push_back(v);
  };
  for (std::int32_t y = 0; y < m; ++y)
    for (std::int32_t x = 0; x < m; ++x) {
      const std::int32_t i = y * m + x;
      put(i, i, 4);
      if (x > 0) put(i, i - 1, -1);
      if (x + 1 < m) put(i, i + 1, -1);
      if (y > 0) put(i, i - m, -1);
      if (y + 1 < m) put(i, i + m, -1);
    }
  return coo_to_csr(e);
}

TEST(Metis, HaloOfAScrambledGridFarBelowRowBlocks) {
  if (!dist::metis_built()) GTEST_SKIP() << "built without METIS (Debian: libmetis-dev)";
  const dist::Comm& c = comm();
  if (c.size() == 1) GTEST_SKIP() << "one rank: no halo either way";
  const auto a = scrambled_laplacian(40);
  const auto [ro, rows] = metis_dist(a, dist::PartitionKind::rows);
  const auto [mo, metis] = metis_dist(a);
  const std::int64_t h_rows = c.allreduce(rows.plan.halo_size(), Op::sum);
  const std::int64_t h_metis = c.allreduce(metis.plan.halo_size(), Op::sum);
  // Row blocks of 1600 scrambled points: most neighbours elsewhere (~1000 halo values a rank
  // at 2 ranks); METIS's patches: about the length of their borders (~50 at 2 ranks).
  EXPECT_LT(h_metis * 5, h_rows) << "halo: metis " << h_metis << ", rows " << h_rows;
  // The grid's pattern is symmetric, without duplicates: a cut edge is a remote entry in
  // each of its two rows.
  EXPECT_GT(mo.edge_cut, 0);
  EXPECT_EQ(2 * mo.edge_cut, c.allreduce(metis.offd.nnz(), Op::sum));
  const std::int64_t most = c.allreduce(metis.local_nnz(), Op::max);
  EXPECT_LE(static_cast<double>(most) * c.size(), 1.1 * static_cast<double>(a.nnz()));
}

TEST(Metis, CgInTheRenumberedOrderAsOneProcess) {
  if (!dist::metis_built()) GTEST_SKIP() << "built without METIS (Debian: libmetis-dev)";
  const dist::Comm& c = comm();
  const auto a = scrambled_laplacian(20);
  const auto [o, d] = metis_dist(a);
  const std::vector<double> b = random_vector<double>(a.rows, 9);
  IterOptions opt;
  opt.tol = 1e-10;
  opt.jacobi = true;
  std::vector<double> want(b.size());
  SolveReport one;
  krylov_solve(SolveMethod::cg, *krylov_ops_cpu(a, true), b.data(), want.data(), opt, one);
  std::vector<double> bl(static_cast<std::size_t>(d.local_rows())), x(bl.size());
  for (std::int64_t j = 0; j < d.local_rows(); ++j)
    bl[static_cast<std::size_t>(j)] = b[static_cast<std::size_t>(file_row(o, d.row_begin(), j))];
  dist::DistKrylovOps<std::int32_t, double> ops(c, d, dist::LocalKernel::cpu_csr, true);
  SolveReport got;
  krylov_solve(SolveMethod::cg, ops, bl.data(), x.data(), opt, got);
  ASSERT_TRUE(one.converged);
  EXPECT_TRUE(got.converged);
  EXPECT_LE(std::abs(got.iterations - one.iterations), 2)
      << got.iterations << " iterations, one process " << one.iterations;
  double diff = 0, norm = 0;
  for (std::int64_t j = 0; j < d.local_rows(); ++j) {
    const double w = want[static_cast<std::size_t>(file_row(o, d.row_begin(), j))];
    diff += (x[static_cast<std::size_t>(j)] - w) * (x[static_cast<std::size_t>(j)] - w);
    norm += w * w;
  }
  EXPECT_LE(std::sqrt(c.allreduce(diff, Op::sum)),
            1000 * opt.tol * std::sqrt(c.allreduce(norm, Op::sum)));
}

}  // namespace
}  // namespace mm::test
