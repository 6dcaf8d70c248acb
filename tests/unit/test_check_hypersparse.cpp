// mmcheck info and validate on hypersparse matrices (far more rows than entries): statistics
// by the entries, against hand-computed values and an independent count over a std::map.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/check.hpp"

namespace mm::check {
namespace {

MtxMatrix parse(const std::string& text) {
  return parse_mtx(text, "t.mtx");
}

constexpr std::int64_t kBig = 3000000000;  // rows and columns: 24 GB of CSR row pointers

TEST(CheckHypersparse, GeneralFileOfThreeBillionRows) {
  // (1,1) = 2 + 1 after summing the duplicate; (1,3e9) = 1; (3e9,1) = -5.
  const auto r =
      info(parse("%%MatrixMarket matrix coordinate real general\n3000000000 3000000000 4\n"
                 "1 1 2\n3000000000 1 -5\n1 3000000000 1\n1 1 1\n"));
  EXPECT_EQ(r.rows, kBig);
  EXPECT_EQ(r.nnz_expanded, 4);
  EXPECT_EQ(r.nnz_distinct, 3);
  EXPECT_EQ(r.row_min, 0);
  EXPECT_EQ(r.row_max, 2);
  EXPECT_EQ(r.empty_rows, kBig - 2);
  EXPECT_DOUBLE_EQ(r.row_mean, 1e-9);
  const double m = 1e-9;
  EXPECT_NEAR(r.row_stddev,
              std::sqrt(((2 - m) * (2 - m) + (1 - m) * (1 - m) + (kBig - 2) * m * m) / kBig),
              1e-12 * r.row_stddev);
  EXPECT_EQ(r.diagonal_dominance, "none");  // row 1: 3 > 1, row 3e9: 0 < 5
  EXPECT_EQ(r.lower_bandwidth, kBig - 1);
  EXPECT_EQ(r.upper_bandwidth, kBig - 1);
  EXPECT_EQ(r.numeric_symmetry, "none");
  EXPECT_EQ(*r.value_min, -5);
  EXPECT_EQ(*r.value_max, 3);
  EXPECT_EQ(r.csr32_bytes, (kBig + 1) * 4 + 3 * 12);
  EXPECT_EQ(r.csr64_bytes, (kBig + 1) * 8 + 3 * 16);
  EXPECT_FALSE(r.int32_indices_fit);

  const auto w =
      validate(parse("%%MatrixMarket matrix coordinate real general\n"
                     "3000000000 3000000000 3\n1 1 2\n3000000000 1 0\n1 1 1\n"));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].message, "1 duplicate entry (first: entry 3 at (1,1))");
  EXPECT_EQ(w[1].message, "1 explicit zero entry (first: entry 2 at (3000000000,1))");
}

TEST(CheckHypersparse, HermitianAndEmptyFiles) {
  // Expanded: (1,1) = 3, (3e9,1) = 1+2i, (1,3e9) = 1-2i.
  const auto h =
      info(parse("%%MatrixMarket matrix coordinate complex hermitian\n"
                 "3000000000 3000000000 2\n3000000000 1 1 2\n1 1 3 0\n"));
  EXPECT_EQ(h.nnz_expanded, 3);
  EXPECT_EQ(h.nnz_distinct, 3);
  EXPECT_EQ(h.numeric_symmetry, "hermitian");
  EXPECT_TRUE(h.hermitian && !h.symmetric && !h.skew_symmetric);
  EXPECT_EQ(h.diagonal_dominance, "none");  // row 1: 3 > |1-2i|; row 3e9: 0 < |1+2i|
  EXPECT_EQ(h.empty_rows, kBig - 2);
  EXPECT_DOUBLE_EQ(*h.value_max, 3);
  EXPECT_DOUBLE_EQ(*h.value_min, std::sqrt(5.0));

  // A diagonal one is strictly dominant where it has entries, but not in its empty rows.
  const auto d =
      info(parse("%%MatrixMarket matrix coordinate real symmetric\n"
                 "3000000000 3000000000 1\n7 7 1\n"));
  EXPECT_EQ(d.diagonal_dominance, "weak");
  EXPECT_EQ(d.numeric_symmetry, "symmetric");

  const auto e =
      info(parse("%%MatrixMarket matrix coordinate pattern general\n"
                 "3000000000 5 0\n"));
  EXPECT_EQ(e.empty_rows, kBig);
  EXPECT_EQ(e.row_min, 0);
  EXPECT_EQ(e.row_max, 0);
  EXPECT_EQ(e.row_stddev, 0);
  EXPECT_EQ(e.diagonal_dominance, "weak");
  const auto a = info(parse("%%MatrixMarket matrix array real general\n3000000000 0\n"));
  EXPECT_EQ(a.empty_rows, kBig);
  EXPECT_EQ(a.nnz_distinct, 0);
}

// Random hypersparse files against the same statistics counted over a std::map. Values are
// small integers, so sums are exact in any order.
struct Expected {
  std::map<std::pair<std::int64_t, std::int64_t>, double> a;  // expanded, duplicates summed
};

Info counted(std::int64_t rows, std::int64_t cols, const Expected& x) {
  Info r;
  r.rows = rows;
  r.cols = cols;
  r.nnz_distinct = static_cast<std::int64_t>(x.a.size());
  std::map<std::int64_t, std::int64_t> len;
  std::map<std::int64_t, double> diag, off;
  bool sym = rows == cols, skew = sym;
  for (const auto& [ij, v] : x.a) {
    const auto [i, j] = ij;
    ++len[i];
    (i == j ? diag[i] : off[i]) += std::abs(v);
    r.lower_bandwidth = std::max(r.lower_bandwidth, i - j);
    r.upper_bandwidth = std::max(r.upper_bandwidth, j - i);
    const auto it = x.a.find({j, i});
    const double w = it == x.a.end() ? 0 : it->second;
    sym = sym && v == w;
    skew = skew && v == -w;
    r.value_min = r.value_min ? std::min(*r.value_min, v) : v;
    r.value_max = r.value_max ? std::max(*r.value_max, v) : v;
  }
  r.numeric_symmetry = sym ? "symmetric" : skew ? "skew-symmetric" : "none";
  r.empty_rows = rows - static_cast<std::int64_t>(len.size());
  r.row_min = r.empty_rows ? 0 : std::numeric_limits<std::int64_t>::max();
  bool weak = true, strict = r.empty_rows == 0;
  for (const auto& [i, n] : len) {
    r.row_min = std::min(r.row_min, n);
    r.row_max = std::max(r.row_max, n);
    weak = weak && diag[i] >= off[i];
    strict = strict && diag[i] > off[i];
  }
  r.diagonal_dominance = strict ? "strict" : weak ? "weak" : "none";
  r.row_mean = static_cast<double>(r.nnz_distinct) / static_cast<double>(rows);
  long double ss = static_cast<long double>(r.empty_rows) * r.row_mean * r.row_mean;
  for (const auto& [i, n] : len) ss += (n - r.row_mean) * (n - r.row_mean);
  r.row_stddev = static_cast<double>(std::sqrt(ss / rows));
  return r;
}

TEST(CheckHypersparse, RandomFilesAgreeWithAMapCount) {
  std::mt19937_64 rng(7);
  for (const char* sym : {"general", "symmetric", "skew-symmetric"}) {
    for (int trial = 0; trial < 4; ++trial) {
      SCOPED_TRACE(std::string(sym) + " trial " + std::to_string(trial));
      const std::string s = sym;
      const std::int64_t rows = 1000000 + trial * 777777;
      const std::int64_t cols = s == "general" && trial % 2 ? 4000000 : rows;
      // Few distinct rows and columns, so rows repeat, positions collide and mirrors meet.
      std::vector<std::int64_t> pick;
      for (int k = 0; k < 40; ++k) pick.push_back(static_cast<std::int64_t>(rng() % rows));
      const int n = 400 + 300 * trial;
      std::string body;
      Expected x;
      int stored = 0;
      for (int k = 0; k < n; ++k) {
        std::int64_t i = pick[rng() % pick.size()], j = pick[rng() % pick.size()] % cols;
        const double v = static_cast<double>(static_cast<int>(rng() % 9) - 4);
        if (s != "general" && i < j) std::swap(i, j);
        if (s == "skew-symmetric" && i == j) continue;
        body += std::to_string(i + 1) + " " + std::to_string(j + 1) + " " +
                std::to_string(static_cast<int>(v)) + "\n";
        ++stored;
        x.a[{i, j}] += v;
        if (s != "general" && i != j) x.a[{j, i}] += s == "symmetric" ? v : -v;
        // Half the general trials store every entry's mirror too: numerically symmetric.
        if (s == "general" && trial % 2 == 0 && i != j && j < rows) {
          body += std::to_string(j + 1) + " " + std::to_string(i + 1) + " " +
                  std::to_string(static_cast<int>(v)) + "\n";
          ++stored;
          x.a[{j, i}] += v;
        }
      }
      const std::string text = "%%MatrixMarket matrix coordinate real " + s + "\n" +
                               std::to_string(rows) + " " + std::to_string(cols) + " " +
                               std::to_string(stored) + "\n" + body;
      const Info got = info(parse(text));
      const Info want = counted(rows, cols, x);
      EXPECT_EQ(got.nnz_distinct, want.nnz_distinct);
      EXPECT_EQ(got.numeric_symmetry, want.numeric_symmetry);
      EXPECT_EQ(got.empty_rows, want.empty_rows);
      EXPECT_EQ(got.row_min, want.row_min);
      EXPECT_EQ(got.row_max, want.row_max);
      EXPECT_EQ(got.row_mean, want.row_mean);
      EXPECT_NEAR(got.row_stddev, want.row_stddev, 1e-13 * want.row_stddev);
      EXPECT_EQ(got.diagonal_dominance, want.diagonal_dominance);
      EXPECT_EQ(got.lower_bandwidth, want.lower_bandwidth);
      EXPECT_EQ(got.upper_bandwidth, want.upper_bandwidth);
      EXPECT_EQ(got.value_min, want.value_min);
      EXPECT_EQ(got.value_max, want.value_max);
      if (s == "general" && trial % 2 == 0) {
        EXPECT_EQ(got.numeric_symmetry, "symmetric");
      }
    }
  }
}

}  // namespace
}  // namespace mm::check
