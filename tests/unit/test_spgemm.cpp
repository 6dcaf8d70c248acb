// SpGEMM, SpMM and DSMM: every implementation against the serial references (and those
// against the dense GEMM reference) on awkward shapes and the corpus.
#include <gtest/gtest.h>

#include "gemm.hpp"
#include "random_matrices.hpp"
#include "spgemm.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

template <class P>
class SpgemmTypes : public ::testing::Test {};
using Types =
    ::testing::Types<std::pair<std::int32_t, float>, std::pair<std::int32_t, double>,
                     std::pair<std::int64_t, double>, std::pair<std::int32_t, std::complex<float>>,
                     std::pair<std::int64_t, std::complex<double>>>;
TYPED_TEST_SUITE(SpgemmTypes, Types);

template <class I, class T>
Csr<I, T> transpose(const Csr<I, T>& a) {
  Coo<I, T> c = csr_to_coo(a);
  std::swap(c.row, c.col);
  std::swap(c.rows, c.cols);
  return coo_to_csr(c);
}

template <class I, class T>
Dense<T> dense_of(const Csr<I, T>& a) {
  return coo_to_dense(csr_to_coo(a));
}

// Columns strictly increasing in every row, offsets consistent.
template <class I, class T>
void expect_well_formed(const Csr<I, T>& c, const std::string& what) {
  ASSERT_EQ(c.ptr.size(), static_cast<std::size_t>(c.rows) + 1) << what;
  ASSERT_EQ(c.ptr.front(), 0) << what;
  ASSERT_EQ(static_cast<std::size_t>(c.ptr.back()), c.idx.size()) << what;
  ASSERT_EQ(c.idx.size(), c.val.size()) << what;
  for (std::int64_t i = 0; i < c.rows; ++i)
    for (auto k = c.ptr[i]; k < c.ptr[i + 1]; ++k) {
      ASSERT_TRUE(c.idx[k] >= 0 && c.idx[k] < c.cols) << what << " row " << i;
      if (k > c.ptr[i]) {
        ASSERT_LT(c.idx[k - 1], c.idx[k]) << what << " row " << i;
      }
    }
}

TEST(Spgemm, ReferenceByHand) {
  // A = [1 0 2; 0 3 0], B = [0 4; 5 0; 6 0]: A*B = [12 4; 15 0] (row 1 has one entry).
  const auto a = coo_to_csr(to_coo<std::int32_t, double>(parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1\n1 3 2\n2 2 3\n", "a")));
  const auto b = coo_to_csr(to_coo<std::int32_t, double>(parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n3 2 3\n1 2 4\n2 1 5\n3 1 6\n", "b")));
  const auto c = spgemm_ref(a, b, 2.0);
  EXPECT_EQ(c.ptr, (std::vector<std::int32_t>{0, 2, 3}));
  EXPECT_EQ(c.idx, (std::vector<std::int32_t>{0, 1, 0}));
  EXPECT_EQ(c.val, (std::vector<double>{24, 8, 30}));
  const Dense<double> d = dense_of(b);
  Dense<double> s(2, 2);
  spmm_ref(a, d, s, 2.0);
  EXPECT_EQ(s.data, (std::vector<double>{24, 8, 30, 0}));
  Dense<double> da = dense_of(a), ds(2, 2);
  dsmm_ref(da, b, ds, 2.0);
  EXPECT_EQ(ds.data, (std::vector<double>{24, 8, 30, 0}));
}

TEST(Spgemm, InnerMismatchIsAnInputError) {
  Csr<std::int32_t, double> a, b;
  a.rows = 2, a.cols = 3, a.ptr = {0, 0, 0};
  b.rows = 4, b.cols = 2, b.ptr = {0, 0, 0, 0, 0};
  Csr<std::int32_t, double> c;
  for (const auto& impl : spgemm_impls<std::int32_t, double>())
    EXPECT_THROW(impl.make({&a, &b, &c, 1.0})->run(), InputError) << impl.name;
  Dense<double> d(4, 2), out(2, 2);
  for (const auto& impl : spmm_impls<std::int32_t, double>())
    EXPECT_THROW(impl.make({&a, &d, &out, 1.0})->run(), InputError) << impl.name;
}

// Each awkward shape as A, times a random B with a different column count; the references
// are checked against dense GEMM, every other implementation against them.
TYPED_TEST(SpgemmTypes, EveryImplMatchesRefOnAwkwardShapes) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  std::uint64_t seed = 1;
  for (const auto& s : test::awkward_shapes()) {
    const auto a = test::random_csr<I, T>(s, seed++);
    const std::int64_t n = s.cols % 7 + 3 * (s.rows % 5) + 1;
    const auto b = test::random_csr<I, T>({"b", s.cols, n, 0.3, s.empty_rows, s.dense_row}, seed++);
    const auto db = test::random_dense<T>(s.cols, n, seed++);
    const auto da = test::random_dense<T>(n, s.rows, seed++);
    const T alpha(-1.5);
    const std::string what = s.name + " x " + std::to_string(s.cols) + "x" + std::to_string(n);

    // The references against dense GEMM of the same operands.
    Dense<T> want_sp(a.rows, n), want_spmm(a.rows, n), want_dsmm(n, a.cols);
    gemm_ref(dense_of(a), dense_of(b), want_sp, alpha, T{});
    gemm_ref(dense_of(a), db, want_spmm, alpha, T{});
    gemm_ref(da, dense_of(a), want_dsmm, alpha, T{});
    const auto ref = spgemm_ref(a, b, alpha);
    expect_well_formed(ref, "spgemm ref on " + what);
    test::expect_close(dense_of(ref).data, want_sp.data, test::tolerance<T>(s.cols),
                       "spgemm ref on " + what);

    for (const auto& impl : spgemm_impls<I, T>()) {
      Csr<I, T> c;
      auto r = impl.make({&a, &b, &c, alpha});
      r->run();
      r->run();
      expect_well_formed(c, impl.name + " on " + what);
      EXPECT_EQ(c.ptr, ref.ptr) << impl.name << " on " << what;
      EXPECT_EQ(c.idx, ref.idx) << impl.name << " on " << what;
      test::expect_close(c.val, ref.val, test::tolerance<T>(s.cols),
                         "spgemm " + impl.name + " on " + what);
    }
    for (const auto& impl : spmm_impls<I, T>()) {
      Dense<T> c(a.rows, n, test::poison<T>());
      auto r = impl.make({&a, &db, &c, alpha});
      r->run();
      r->run();
      test::expect_close(c.data, want_spmm.data, test::tolerance<T>(s.cols),
                         "spmm " + impl.name + " on " + what);
    }
    // DSMM: dense n x rows times A (this shape as the sparse right operand).
    for (const auto& impl : dsmm_impls<I, T>()) {
      Dense<T> c(n, a.cols, test::poison<T>());
      auto r = impl.make({&da, &a, &c, alpha});
      r->run();
      r->run();
      test::expect_close(c.data, want_dsmm.data, test::tolerance<T>(s.rows),
                         "dsmm " + impl.name + " on " + s.name);
    }
  }
}

// Rows whose products cancel: the entry stays (structural), its value is zero.
TEST(Spgemm, CancellationKeepsTheEntry) {
  const auto a = coo_to_csr(to_coo<std::int32_t, double>(
      parse_mtx("%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1\n1 2 1\n", "a")));
  const auto b = coo_to_csr(to_coo<std::int32_t, double>(
      parse_mtx("%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 1\n2 1 -1\n", "b")));
  for (const auto& impl : spgemm_impls<std::int32_t, double>()) {
    Csr<std::int32_t, double> c;
    impl.make({&a, &b, &c, 1.0})->run();
    EXPECT_EQ(c.idx, (std::vector<std::int32_t>{0})) << impl.name;
    EXPECT_EQ(c.val, (std::vector<double>{0.0})) << impl.name;
  }
}

// Every coordinate corpus file: A*A when square, else A^T*A; SpMM and DSMM with random
// dense partners. Complex double holds every field.
TEST(Spgemm, EveryImplOnTheCorpus) {
  using I = std::int32_t;
  using T = std::complex<double>;
  int tested = 0;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    if (m.header.format != Format::coordinate) continue;
    const auto b = coo_to_csr(to_coo<I, T>(m));
    const auto a = b.rows == b.cols ? b : transpose(b);
    const auto ref = spgemm_ref(a, b, T(1));
    for (const auto& impl : spgemm_impls<I, T>()) {
      Csr<I, T> c;
      impl.make({&a, &b, &c, T(1)})->run();
      expect_well_formed(c, impl.name + " on " + f);
      ASSERT_EQ(c.idx, ref.idx) << impl.name << " on " << f;
      for (std::size_t k = 0; k < c.val.size(); ++k) {
        if (!std::isfinite(std::abs(ref.val[k])))
          continue;  // the corpus holds inf and nan on purpose
        ASSERT_LE(std::abs(c.val[k] - ref.val[k]), 1e-10 * (1 + std::abs(ref.val[k])))
            << impl.name << " on " << f;
      }
    }
    const auto x = test::random_dense<T>(b.cols, 3, 5), y = test::random_dense<T>(3, b.rows, 6);
    Dense<T> want_spmm(b.rows, 3), want_dsmm(3, b.cols);
    spmm_ref(b, x, want_spmm, T(1));
    dsmm_ref(y, b, want_dsmm, T(1));
    for (const auto& impl : spmm_impls<I, T>()) {
      Dense<T> c(b.rows, 3, test::poison<T>());
      impl.make({&b, &x, &c, T(1)})->run();
      for (std::size_t k = 0; k < c.data.size(); ++k)
        if (std::isfinite(std::abs(want_spmm.data[k]))) {
          ASSERT_LE(std::abs(c.data[k] - want_spmm.data[k]),
                    1e-10 * (1 + std::abs(want_spmm.data[k])))
              << "spmm " << impl.name << " on " << f;
        }
    }
    for (const auto& impl : dsmm_impls<I, T>()) {
      Dense<T> c(3, b.cols, test::poison<T>());
      impl.make({&y, &b, &c, T(1)})->run();
      for (std::size_t k = 0; k < c.data.size(); ++k)
        if (std::isfinite(std::abs(want_dsmm.data[k]))) {
          ASSERT_LE(std::abs(c.data[k] - want_dsmm.data[k]),
                    1e-10 * (1 + std::abs(want_dsmm.data[k])))
              << "dsmm " << impl.name << " on " << f;
        }
    }
    ++tested;
  }
  EXPECT_GE(tested, 15);
}

TEST(Spgemm, WorkFormulaCountsProducts) {
  // A = [1 1; 0 1], B = [1 1 1; 0 0 1]: row 0 of A meets 3 + 1 entries of B, row 1 meets 1.
  const auto a = coo_to_csr(to_coo<std::int32_t, double>(parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 2 1\n2 2 1\n", "a")));
  const auto b = coo_to_csr(to_coo<std::int32_t, double>(parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n2 3 4\n1 1 1\n1 2 1\n1 3 1\n2 3 1\n", "b")));
  EXPECT_EQ(spgemm_products(a, b), 5.0);
  EXPECT_EQ(product_flops<double>(5.0), 10.0);
  EXPECT_EQ(product_flops<std::complex<float>>(5.0), 40.0);
}

}  // namespace
}  // namespace mm
