// mmcheck's analysis on hand-made matrices: info, validate, compare, residual and LU check.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "analysis/check.hpp"
#include "mm/error.hpp"
#include "random_matrices.hpp"

namespace mm::check {
namespace {

MtxMatrix parse(const std::string& text) {
  return parse_mtx(text, "t.mtx");
}

// ---- info ----

TEST(CheckInfo, RowStatsBandwidthDominanceAndMemory) {
  // Rows: [4 -1 . .] [-1 4 . -3] [. . . .] [2 . . 5]
  const auto r =
      info(parse("%%MatrixMarket matrix coordinate real general\n4 4 7\n"
                 "1 1 4\n1 2 -1\n2 1 -1\n2 2 4\n2 4 -3\n4 1 2\n4 4 5\n"));
  EXPECT_EQ(r.rows, 4);
  EXPECT_EQ(r.nnz_stored, 7);
  EXPECT_EQ(r.nnz_expanded, 7);
  EXPECT_EQ(r.nnz_distinct, 7);
  EXPECT_EQ(r.row_min, 0);
  EXPECT_EQ(r.row_max, 3);
  EXPECT_DOUBLE_EQ(r.row_mean, 1.75);
  EXPECT_DOUBLE_EQ(r.row_stddev, std::sqrt(1.1875));  // lengths 2 3 0 2
  EXPECT_EQ(r.empty_rows, 1);
  EXPECT_EQ(r.diagonal_dominance, "weak");  // row 2: 4 == |-1| + |-3|; row 3: 0 == 0
  EXPECT_EQ(r.lower_bandwidth, 3);
  EXPECT_EQ(r.upper_bandwidth, 2);
  ASSERT_TRUE(r.value_min.has_value());
  EXPECT_EQ(*r.value_min, -3);
  EXPECT_EQ(*r.value_max, 5);
  EXPECT_FALSE(r.value_range_is_abs);
  EXPECT_EQ(r.numeric_symmetry, "none");
  EXPECT_EQ(r.csr32_bytes, 5 * 4 + 7 * (4 + 8));
  EXPECT_EQ(r.csr64_bytes, 5 * 8 + 7 * (8 + 8));
  EXPECT_EQ(r.dense_bytes, 4 * 4 * 8);
  const auto j = to_json(r);
  EXPECT_EQ(j["row_length"]["max"], 3);
  EXPECT_EQ(j["bandwidth"]["lower"], 3);
  EXPECT_EQ(j["diagonal_dominance"], "weak");
  EXPECT_EQ(j["value_range"]["min"], -3.0);
  EXPECT_EQ(j["memory_bytes"]["csr32"], 104);
}

TEST(CheckInfo, StrictDominanceAndSymmetricExpansion) {
  // Stored lower triangle of [3 1 .; 1 3 -1; . -1 3]: 5 stored, 7 expanded.
  const auto r =
      info(parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 3\n2 1 1\n2 2 3\n3 2 "
                 "-1\n3 3 3\n"));
  EXPECT_EQ(r.nnz_stored, 5);
  EXPECT_EQ(r.nnz_expanded, 7);
  EXPECT_EQ(r.diagonal_dominance, "strict");
  EXPECT_EQ(r.numeric_symmetry, "symmetric");
  EXPECT_TRUE(r.symmetric && r.hermitian && !r.skew_symmetric);
  EXPECT_EQ(r.lower_bandwidth, 1);
  EXPECT_EQ(r.upper_bandwidth, 1);
  EXPECT_EQ(r.row_min, 2);
  EXPECT_EQ(r.row_max, 3);
}

TEST(CheckInfo, SymmetryDetectionOfGeneralFiles) {
  auto sym = [](const std::string& body) {
    return info(parse("%%MatrixMarket matrix coordinate " + body)).numeric_symmetry;
  };
  EXPECT_EQ(sym("real general\n2 2 3\n1 2 5\n2 1 5\n2 2 1\n"), "symmetric");
  EXPECT_EQ(sym("real general\n2 2 2\n1 2 2\n2 1 -2\n"), "skew-symmetric");
  EXPECT_EQ(sym("real general\n2 2 3\n1 2 2\n2 1 -2\n1 1 1\n"),
            "none");  // skew needs a zero diagonal
  EXPECT_EQ(sym("complex general\n2 2 3\n1 1 1 0\n1 2 2 3\n2 1 2 -3\n"), "hermitian");
  EXPECT_EQ(sym("complex general\n2 2 2\n1 2 2 3\n2 1 2 3\n"), "symmetric");
  EXPECT_EQ(sym("complex general\n2 2 1\n1 1 1 1\n"), "symmetric");  // not hermitian: imag diag
  // Duplicates are summed first; an explicit zero needs no mirror.
  EXPECT_EQ(sym("real general\n3 3 4\n1 2 1\n1 2 1\n2 1 2\n3 1 0\n"), "symmetric");
  EXPECT_EQ(sym("real general\n2 3 1\n1 1 1\n"), "none");  // rectangular
  EXPECT_EQ(sym("pattern general\n2 2 2\n1 2\n2 1\n"), "symmetric");
  const auto h =
      info(parse("%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 2 0\n2 1 1 1\n"));
  EXPECT_EQ(h.numeric_symmetry, "hermitian");
  EXPECT_FALSE(h.symmetric);
  EXPECT_TRUE(h.value_range_is_abs);
  EXPECT_DOUBLE_EQ(*h.value_min, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(*h.value_max, 2.0);
  const auto k = info(
      parse("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -1\n"));
  EXPECT_EQ(k.numeric_symmetry, "skew-symmetric");
  EXPECT_EQ(k.nnz_expanded, 4);
  EXPECT_EQ(*k.value_min, -4);
  EXPECT_EQ(*k.value_max, 4);
}

TEST(CheckInfo, ArrayAndPatternAndEmpty) {
  const auto a = info(parse("%%MatrixMarket matrix array real symmetric\n2 2\n1\n0\n3\n"));
  EXPECT_EQ(a.nnz_stored, 3);
  EXPECT_EQ(a.nnz_expanded, 4);
  EXPECT_EQ(a.nnz_distinct, 4);  // zeros of an array are entries
  EXPECT_EQ(a.numeric_symmetry, "symmetric");
  EXPECT_EQ(a.diagonal_dominance, "strict");
  const auto p = info(parse("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"));
  EXPECT_FALSE(p.value_min.has_value());
  EXPECT_TRUE(to_json(p)["value_range"].is_null());
  const auto e = info(parse("%%MatrixMarket matrix coordinate real general\n3 4 0\n"));
  EXPECT_EQ(e.empty_rows, 3);
  EXPECT_EQ(e.row_max, 0);
  EXPECT_EQ(e.diagonal_dominance, "weak");
  EXPECT_FALSE(e.value_min.has_value());
}

// ---- validate ----

// W is a warning of KIND, COUNT entries, the first entry of them FIRST_ENTRY at (ROW, COL).
void expect_warning(const Warning& w, const std::string& kind, std::int64_t count,
                    std::int64_t first_entry, std::int64_t row, std::int64_t col) {
  EXPECT_EQ(w.kind, kind);
  EXPECT_EQ(w.count, count) << kind;
  EXPECT_EQ(w.first_entry, first_entry) << kind;
  EXPECT_EQ(w.first_row, row) << kind;
  EXPECT_EQ(w.first_col, col) << kind;
}

TEST(CheckValidate, DuplicatesAndExplicitZeros) {
  const auto w = validate(parse(
      "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n2 3 0\n2 3 5\n1 1 2\n3 3 0\n"));
  ASSERT_EQ(w.size(), 2u);
  expect_warning(w[0], "duplicates", 2, 3, 2, 3);
  EXPECT_EQ(w[0].message, "2 duplicate entries (first: entry 3 at (2,3))");
  expect_warning(w[1], "explicit_zeros", 2, 2, 2, 3);
}

TEST(CheckValidate, UpperTriangleOfSymmetricFile) {
  // (1,2) and (2,1) are the same entry of a symmetric matrix: stored twice.
  const auto w = validate(parse(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 2 1\n2 1 1\n3 3 1\n1 3 4\n"));
  ASSERT_EQ(w.size(), 2u);
  expect_warning(w[0], "duplicates", 1, 2, 2, 1);
  expect_warning(w[1], "upper_triangle", 2, 1, 1, 2);
  EXPECT_EQ(w[1].message,
            "2 entries above the diagonal in a symmetric file (first: entry 1 at (1,2)); the "
            "convention stores the lower triangle");
}

TEST(CheckValidate, CleanFilesAndOtherWarnings) {
  EXPECT_TRUE(
      validate(parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n"))
          .empty());
  EXPECT_TRUE(validate(parse("%%MatrixMarket matrix array real general\n2 1\n0\n0\n")).empty());
  EXPECT_TRUE(
      validate(parse("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n")).empty());
  const auto nf =
      validate(parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 1 nan\n"));
  ASSERT_EQ(nf.size(), 1u);
  expect_warning(nf[0], "non_finite", 1, 2, 2, 1);
  const auto hd =
      validate(parse("%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 1\n3 1\n"));
  ASSERT_EQ(hd.size(), 1u);
  // Entry 3 is (2,2), after (1,1) and (2,1) of the stored triangle.
  expect_warning(hd[0], "hermitian_diagonal", 1, 3, 2, 2);
}

TEST(CheckValidate, ValuesOnPatternLinesListedFirst) {
  // Lines 4 and 6 carry values; entry 3 duplicates entry 1.
  const auto w = validate(parse(
      "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n3 2 1.0\n% x\n1 1 2 0\n"));
  ASSERT_EQ(w.size(), 2u);
  expect_warning(w[0], "pattern_values", 2, 2, 3, 2);
  EXPECT_EQ(w[0].message,
            "2 entry lines of a pattern file carry a value after the indices, ignored (first: "
            "entry 2 at (3,2), line 4)");
  expect_warning(w[1], "duplicates", 1, 3, 1, 1);
}

// ---- compare ----

const char* kA = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 2\n1 2 1e-12\n";
const char* kB =
    "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.0000000001\n2 2 2\n2 1 0\n";

TEST(CheckCompare, TolerancesAndPatternDifferences) {
  auto r = compare(parse(kA), parse(kB));
  EXPECT_EQ(r.only_in_a, 1);
  EXPECT_EQ(r.only_in_b, 1);
  EXPECT_EQ(r.nnz_a, 3);
  EXPECT_EQ(r.nnz_b, 3);
  EXPECT_NEAR(r.max_abs_error, 1e-10, 1e-16);
  EXPECT_TRUE(std::isinf(r.max_rel_error));  // 1e-12 against a missing (zero) entry
  const double d = 1.0000000001 - 1.0;
  EXPECT_DOUBLE_EQ(r.rel_frobenius_error,
                   std::sqrt(d * d + 1e-24) / std::sqrt(1.0000000001 * 1.0000000001 + 4.0));
  // Default rtol 1e-9, atol 0: only the entry missing in B fails.
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.first_row, 1);
  EXPECT_EQ(r.first_col, 2);
  EXPECT_EQ(r.first_a, std::complex<double>(1e-12));
  EXPECT_EQ(r.first_b, std::complex<double>(0));
  r = compare(parse(kA), parse(kB), {1e-9, 1e-11});
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.mismatches, 0);
  r = compare(parse(kA), parse(kB), {1e-11, 1e-11});
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.first_row, 1);
  EXPECT_EQ(r.first_col, 1);
}

TEST(CheckCompare, DenseAgainstSparseSymmetricAndComplex) {
  const auto dense = parse("%%MatrixMarket matrix array real general\n2 2\n1\n5\n5\n2\n");
  const auto sym =
      parse("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 5\n2 2 2\n");
  auto r = compare(dense, sym);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.max_abs_error, 0);
  EXPECT_EQ(r.only_in_a, 0);
  const auto diag = parse("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n2\n");
  r = compare(diag, parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n"));
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.only_in_a, 2);  // the stored zeros of the array
  const auto h =
      parse("%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 2 3\n");
  const auto g = parse(
      "%%MatrixMarket matrix coordinate complex general\n2 2 3\n1 1 1 0\n2 1 2 3\n1 2 2 -3\n");
  EXPECT_TRUE(compare(h, g).pass);
  const auto g2 =
      parse("%%MatrixMarket matrix coordinate complex general\n2 2 3\n1 1 1 0\n2 1 2 3\n1 2 2 3\n");
  r = compare(h, g2);
  EXPECT_FALSE(r.pass);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 6.0);
  EXPECT_EQ(r.first_row, 1);
  EXPECT_EQ(r.first_col, 2);
  // NaN and inf compare equal to themselves.
  const auto n = parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 inf\n");
  EXPECT_TRUE(compare(n, n).pass);
  EXPECT_THROW(compare(dense, parse("%%MatrixMarket matrix array real general\n2 1\n1\n2\n")),
               InputError);
}

// ---- residual ----

TEST(CheckResidual, HandComputedSystem) {
  const auto a =
      parse("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 2\n2 1 1\n2 2 3\n");
  const auto x = parse("%%MatrixMarket matrix array real general\n2 1\n1\n1\n");
  auto r = residual(a, x, parse("%%MatrixMarket matrix array real general\n2 1\n3\n4\n"));
  EXPECT_EQ(r.relative_residual, 0);
  EXPECT_TRUE(r.pass);
  EXPECT_DOUBLE_EQ(r.norm_a, std::sqrt(15.0));
  // b = (3, 5): ||r|| = 1.
  r = residual(a, x, parse("%%MatrixMarket matrix array real general\n2 1\n3\n5\n"));
  EXPECT_DOUBLE_EQ(r.relative_residual, 1.0 / (std::sqrt(15.0) * std::sqrt(2.0) + std::sqrt(34.0)));
  EXPECT_FALSE(r.pass);
  EXPECT_TRUE(
      residual(a, x, parse("%%MatrixMarket matrix array real general\n2 1\n3\n5\n"), 0.1).pass);
  // Two columns: x = [1 0; 1 1], A x = [3 1; 4 3]; the second column is exact.
  const auto x2 = parse("%%MatrixMarket matrix array real general\n2 2\n1\n1\n0\n1\n");
  r = residual(a, x2, parse("%%MatrixMarket matrix array real general\n2 2\n3\n5\n1\n3\n"));
  ASSERT_EQ(r.per_column.size(), 2u);
  EXPECT_EQ(r.per_column[1], 0);
  EXPECT_EQ(r.worst_column, 1);
  EXPECT_GT(r.relative_residual, 0);
  EXPECT_THROW(residual(a, x2, parse("%%MatrixMarket matrix array real general\n2 1\n3\n4\n")),
               InputError);
}

TEST(CheckResidual, ComplexSystem) {
  // A = [i 0; 0 2], x = (1, i): A x = (i, 2i).
  const auto a =
      parse("%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 0 1\n2 2 2 0\n");
  const auto x = parse("%%MatrixMarket matrix array complex general\n2 1\n1 0\n0 1\n");
  EXPECT_EQ(residual(a, x, parse("%%MatrixMarket matrix array complex general\n2 1\n0 1\n0 2\n"))
                .relative_residual,
            0);
  EXPECT_FALSE(residual(a, x, parse("%%MatrixMarket matrix array real general\n2 1\n0\n2\n")).pass);
}

// mmsolve's check (32-bit CSR as mmsolve builds it, dense x and b) and mmcheck residual (from
// the files) give the same backward error, bit for bit, on a system with a stored triangle and
// a duplicate entry, three columns of x (one exact, one off, one zero against b = 0).
TEST(CheckResidual, MmsolveAndMmcheckAgree) {
  // A = [4 -1 0; -1 4 2; 0 2 5] (the (2,2) entry stored as 3 + 1).
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 6\n1 1 4\n2 1 -1\n2 2 3\n3 2 2\n"
      "2 2 1\n3 3 5\n");
  // Columns of x: (1, 1, 1), (0.5, -0.25, 2), (0, 0, 0); of b: A*(1,1,1) = (3, 5, 7),
  // A*(0.5,-0.25,2) + (0, 1e-3, 0) = (2.25, 2.501, 9.5), and 0.
  const auto x =
      parse("%%MatrixMarket matrix array real general\n3 3\n1\n1\n1\n0.5\n-0.25\n2\n0\n0\n0\n");
  const auto b =
      parse("%%MatrixMarket matrix array real general\n3 3\n3\n5\n7\n2.25\n2.501\n9.5\n0\n0\n0\n");
  const ResidualResult r = residual(a, x, b);
  const auto csr = coo_to_csr(to_coo<std::int32_t, double>(a));
  const Dense<double> xd = to_dense<double>(x), bd = to_dense<double>(b);
  const SolveResidual s = solve_residual(csr, xd, bd);
  EXPECT_EQ(s.backward_error, r.relative_residual);
  EXPECT_EQ(frobenius_norm(csr), r.norm_a);
  EXPECT_DOUBLE_EQ(r.norm_a, std::sqrt(16.0 + 1 + 1 + 16 + 4 + 4 + 25));
  const std::vector<ColumnNorms> cols = column_norms(csr, xd, bd);
  ASSERT_EQ(cols.size(), 3u);
  ASSERT_EQ(r.per_column.size(), 3u);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(backward_error(cols[j], r.norm_a), r.per_column[j]);
  EXPECT_EQ(r.per_column[0], 0);
  EXPECT_EQ(r.per_column[2], 0);  // 0/0
  EXPECT_NEAR(cols[1].residual, 1e-3, 1e-15);
  EXPECT_DOUBLE_EQ(r.relative_residual,
                   cols[1].residual / (r.norm_a * std::sqrt(0.25 + 0.0625 + 4) + cols[1].b));
  EXPECT_DOUBLE_EQ(s.relative_residual,
                   cols[1].residual / std::sqrt(2.25 * 2.25 + 2.501 * 2.501 + 9.5 * 9.5));
  // Complex arithmetic too: mmcheck's complex path and mmsolve's with 64-bit indices.
  const auto ac =
      parse("%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 0 1\n2 2 2 0\n");
  const auto xc = parse("%%MatrixMarket matrix array complex general\n2 1\n1 0\n0 1\n");
  const auto bc = parse("%%MatrixMarket matrix array complex general\n2 1\n0 1\n0 2.5\n");
  using C = std::complex<double>;
  const SolveResidual sc =
      solve_residual(coo_to_csr(to_coo<std::int64_t, C>(ac)), to_dense<C>(xc), to_dense<C>(bc));
  EXPECT_EQ(sc.backward_error, residual(ac, xc, bc).relative_residual);
  EXPECT_GT(sc.backward_error, 0);
  // A NaN in x: infinite for both (and a failed check).
  const auto xn = parse("%%MatrixMarket matrix array real general\n3 1\nnan\n1\n1\n");
  const auto b1 = parse("%%MatrixMarket matrix array real general\n3 1\n3\n5\n7\n");
  EXPECT_EQ(residual(a, xn, b1).relative_residual, INFINITY);
  EXPECT_FALSE(residual(a, xn, b1).pass);
  EXPECT_EQ(solve_residual(csr, to_dense<double>(xn), to_dense<double>(b1)).backward_error,
            INFINITY);
}

// ---- lu ----

// A = [1 2 3; 4 5 6; 7 8 10] by partial pivoting, by hand: ipiv = (3, 3, 3),
// L = [1 . .; 1/7 1 .; 4/7 1/2 1], U = [7 8 10; . 6/7 11/7; . . -1/2].
const char* kLuA = "%%MatrixMarket matrix array real general\n3 3\n1\n4\n7\n2\n5\n8\n3\n6\n10\n";
MtxMatrix lu_factors(double u33 = -0.5) {
  Dense<double> lu(3, 3);
  lu(0, 0) = 7, lu(0, 1) = 8, lu(0, 2) = 10;
  lu(1, 0) = 1.0 / 7, lu(1, 1) = 6.0 / 7, lu(1, 2) = 11.0 / 7;
  lu(2, 0) = 4.0 / 7, lu(2, 1) = 0.5, lu(2, 2) = u33;
  return to_mtx(lu);
}
MtxMatrix pivots(const std::string& values, const std::string& rows = "3") {
  return parse("%%MatrixMarket matrix array integer general\n" + rows + " 1\n" + values);
}

TEST(CheckLu, HandComputedFactorizationPasses) {
  const auto a = parse(kLuA);
  const auto ipiv = read_pivots(pivots("3\n3\n3\n"), 3, "p.mtx");
  EXPECT_EQ(ipiv, (std::vector<std::int64_t>{3, 3, 3}));
  const auto r = lu_check(a, lu_factors(), ipiv, default_lu_tol(3));
  EXPECT_TRUE(r.pass);
  EXPECT_LT(r.relative_error, 1e-15);
  EXPECT_DOUBLE_EQ(r.norm_a, std::sqrt(1 + 4 + 9 + 16 + 25 + 36 + 49 + 64 + 100.0));
  EXPECT_DOUBLE_EQ(default_lu_tol(3), 300 * std::numeric_limits<double>::epsilon());
}

TEST(CheckLu, WrongFactorsOrPivotsFail) {
  const auto a = parse(kLuA);
  // Pivots (3, 2, 3) give PA = [7 8 10; 4 5 6; 1 2 3]: rows 2 and 3 of LU are swapped.
  auto r = lu_check(a, lu_factors(), {3, 2, 3}, default_lu_tol(3));
  EXPECT_FALSE(r.pass);
  EXPECT_DOUBLE_EQ(r.norm_diff, std::sqrt(2 * (9 + 9 + 9.0)));
  // U(3,3) off by 0.25: PA - LU is zero but for that entry.
  r = lu_check(a, lu_factors(-0.25), {3, 3, 3}, default_lu_tol(3));
  EXPECT_FALSE(r.pass);
  EXPECT_NEAR(r.norm_diff, 0.25, 1e-14);
}

// A random A, LU and pivots at n = 97 (not a multiple of the row chunks): ||PA - LU||_F against
// a plain product of the full L and U on the swapped rows, and the same bits on 1, 2, 3 and 8
// threads; a complex pair too.
TEST(CheckLu, ThreadsGiveTheSameBitsAsThePlainProduct) {
  constexpr std::int64_t n = 97;
  const Dense<double> a = test::random_dense<double>(n, n, 12345),
                      lu = test::random_dense<double>(n, n, 12346);
  std::mt19937_64 rng(12347);
  std::vector<std::int64_t> ipiv(n);
  for (std::int64_t i = 0; i < n; ++i)
    ipiv[static_cast<std::size_t>(i)] = i + 1 + static_cast<std::int64_t>(rng() % (n - i));
  Dense<double> want = a;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = ipiv[static_cast<std::size_t>(i)] - 1;
    for (std::int64_t j = 0; j < n; ++j) std::swap(want(i, j), want(p, j));
  }
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double prod = 0;
      for (std::int64_t k = 0; k <= std::min(i, j); ++k)
        prod += (k == i ? 1.0 : lu(i, k)) * lu(k, j);
      sum += (want(i, j) - prod) * (want(i, j) - prod);
    }
  const auto one = lu_check(to_mtx(a), to_mtx(lu), ipiv, 1.0, 1);
  EXPECT_NEAR(one.norm_diff, std::sqrt(sum), 1e-12 * std::sqrt(sum));
  EXPECT_GT(one.norm_diff, 1.0);
  for (const int threads : {2, 3, 8}) {
    const auto r = lu_check(to_mtx(a), to_mtx(lu), ipiv, 1.0, threads);
    EXPECT_EQ(r.norm_diff, one.norm_diff) << threads << " threads";
    EXPECT_EQ(r.relative_error, one.relative_error) << threads << " threads";
  }
  const auto ac = test::random_dense<std::complex<double>>(n, n, 12348),
             luc = test::random_dense<std::complex<double>>(n, n, 12349);
  const auto c1 = lu_check(to_mtx(ac), to_mtx(luc), ipiv, 1.0, 1);
  EXPECT_GT(c1.norm_diff, 1.0);
  EXPECT_EQ(lu_check(to_mtx(ac), to_mtx(luc), ipiv, 1.0, 3).norm_diff, c1.norm_diff);
}

TEST(CheckLu, PivotFileValidation) {
  EXPECT_THROW(read_pivots(pivots("3\n0\n3\n"), 3, "p"), InputError);
  EXPECT_THROW(read_pivots(pivots("3\n4\n3\n"), 3, "p"), InputError);
  EXPECT_THROW(read_pivots(pivots("3\n3\n", "2"), 3, "p"), InputError);
  EXPECT_THROW(
      read_pivots(parse("%%MatrixMarket matrix coordinate integer general\n3 1 1\n1 1 1\n"), 3,
                  "p"),
      InputError);
  EXPECT_THROW(
      read_pivots(parse("%%MatrixMarket matrix array real general\n2 1\n1.5\n2\n"), 2, "p"),
      InputError);
  EXPECT_EQ(read_pivots(parse("%%MatrixMarket matrix array real general\n2 1\n2\n2\n"), 2, "p"),
            (std::vector<std::int64_t>{2, 2}));
  try {
    read_pivots(pivots("3\n9\n3\n"), 3, "p.mtx");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "p.mtx: pivot 2 is 9, out of range 1..3");
  }
}

}  // namespace
}  // namespace mm::check
