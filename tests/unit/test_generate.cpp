// Tests of mmgen's generators: determinism, structure and values of every kind, rhs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <map>

#include "mm/error.hpp"
#include "analysis/generate.hpp"
#include "analysis/generate_detail.hpp"
#include "analysis/generate_rhs.hpp"
#include "mm/matrix.hpp"
#include "test_helpers.hpp"

namespace {

using mm::Field;
using mm::Format;
using mm::GenOptions;
using mm::MtxMatrix;
using mm::Symmetry;

GenOptions opts(const std::string& kind, std::int64_t n, std::uint64_t seed = 1) {
  GenOptions o;
  o.kind = kind;
  o.n = n;
  o.seed = seed;
  return o;
}

// Stored entries of each row of a coordinate matrix, in file order.
std::vector<std::vector<std::int64_t>> row_columns(const MtxMatrix& m) {
  std::vector<std::vector<std::int64_t>> r(static_cast<std::size_t>(m.header.rows));
  for (std::int64_t k = 0; k < m.size(); ++k) r[m.row[k]].push_back(m.col[k]);
  return r;
}

void expect_sorted_unique(const MtxMatrix& m) {
  for (const auto& cols : row_columns(m)) {
    for (std::size_t k = 1; k < cols.size(); ++k) ASSERT_LT(cols[k - 1], cols[k]);
    for (auto c : cols) ASSERT_TRUE(c >= 0 && c < m.header.cols);
  }
}

}  // namespace

TEST(GenerateRng, SplitmixReferenceValues) {
  // splitmix64 seeded with 0: its first outputs are published reference values.
  EXPECT_EQ(mm::gen::mix64(mm::gen::kGolden), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(mm::gen::mix64(2 * mm::gen::kGolden), 0x6E789E6AA1B965F4ULL);
  mm::gen::Rng r(1, 2);
  for (int i = 0; i < 1000; ++i) {
    const double u = r.uniform();
    ASSERT_TRUE(u >= 0.0 && u < 1.0);
    ASSERT_LT(r.below(7), 7u);
  }
}

TEST(GenerateDeterminism, SameSeedSameMatrixAtAnyThreadCount) {
  std::vector<GenOptions> cases = {
      opts("sparse", 3000), opts("powerlaw", 3000), opts("spd", 3000),  opts("diagdom", 3000),
      opts("dense", 70),    opts("banded", 500),    opts("vector", 999)};
  cases.back().vector_kind = "random";
  cases.push_back(opts("spd", 60));
  cases.back().format = Format::array;
  cases.push_back(opts("sparse", 800));
  cases.back().field = Field::complex;
  cases.back().density = 0.3;  // the selection-sampling path
  for (const auto& o : cases) {
    SCOPED_TRACE(o.kind);
    const MtxMatrix a = mm::generate(o, 1), b = mm::generate(o, 2);
    mm::test::expect_same(a, b);
    EXPECT_GT(a.size(), 0);
    // Tiny blocks: the block size does not change the output either.
    auto g = mm::make_generator(o, 2);
    MtxMatrix c;
    c.header = g->header();
    g->generate(
        [&](const MtxMatrix& blk) {
          c.row.insert(c.row.end(), blk.row.begin(), blk.row.end());
          c.col.insert(c.col.end(), blk.col.begin(), blk.col.end());
          c.real.insert(c.real.end(), blk.real.begin(), blk.real.end());
          c.imag.insert(c.imag.end(), blk.imag.begin(), blk.imag.end());
        },
        2, 7);
    mm::test::expect_same(a, c);
  }
}

TEST(GenerateDeterminism, DifferentSeedDifferentMatrix) {
  for (const char* kind : {"sparse", "dense", "spd", "vector"}) {
    SCOPED_TRACE(kind);
    GenOptions o1 = opts(kind, 200, 1), o2 = opts(kind, 200, 2);
    if (std::string(kind) == "vector") o1.vector_kind = o2.vector_kind = "random";
    const MtxMatrix a = mm::generate(o1), b = mm::generate(o2);
    EXPECT_FALSE(a.real == b.real && a.col == b.col);
    EXPECT_EQ(a.header.rows, b.header.rows);
  }
}

TEST(GenerateDeterminism, FileRoundTrip) {
  GenOptions o = opts("sparse", 500);
  o.field = Field::integer;
  const MtxMatrix a = mm::generate(o);
  const auto path = std::filesystem::temp_directory_path() / "mm_test_generate_roundtrip.mtx";
  mm::write_mtx(path.string(), a);
  const MtxMatrix b = mm::read_mtx(path.string());
  std::filesystem::remove(path);
  mm::test::expect_same(a, b);
}

TEST(GeneratePoisson, TwoDimensionalStructureAndValues) {
  for (std::int64_t n : {1, 2, 4, 7}) {
    const MtxMatrix m = mm::generate(opts("poisson2d", n));
    ASSERT_EQ(m.header.rows, n * n);
    ASSERT_EQ(m.size(), 5 * n * n - 4 * n);
    const auto d = mm::to_dense<double>(m);
    for (std::int64_t i = 0; i < n * n; ++i) {
      const std::int64_t x = i % n, y = i / n;
      double sum = 0;
      for (std::int64_t j = 0; j < n * n; ++j) {
        sum += d(i, j);
        EXPECT_EQ(d(i, j), d(j, i));
        const std::int64_t dist = std::abs(i - j);
        if (i == j) {
          EXPECT_EQ(d(i, j), 4.0);
        } else if (d(i, j) != 0) {
          EXPECT_TRUE(d(i, j) == -1.0 && (dist == 1 || dist == n));
        }
      }
      // A row sums to 4 minus its neighbours: 0 inside, 1 per missing neighbour.
      const int missing = (x == 0) + (x == n - 1) + (y == 0) + (y == n - 1);
      EXPECT_EQ(sum, missing) << "row " << i;
    }
    expect_sorted_unique(m);
  }
  // Symmetric storage: the lower triangle, (nnz + N^2) / 2 entries.
  GenOptions o = opts("poisson2d", 6);
  o.symmetry = Symmetry::symmetric;
  const MtxMatrix s = mm::generate(o);
  EXPECT_EQ(s.size(), (5 * 36 - 24 + 36) / 2);
  for (std::int64_t k = 0; k < s.size(); ++k) EXPECT_GE(s.row[k], s.col[k]);
  const auto full = mm::to_dense<double>(mm::generate(opts("poisson2d", 6)));
  EXPECT_EQ(mm::to_dense<double>(s).data, full.data);
}

TEST(GeneratePoisson, ThreeDimensionalStructureAndValues) {
  const std::int64_t n = 4, n3 = n * n * n;
  GenOptions o = opts("poisson3d", n);
  o.field = Field::integer;
  const MtxMatrix m = mm::generate(o);
  ASSERT_EQ(m.header.rows, n3);
  ASSERT_EQ(m.size(), 7 * n3 - 6 * n * n);
  ASSERT_EQ(m.integer.size(), static_cast<std::size_t>(m.size()));
  std::vector<std::int64_t> sum(n3, 0);
  for (std::int64_t k = 0; k < m.size(); ++k) {
    sum[m.row[k]] += m.integer[k];
    if (m.row[k] == m.col[k])
      EXPECT_EQ(m.integer[k], 6);
    else
      EXPECT_EQ(m.integer[k], -1);
    const std::int64_t dist = std::abs(m.row[k] - m.col[k]);
    EXPECT_TRUE(dist == 0 || dist == 1 || dist == n || dist == n * n);
  }
  EXPECT_EQ(sum[1 + n + n * n], 0);  // interior point (1,1,1)
  EXPECT_EQ(sum[0], 3);              // corner: three neighbours missing
  EXPECT_EQ(sum[1], 2);              // edge
  expect_sorted_unique(m);
}

TEST(GenerateSpd, SymmetricLowerTriangleDiagonallyDominant) {
  for (Field f : {Field::real, Field::integer}) {
    GenOptions o = opts("spd", 400);
    o.nnz_per_row = 8;
    o.field = f;
    const MtxMatrix m = mm::generate(o);
    EXPECT_EQ(m.header.symmetry, Symmetry::symmetric);
    for (std::int64_t k = 0; k < m.size(); ++k) ASSERT_GE(m.row[k], m.col[k]);
    expect_sorted_unique(m);
    const auto d = mm::to_dense<double>(m);
    double offdiag = 0;
    for (std::int64_t i = 0; i < d.rows; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < d.cols; ++j) {
        ASSERT_EQ(d(i, j), d(j, i));
        if (j != i) s += std::abs(d(i, j));
        offdiag += (j != i && d(i, j) != 0);
      }
      ASSERT_GT(d(i, i), 0.0);
      ASSERT_GT(d(i, i), s) << "row " << i;
      EXPECT_NEAR(d(i, i), s + 1.0, 1e-9);
    }
    // About 8 off-diagonals per full row.
    EXPECT_NEAR(offdiag / 400.0, 8.0, 1.0);
  }
}

TEST(GenerateSpd, DenseArrayForm) {
  for (Symmetry s : {Symmetry::symmetric, Symmetry::general}) {
    GenOptions o = opts("spd", 50);
    o.format = Format::array;
    o.symmetry = s;
    const MtxMatrix m = mm::generate(o);
    EXPECT_EQ(m.size(), s == Symmetry::symmetric ? 50 * 51 / 2 : 2500);
    const auto d = mm::to_dense<double>(m);
    for (std::int64_t i = 0; i < 50; ++i) {
      double sum = 0;
      for (std::int64_t j = 0; j < 50; ++j) {
        ASSERT_EQ(d(i, j), d(j, i));
        if (j != i) sum += std::abs(d(i, j));
      }
      ASSERT_GT(d(i, i), sum);
    }
  }
}

TEST(GenerateDiagdom, StrictlyDominantRows) {
  for (Field f : {Field::real, Field::complex, Field::integer}) {
    GenOptions o = opts("diagdom", 300);
    o.nnz_per_row = 6;
    o.field = f;
    const MtxMatrix m = mm::generate(o);
    EXPECT_EQ(m.header.symmetry, Symmetry::general);
    expect_sorted_unique(m);
    std::vector<double> off(300, 0.0), diag(300, -1.0);
    for (std::int64_t k = 0; k < m.size(); ++k) {
      const double a = std::abs(m.value(k));
      if (m.row[k] == m.col[k])
        diag[m.row[k]] = a;
      else
        off[m.row[k]] += a;
    }
    for (int i = 0; i < 300; ++i) ASSERT_GT(diag[i], off[i]) << "row " << i;
    EXPECT_NEAR(static_cast<double>(m.size()) / 300.0, 7.0, 0.01);  // 6 + the diagonal
  }
}

TEST(GenerateSparse, SortedUniqueColumnsAndDensity) {
  struct Case {
    std::int64_t rows, cols;
    double density;
  };
  for (const Case& c : {Case{4000, 1000, 0.01}, Case{500, 200, 0.5}, Case{300, 17, 1.0}}) {
    GenOptions o;
    o.kind = "sparse";
    o.rows = c.rows;
    o.cols = c.cols;
    o.density = c.density;
    o.lo = -2;
    o.hi = 3;
    const MtxMatrix m = mm::generate(o);
    expect_sorted_unique(m);
    const double got = static_cast<double>(m.size()) / static_cast<double>(c.rows * c.cols);
    EXPECT_NEAR(got, c.density, 0.01 * c.density + 1e-12);
    for (double v : m.real) ASSERT_TRUE(v >= -2.0 && v < 3.0);
  }
  GenOptions o = opts("sparse", 1000);
  o.field = Field::integer;
  o.lo = -3;
  o.hi = 3;
  const MtxMatrix m = mm::generate(o);
  EXPECT_EQ(m.size(), 10000);  // nnz-per-row 10 by default, exactly
  std::map<std::int64_t, int> seen;
  for (auto v : m.integer) ++seen[v];
  EXPECT_EQ(seen.size(), 7u);  // every value of -3..3, nothing else
  EXPECT_EQ(seen.begin()->first, -3);
  EXPECT_EQ(seen.rbegin()->first, 3);
}

TEST(GenerateBanded, AllEntriesWithinBandwidth) {
  GenOptions o;
  o.kind = "banded";
  o.rows = 50;
  o.cols = 40;
  o.bandwidth = 3;
  const MtxMatrix m = mm::generate(o);
  std::int64_t want = 0;
  for (std::int64_t i = 0; i < 50; ++i)
    for (std::int64_t j = 0; j < 40; ++j) want += std::abs(i - j) <= 3;
  EXPECT_EQ(m.size(), want);
  for (std::int64_t k = 0; k < m.size(); ++k) ASSERT_LE(std::abs(m.row[k] - m.col[k]), 3);
  expect_sorted_unique(m);
}

TEST(GeneratePowerlaw, FewVeryLongRows) {
  GenOptions o = opts("powerlaw", 100000);
  o.nnz_per_row = 10;
  const MtxMatrix m = mm::generate(o);
  std::vector<std::int64_t> len(100000, 0);
  for (auto r : m.row) ++len[r];
  const double mean = static_cast<double>(m.size()) / 1e5;
  const auto longest = *std::max_element(len.begin(), len.end());
  EXPECT_NEAR(mean, 10.0, 1.5);
  EXPECT_GT(static_cast<double>(longest), 20 * mean);
  expect_sorted_unique(m);
}

TEST(GenerateVector, Kinds) {
  GenOptions o = opts("vector", 5);
  MtxMatrix v = mm::generate(o);
  EXPECT_EQ(v.header.format, Format::array);
  EXPECT_EQ(v.header.cols, 1);
  EXPECT_EQ(v.real, std::vector<double>(5, 1.0));
  o.vector_kind = "range";
  EXPECT_EQ(mm::generate(o).real, (std::vector<double>{1, 2, 3, 4, 5}));
  o.vector_kind = "random";
  o.lo = 10;
  o.hi = 11;
  v = mm::generate(o);
  ASSERT_EQ(v.real.size(), 5u);
  for (double x : v.real) EXPECT_TRUE(x >= 10 && x < 11);
  EXPECT_NE(v.real[0], v.real[1]);
}

TEST(GenerateIdentity, CoordinateAndArray) {
  GenOptions o;
  o.kind = "identity";
  o.rows = 4;
  o.cols = 6;
  MtxMatrix m = mm::generate(o);
  EXPECT_EQ(m.size(), 4);
  EXPECT_EQ(m.row, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(m.col, m.row);
  EXPECT_EQ(m.real, std::vector<double>(4, 1.0));
  o = opts("identity", 3);
  o.format = Format::array;
  EXPECT_EQ(mm::generate(o).real, (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST(GenerateRhs, ProductByHand) {
  // A = [2 0 1; 0 3 0; 4 0 5] as coordinate; x = 1..3 -> b = (5, 6, 19).
  MtxMatrix a;
  a.header.rows = a.header.cols = 3;
  a.header.nnz = 5;
  a.row = {0, 0, 1, 2, 2};
  a.col = {0, 2, 1, 0, 2};
  a.real = {2, 1, 3, 4, 5};
  auto r = mm::make_rhs(a, "range", 1);
  EXPECT_EQ(r.b.real, (std::vector<double>{5, 6, 19}));
  EXPECT_EQ(r.x.real, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.b.header.format, Format::array);
  r = mm::make_rhs(a, "ones", 1);
  EXPECT_EQ(r.b.real, (std::vector<double>{3, 3, 9}));
  // Symmetric storage is expanded: lower triangle of [2 1; 1 3], x = ones -> (3, 4).
  MtxMatrix s;
  s.header.symmetry = Symmetry::symmetric;
  s.header.rows = s.header.cols = 2;
  s.header.nnz = 3;
  s.row = {0, 1, 1};
  s.col = {0, 0, 1};
  s.real = {2, 1, 3};
  EXPECT_EQ(mm::make_rhs(s, "ones", 1).b.real, (std::vector<double>{3, 4}));
  // Complex A gives complex b: [1+2i] * 1 = 1+2i.
  MtxMatrix c;
  c.header.field = Field::complex;
  c.header.rows = c.header.cols = c.header.nnz = 1;
  c.row = c.col = {0};
  c.real = {1};
  c.imag = {2};
  const auto rc = mm::make_rhs(c, "ones", 1);
  EXPECT_EQ(rc.b.header.field, Field::complex);
  EXPECT_EQ(rc.b.imag, std::vector<double>{2});
  EXPECT_THROW(mm::make_rhs(a, "zeros", 1), mm::UsageError);
}

TEST(GenerateUsage, MeaninglessCombinationsRefused) {
  auto refused = [](GenOptions o) { EXPECT_THROW(mm::make_generator(o), mm::UsageError); };
  refused(opts("nosuchkind", 3));
  GenOptions o = opts("sparse", 10);
  o.format = Format::array;
  refused(o);
  o = opts("sparse", 10);
  o.bandwidth = 2;
  refused(o);
  o = opts("sparse", 10);
  o.density = 1.5;
  refused(o);
  o = opts("sparse", 10);
  o.density = 0.5;
  o.nnz_per_row = 3;
  refused(o);
  o = opts("spd", 10);
  o.field = Field::complex;
  refused(o);
  o = opts("spd", 10);
  o.field = Field::pattern;
  refused(o);
  o = opts("spd", 10);
  o.symmetry = Symmetry::general;  // sparse spd is stored symmetric
  refused(o);
  o = GenOptions{};
  o.kind = "poisson2d";
  refused(o);  // no --n
  o = opts("banded", 0);
  o.n.reset();
  o.rows = 4;
  o.cols = 5;
  o.symmetry = Symmetry::symmetric;
  refused(o);  // symmetric but not square
  o = opts("vector", 4);
  o.format = Format::coordinate;
  refused(o);
  o = opts("vector", 4);
  o.lo = 1;  // only for --kind random
  refused(o);
  o = opts("dense", 4);
  o.field = Field::integer;
  o.lo = 0.5;
  refused(o);
  o = opts("powerlaw", 4);
  o.alpha = 1.0;
  refused(o);
  o = opts("dense", 4);
  o.rows = 4;
  refused(o);  // --n and --rows
}
