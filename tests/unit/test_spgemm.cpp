// SpGEMM, SpMM and DSMM: every implementation against the serial references (and those
// against the dense GEMM reference) on awkward shapes and the corpus; the CUDA ones also on
// rows binned every way (tiny to dense-accumulator long) where a GPU exists.
#include <gtest/gtest.h>

#include "gemm.hpp"
#include "gpu.hpp"
#include "random_matrices.hpp"
#include "spgemm.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

template <class P>
class SpgemmTypes : public ::testing::Test {};
using Types = ::testing::Types<std::pair<std::int32_t, float>, std::pair<std::int32_t, double>,
                               std::pair<std::int64_t, float>, std::pair<std::int64_t, double>,
                               std::pair<std::int32_t, std::complex<float>>,
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

// The whole runner protocol: upload, a run, a timed run (repeats must not compound),
// download. CPU runners do nothing in upload and download.
template <class Make, class P>
void run_once(const Make& make, const P& p) {
  auto r = make(p);
  r->upload();
  r->run();
  r->timed_run();
  r->download();
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

// The SpGEMM implementations of DEVICE against ref on A*B, structure exactly, values within
// TOL (relative to the largest); returns how many ran.
template <class I, class T>
int check_spgemm(Device device, const Csr<I, T>& a, const Csr<I, T>& b, T alpha, double tol,
                 const std::string& what) {
  const auto ref = spgemm_ref(a, b, alpha);
  int ran = 0;
  for (const auto& impl : spgemm_impls<I, T>()) {
    if (impl.device != device) continue;
    Csr<I, T> c;
    run_once(impl.make, SpgemmProblem<I, T>{&a, &b, &c, alpha});
    expect_well_formed(c, impl.name + " on " + what);
    EXPECT_EQ(c.ptr, ref.ptr) << impl.name << " on " << what;
    EXPECT_EQ(c.idx, ref.idx) << impl.name << " on " << what;
    test::expect_close(c.val, ref.val, tol, "spgemm " + impl.name + " on " + what);
    ++ran;
  }
  return ran;
}

// Each awkward shape as A, times a random B with a different column count; the references
// are checked against dense GEMM, every other implementation of DEVICE against them.
template <class I, class T>
void check_awkward(Device device) {
  std::uint64_t seed = 1;
  int ran = 0;
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

    ran += check_spgemm(device, a, b, alpha, test::tolerance<T>(s.cols), what);
    for (const auto& impl : spmm_impls<I, T>()) {
      if (impl.device != device) continue;
      Dense<T> c(a.rows, n, test::poison<T>());
      run_once(impl.make, SpmmProblem<I, T>{&a, &db, &c, alpha});
      test::expect_close(c.data, want_spmm.data, test::tolerance<T>(s.cols),
                         "spmm " + impl.name + " on " + what);
      ++ran;
    }
    // DSMM: dense n x rows times A (this shape as the sparse right operand).
    for (const auto& impl : dsmm_impls<I, T>()) {
      if (impl.device != device) continue;
      Dense<T> c(n, a.cols, test::poison<T>());
      run_once(impl.make, DsmmProblem<I, T>{&da, &a, &c, alpha});
      test::expect_close(c.data, want_dsmm.data, test::tolerance<T>(s.rows),
                         "dsmm " + impl.name + " on " + s.name);
      ++ran;
    }
  }
  EXPECT_GT(ran, 0) << "no implementation for this device";
}

TYPED_TEST(SpgemmTypes, CpuImplsMatchRefOnAwkwardShapes) {
  check_awkward<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cpu);
}

TYPED_TEST(SpgemmTypes, CudaImplsMatchRefOnAwkwardShapes) {
  MM_REQUIRE_GPU();
  check_awkward<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cuda);
}

// Row i of A holds 2^(i mod 16) random columns (capped), B about 8 per row over 30000
// columns: the rows' product counts run from 8 to about 30000, so every table size of
// cuda-gustavson is used, as is its dense accumulator (rows with more distinct columns than
// the largest shared table). Row 0 of A is dense; B's rows 0 and 1 are long (20000 entries),
// so that some rows of A hit very long rows of B.
template <class I, class T>
std::pair<Csr<I, T>, Csr<I, T>> graded_operands(std::uint64_t seed) {
  constexpr std::int64_t m = 64, k = 4000, n = 30000;
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t count, std::int64_t cols, std::int64_t i, Coo<I, T>& c) {
    std::vector<char> on(static_cast<std::size_t>(cols), 0);
    if (count >= cols) std::fill(on.begin(), on.end(), 1);
    for (std::int64_t t = 0; t < count && count < cols; ++t)
      on[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(cols))] = 1;
    for (std::int64_t j = 0; j < cols; ++j)
      if (on[static_cast<std::size_t>(j)]) {
        c.row.push_back(static_cast<I>(i));
        c.col.push_back(static_cast<I>(j));
        c.val.push_back(test::random_value<T>(rng));
      }
  };
  Coo<I, T> a, b;
  a.rows = m, a.cols = k, b.rows = k, b.cols = n;
  for (std::int64_t i = 0; i < m; ++i) pick(i == 0 ? k : std::int64_t{1} << (i % 16), k, i, a);
  for (std::int64_t i = 0; i < k; ++i) pick(i < 2 ? 20000 : 8, n, i, b);
  return {coo_to_csr(a), coo_to_csr(b)};
}

TYPED_TEST(SpgemmTypes, CudaSpgemmOnEveryRowBin) {
  MM_REQUIRE_GPU();
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  const auto& l = spgemm_impls<I, T>();
  if (std::none_of(l.begin(), l.end(), [](const auto& i) { return i.device == Device::cuda; }))
    GTEST_SKIP() << "no CUDA SpGEMM for this index and value type";
  const auto [a, b] = graded_operands<I, T>(11);
  EXPECT_GT(check_spgemm(Device::cuda, a, b, T(0.75), test::tolerance<T>(4000), "graded"), 0);
  // B's long rows alone: one row of A meets B's row 0, one rows 0 and 1, one nothing.
  Csr<I, T> a2;
  a2.rows = 3, a2.cols = b.rows;
  a2.ptr = {0, 1, 3, 3};
  a2.idx = {0, 0, 1};
  a2.val = {T(1), T(2), T(-1)};
  check_spgemm(Device::cuda, a2, b, T(1), test::tolerance<T>(2), "rows of A hitting long rows");
}

// SpMM with B wide and narrow: the group width and the passes over C's columns.
TYPED_TEST(SpgemmTypes, CudaSpmmOnWideAndNarrowB) {
  MM_REQUIRE_GPU();
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  const auto a = test::random_csr<I, T>({"a", 300, 200, 0.05, true, true}, 21);
  for (const std::int64_t n : {1, 5, 31, 33, 129, 300}) {
    const auto b = test::random_dense<T>(200, n, 22);
    Dense<T> want(300, n);
    spmm_ref(a, b, want, T(2));
    for (const auto& impl : spmm_impls<I, T>()) {
      if (impl.device != Device::cuda) continue;
      Dense<T> c(300, n, test::poison<T>());
      run_once(impl.make, SpmmProblem<I, T>{&a, &b, &c, T(2)});
      test::expect_close(c.data, want.data, test::tolerance<T>(200),
                         impl.name + " n=" + std::to_string(n));
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
    if (!test::runnable(impl.device)) continue;  // CUDA ones: where a GPU exists
    Csr<std::int32_t, double> c;
    run_once(impl.make, SpgemmProblem<std::int32_t, double>{&a, &b, &c, 1.0});
    EXPECT_EQ(c.idx, (std::vector<std::int32_t>{0})) << impl.name;
    EXPECT_EQ(c.val, (std::vector<double>{0.0})) << impl.name;
  }
}

// |got - want| within 1e-10 relative, where WANT is finite (the corpus holds inf and nan on
// purpose). SCALE, when given, is sum |a_ik| |b_kj| per entry: a sum in another order (the GPU's)
// may differ by about eps times that, far more than 1e-10 |want| where terms cancel (bcsstk13's
// entries reach 1e10, its squares 1e20, and some entries of A*A sum to well under 1).
template <class T>
void expect_finite_close(const std::vector<T>& got, const std::vector<T>& want,
                         const std::string& what, const std::vector<T>* scale = nullptr) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (!std::isfinite(std::abs(want[k]))) continue;
    const double bound =
        1e-10 * (1 + std::abs(want[k])) + (scale != nullptr ? 1e-13 * std::abs((*scale)[k]) : 0.0);
    ASSERT_LE(std::abs(got[k] - want[k]), bound) << what << " at " << k;
  }
}

// |M| entrywise (complex: the modulus), for the rounding scale of a product.
template <class I, class T>
Csr<I, T> abs_of(Csr<I, T> m) {
  for (auto& v : m.val) v = T(std::abs(v));
  return m;
}

// Every coordinate corpus file: A*A when square, else A^T*A and A*A^T; SpMM and DSMM with
// random dense partners. T complex holds every field; a real T skips the complex files.
template <class T>
int check_corpus(Device device) {
  using I = std::int32_t;
  int tested = 0;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    if (m.header.format != Format::coordinate) continue;
    if (!is_complex_v<T> && m.header.field == Field::complex) continue;
    const auto b = coo_to_csr(to_coo<I, T>(m));
    std::vector<std::pair<Csr<I, T>, Csr<I, T>>> products;
    if (b.rows == b.cols) {
      products.push_back({b, b});
    } else {
      products.push_back({transpose(b), b});
      products.push_back({b, transpose(b)});
    }
    for (const auto& [x, y] : products) {
      const auto ref = spgemm_ref(x, y, T(1));
      const auto scale = spgemm_ref(abs_of(x), abs_of(y), T(1));
      for (const auto& impl : spgemm_impls<I, T>()) {
        if (impl.device != device) continue;
        Csr<I, T> c;
        run_once(impl.make, SpgemmProblem<I, T>{&x, &y, &c, T(1)});
        expect_well_formed(c, impl.name + " on " + f);
        EXPECT_EQ(c.ptr, ref.ptr) << impl.name << " on " << f;
        EXPECT_EQ(c.idx, ref.idx) << impl.name << " on " << f;
        if (::testing::Test::HasFailure()) return tested;
        expect_finite_close(c.val, ref.val, "spgemm " + impl.name + " on " + f, &scale.val);
      }
    }
    const auto x = test::random_dense<T>(b.cols, 3, 5), y = test::random_dense<T>(3, b.rows, 6);
    Dense<T> want_spmm(b.rows, 3), want_dsmm(3, b.cols);
    spmm_ref(b, x, want_spmm, T(1));
    dsmm_ref(y, b, want_dsmm, T(1));
    for (const auto& impl : spmm_impls<I, T>()) {
      if (impl.device != device) continue;
      Dense<T> c(b.rows, 3, test::poison<T>());
      run_once(impl.make, SpmmProblem<I, T>{&b, &x, &c, T(1)});
      expect_finite_close(c.data, want_spmm.data, "spmm " + impl.name + " on " + f);
    }
    for (const auto& impl : dsmm_impls<I, T>()) {
      if (impl.device != device) continue;
      Dense<T> c(3, b.cols, test::poison<T>());
      run_once(impl.make, DsmmProblem<I, T>{&y, &b, &c, T(1)});
      expect_finite_close(c.data, want_dsmm.data, "dsmm " + impl.name + " on " + f);
    }
    ++tested;
  }
  return tested;
}

TEST(Spgemm, CpuImplsOnTheCorpus) {
  EXPECT_GE(check_corpus<std::complex<double>>(Device::cpu), 15);
}

TEST(Spgemm, CudaImplsOnTheCorpus) {
  MM_REQUIRE_GPU();
  EXPECT_GE(check_corpus<std::complex<double>>(Device::cuda), 15);  // cusparse
  EXPECT_GE(check_corpus<double>(Device::cuda), 14);  // every CUDA one, on the real files
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
