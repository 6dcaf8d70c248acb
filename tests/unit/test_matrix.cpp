// Matrix types and conversions: COO->CSR (sort, sum duplicates), CSR->COO, dense<->sparse,
// symmetry expansion, field promotion, index width.
#include <gtest/gtest.h>

#include <complex>

#include "mm/matrix.hpp"

namespace mm {
namespace {

TEST(Matrix, CooToCsrSortsAndSumsDuplicatesInFileOrder) {
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n3 4 6\n3 4 1\n1 3 2\n1 1 3\n3 4 0.5\n3 1 "
      "-1\n1 3 4\n",
      "t");
  const auto coo = to_coo<std::int32_t, double>(m);
  const auto csr = coo_to_csr(coo);
  EXPECT_EQ(csr.ptr, (std::vector<std::int32_t>{0, 2, 2, 4}));
  EXPECT_EQ(csr.idx, (std::vector<std::int32_t>{0, 2, 0, 3}));
  EXPECT_EQ(csr.val, (std::vector<double>{3, 6, -1, 1.5}));
  const auto back = csr_to_coo(csr);
  EXPECT_EQ(back.row, (std::vector<std::int32_t>{0, 0, 2, 2}));
  EXPECT_EQ(back.col, csr.idx);
}

TEST(Matrix, SymmetricExpansionMirrorsOffDiagonal) {
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 5\n3 2 7\n", "t");
  const auto d = to_dense<double>(m);
  EXPECT_EQ(d.data, (std::vector<double>{2, 0, 5, 0, 0, 7, 5, 7, 0}));
  const auto stored = to_coo<std::int64_t, double>(m, /*expand=*/false);
  EXPECT_EQ(stored.nnz(), 3);
}

TEST(Matrix, SkewAndHermitianExpansion) {
  auto s =
      parse_mtx("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 4\n", "t");
  EXPECT_EQ(to_dense<double>(s).data, (std::vector<double>{0, -4, 4, 0}));
  auto h = parse_mtx(
      "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 2 3\n", "t");
  using C = std::complex<double>;
  EXPECT_EQ(to_dense<C>(h).data, (std::vector<C>{{1, 0}, {2, -3}, {2, 3}, {0, 0}}));
}

TEST(Matrix, ArraySymmetricAndSkewExpansion) {
  auto s = parse_mtx("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", "t");
  EXPECT_EQ(to_dense<double>(s).data, (std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6}));
  auto k = parse_mtx("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", "t");
  EXPECT_EQ(to_dense<double>(k).data, (std::vector<double>{0, -1, -2, 1, 0, -3, 2, 3, 0}));
  const MtxMatrix e = expand_symmetry(k);
  EXPECT_EQ(e.header.symmetry, Symmetry::general);
  EXPECT_EQ(e.header.nnz, 9);
}

TEST(Matrix, ArrayStoredTriangleToCoo) {
  auto s = parse_mtx("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", "t");
  const auto c = to_coo<std::int32_t, double>(s, /*expand=*/false);
  EXPECT_EQ(c.row, (std::vector<std::int32_t>{0, 1, 2, 1, 2, 2}));
  EXPECT_EQ(c.col, (std::vector<std::int32_t>{0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(c.val, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  auto k = parse_mtx("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", "t");
  const auto ck = to_coo<std::int32_t, double>(k, false);
  EXPECT_EQ(ck.row, (std::vector<std::int32_t>{1, 2, 2}));
  EXPECT_EQ(ck.col, (std::vector<std::int32_t>{0, 0, 1}));
  EXPECT_EQ((to_coo<std::int32_t, double>(k).nnz()), 9);
}

TEST(Matrix, ArrayIsColumnMajorDenseIsRowMajor) {
  auto a = parse_mtx("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n", "t");
  const auto d = to_dense<float>(a);
  EXPECT_EQ(d.data, (std::vector<float>{1, 3, 5, 2, 4, 6}));
  const MtxMatrix back = to_mtx(d);
  EXPECT_EQ(back.real, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(back.header.format, Format::array);
}

TEST(Matrix, PatternAndIntegerPromoteToReal) {
  auto p = parse_mtx("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", "t");
  EXPECT_EQ(to_dense<double>(p).data, (std::vector<double>{0, 1, 1, 0}));
  auto i = parse_mtx("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -9\n", "t");
  EXPECT_EQ((to_coo<std::int32_t, float>(i).val), std::vector<float>{-9.0f});
}

TEST(Matrix, DenseSparseRoundTrip) {
  Dense<double> d(2, 3);
  d(0, 2) = 4;
  d(1, 0) = -1;
  const auto c = dense_to_coo<std::int32_t>(d);
  EXPECT_EQ(c.nnz(), 2);
  EXPECT_EQ(coo_to_dense(c).data, d.data);
  EXPECT_EQ(dense_to_coo<std::int32_t>(d, /*drop_zeros=*/false).nnz(), 6);
}

TEST(Matrix, IndexWidthChosenBySize) {
  EXPECT_TRUE(index_fits<std::int32_t>(1000, 1000, 2147483647));
  EXPECT_FALSE(index_fits<std::int32_t>(1000, 1000, 2147483648LL));
  EXPECT_FALSE(index_fits<std::int32_t>(3000000000LL, 1, 1));
  auto big = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n3000000000 2 1\n2999999999 2 1\n", "t");
  EXPECT_THROW((to_coo<std::int32_t, double>(big)), InputError);
  EXPECT_EQ((to_coo<std::int64_t, double>(big).row[0]), 2999999998LL);
}

TEST(Matrix, ToMtxFromCsrIsGeneralCoordinate) {
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate complex general\n2 2 2\n2 2 1 -1\n1 1 0.5 2\n", "t");
  const auto csr = coo_to_csr(to_coo<std::int32_t, std::complex<float>>(m));
  const MtxMatrix out = to_mtx(csr);
  EXPECT_EQ(out.header.banner(), "%%MatrixMarket matrix coordinate complex general");
  EXPECT_EQ(out.row, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(out.real, (std::vector<double>{0.5, 1}));
  EXPECT_EQ(out.imag, (std::vector<double>{2, -1}));
}

}  // namespace
}  // namespace mm
