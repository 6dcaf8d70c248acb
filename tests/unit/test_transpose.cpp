// Transpose: every implementation against the serial reference (dense out of place, in place,
// sparse CSR -> CSC) on awkward shapes, odd tiles and thread counts, and the corpus.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "random_matrices.hpp"
#include "test_helpers.hpp"
#include "transpose.hpp"

namespace mm {
namespace {

template <class T>
class DenseTypes : public ::testing::Test {};
using ValueTypes =
    ::testing::Types<float, double, std::complex<float>, std::complex<double>, std::int64_t>;
TYPED_TEST_SUITE(DenseTypes, ValueTypes);

template <class P>
class CsrTypes : public ::testing::Test {};
using IndexValueTypes =
    ::testing::Types<std::pair<std::int32_t, float>, std::pair<std::int32_t, double>,
                     std::pair<std::int64_t, double>, std::pair<std::int32_t, std::complex<float>>,
                     std::pair<std::int64_t, std::complex<double>>,
                     std::pair<std::int32_t, std::int64_t>>;
TYPED_TEST_SUITE(CsrTypes, IndexValueTypes);

template <class T>
T conj_if(const T& v, bool c) {
  if constexpr (is_complex_v<T>)
    return c ? std::conj(v) : v;
  else
    return v;
}

struct Dims {
  std::int64_t rows, cols;
};
const std::vector<Dims> kDenseShapes{{1, 1},    {31, 31},  {33, 33}, {1000, 1000},
                                     {17, 300}, {300, 17}, {0, 0},   {0, 5},
                                     {5, 0},    {1, 77},   {77, 1},  {65, 129}};
// On the GPU also: tile edges in both directions, and rows beyond what one grid covers
// (65535 blocks of 32 and of 8 rows), so that the kernels' row loops run; even sides (the
// paired 64x64 tiles of cuda-tiled) cut at tile edges, and beyond 65535 blocks of 64 rows.
const std::vector<Dims> kGpuExtraShapes{{1000, 33},   {33, 1000}, {97, 2049}, {2200000, 1},
                                        {2, 1100000}, {66, 130},  {130, 66},  {1000, 34},
                                        {4194306, 2}, {128, 4096}};

// One complete execution: upload, RUNS runs, download.
void run_all(Runner& r, int runs = 1) {
  r.upload();
  for (int k = 0; k < runs; ++k) r.run();
  r.download();
}

// cuBLAS multiplies by one: values the same, NaN payloads and non-finite complex parts
// (0 * inf) not guaranteed, and a conjugated zero imaginary part comes back as +0 where
// flipping the sign bit gives -0 (seen on the H200). Finite values must be equal exactly
// (== : +0 and -0 are the same number); our own kernels are held to the bits elsewhere.
template <class T>
void expect_equal_finite(const std::vector<T>& got, const std::vector<T>& want,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if constexpr (!std::is_same_v<T, std::int64_t>)
      if (!std::isfinite(std::abs(want[k]))) continue;
    ASSERT_TRUE(got[k] == want[k]) << what << ": element " << k << " differs";
  }
}

TEST(Transpose, ReferenceByHand) {
  const std::vector<double> a{1, 2, 3, 4, 5, 6};  // 2 x 3
  std::vector<double> b(6);
  transpose_ref(2, 3, a.data(), b.data(), false);
  EXPECT_EQ(b, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  std::vector<std::complex<double>> z{{1, 1}, {2, -2}, {3, 3}, {4, -4}};  // 2 x 2
  transpose_inplace_ref(2, z.data(), true);
  EXPECT_EQ(z, (std::vector<std::complex<double>>{{1, -1}, {3, -3}, {2, 2}, {4, 4}}));
  auto m =
      parse_mtx("%%MatrixMarket matrix coordinate real general\n2 3 3\n1 3 7\n1 1 2\n2 1 4\n", "t");
  const auto c = coo_to_csr(to_coo<std::int32_t, double>(m));
  Csr<std::int32_t, double> t;
  transpose_shape(c, t);
  transpose_csr_ref(c, t, false);
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.cols, 2);
  EXPECT_EQ(t.ptr, (std::vector<std::int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(t.idx, (std::vector<std::int32_t>{0, 1, 0}));
  EXPECT_EQ(t.val, (std::vector<double>{2, 4, 7}));
}

// ref against the definition, then every out-of-place implementation on DEVICE against ref.
template <class T>
void check_out_of_place(Device device, const std::vector<Dims>& shapes) {
  std::uint64_t seed = 1;
  int ran = 0;
  for (const auto& s : shapes) {
    const auto a = test::random_vector<T>(s.rows * s.cols, seed++);
    for (const bool conj : {false, true}) {
      const std::string shape =
          std::to_string(s.rows) + "x" + std::to_string(s.cols) + (conj ? " conj" : "");
      std::vector<T> want(a.size(), test::poison<T>());
      transpose_ref(s.rows, s.cols, a.data(), want.data(), conj);
      for (std::int64_t i = 0; i < s.rows; ++i)
        for (std::int64_t j = 0; j < s.cols; ++j)
          ASSERT_EQ(want[j * s.rows + i], conj_if(a[i * s.cols + j], conj)) << "ref " << shape;
      for (const auto& impl : transpose_dense_impls<T>()) {
        if (impl.device != device) continue;
        std::vector<T> b(a.size(), test::poison<T>());
        auto r = impl.make(DenseTransposeProblem<T>{s.rows, s.cols, a.data(), b.data(), conj});
        run_all(*r, 2);
        test::expect_same_bits(b, want, impl.name + " " + shape);
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0) << "no implementation for this device";
}

TYPED_TEST(DenseTypes, OutOfPlaceImplsMatchRef) {
  check_out_of_place<TypeParam>(Device::cpu, kDenseShapes);
}

TYPED_TEST(DenseTypes, CudaOutOfPlaceImplsMatchRef) {
  MM_REQUIRE_GPU();
  auto shapes = kDenseShapes;
  shapes.insert(shapes.end(), kGpuExtraShapes.begin(), kGpuExtraShapes.end());
  check_out_of_place<TypeParam>(Device::cuda, shapes);
}

// The blocked kernels at tile edges that do not divide the shape, and odd thread counts.
TYPED_TEST(DenseTypes, BlockedKernelsAnyTileAndThreads) {
  using T = TypeParam;
  for (const auto& s : std::vector<Dims>{{37, 53}, {53, 37}, {64, 64}, {100, 100}}) {
    const auto a = test::random_vector<T>(s.rows * s.cols, 7);
    std::vector<T> want(a.size());
    transpose_ref(s.rows, s.cols, a.data(), want.data(), true);
    for (const std::int64_t tile : {1, 5, 7, 32, 200})
      for (const int threads : {1, 2, 3}) {
        const std::string what = std::to_string(s.rows) + "x" + std::to_string(s.cols) + " tile " +
                                 std::to_string(tile) + " threads " + std::to_string(threads);
        std::vector<T> b(a.size(), test::poison<T>());
        transpose_cpu_blocked(s.rows, s.cols, a.data(), b.data(), true, threads, tile);
        test::expect_same_bits(b, want, "cpu-blocked " + what);
        if (s.rows != s.cols) continue;
        std::vector<T> c = a;
        transpose_cpu_inplace(s.rows, c.data(), true, threads, tile);
        test::expect_same_bits(c, want, "cpu-inplace " + what);
      }
  }
}

// In place: after 1, 2 or 3 runs (and after warm-up plus timed runs), download() leaves A^T
// (runs alternate A, A^T).
template <class T>
void check_in_place(Device device, const std::vector<std::int64_t>& sizes) {
  std::uint64_t seed = 50;
  int ran = 0;
  for (const std::int64_t n : sizes) {
    const auto a = test::random_vector<T>(n * n, seed++);
    for (const bool conj : {false, true}) {
      std::vector<T> want(a.size());
      transpose_ref(n, n, a.data(), want.data(), conj);
      for (const auto& impl : transpose_inplace_impls<T>()) {
        if (impl.device != device) continue;
        for (const int runs : {1, 2, 3}) {
          const std::string what = impl.name + " n=" + std::to_string(n) + " runs " +
                                   std::to_string(runs) + (conj ? " conj" : "");
          std::vector<T> b(a.size(), test::poison<T>());
          auto r = impl.make(DenseTransposeProblem<T>{n, n, a.data(), b.data(), conj});
          r->upload();
          for (int k = 0; k < runs; ++k) r->run();
          r->download();
          test::expect_same_bits(b, want, what);
          ++ran;
        }
        // measure()'s order: untimed runs, then timed ones; the result is still A^T.
        std::vector<T> b(a.size(), test::poison<T>());
        auto r = impl.make(DenseTransposeProblem<T>{n, n, a.data(), b.data(), conj});
        measure(*r, 1, 2);  // downloads into b itself
        test::expect_same_bits(b, want, impl.name + " n=" + std::to_string(n) + " measured");
      }
    }
  }
  EXPECT_GT(ran, 0) << "no implementation for this device";
}

TYPED_TEST(DenseTypes, InPlaceImplsMatchRef) {
  check_in_place<TypeParam>(Device::cpu, {0, 1, 2, 31, 33, 1000});
}

TYPED_TEST(DenseTypes, CudaInPlaceImplsMatchRef) {
  MM_REQUIRE_GPU();
  // 32 and 64 fill whole tiles; 1025 leaves a one-wide edge tile; 3000 many tile pairs.
  check_in_place<TypeParam>(Device::cuda, {0, 1, 2, 31, 32, 33, 64, 66, 130, 1000, 1025, 3000});
}

TEST(Transpose, InPlaceRefusesNonSquare) {
  std::vector<double> a(6);
  for (const auto& impl : transpose_inplace_impls<double>())
    EXPECT_THROW(impl.make(DenseTransposeProblem<double>{2, 3, a.data(), a.data(), false}),
                 InputError)
        << impl.name;
}

// ref against a dense transpose, then every sparse implementation on DEVICE against ref.
template <class I, class T>
void check_sparse(Device device, const std::vector<test::Shape>& shapes) {
  std::uint64_t seed = 100;
  int ran = 0;
  for (const auto& s : shapes) {
    const auto a = test::random_csr<I, T>(s, seed++);
    for (const bool conj : {false, true}) {
      const std::string what = s.name + (conj ? " conj" : "");
      Csr<I, T> want;
      transpose_shape(a, want);
      transpose_csr_ref(a, want, conj);
      ASSERT_EQ(want.rows, a.cols);
      ASSERT_EQ(want.cols, a.rows);
      for (std::int64_t i = 0; i < want.rows; ++i)
        for (I k = want.ptr[i] + 1; k < want.ptr[i + 1]; ++k)
          ASSERT_LT(want.idx[k - 1], want.idx[k]) << "ref row " << i << " unsorted, " << what;
      if (a.rows * a.cols <= 4'000'000) {
        const auto da = coo_to_dense(csr_to_coo(a));
        const auto dt = coo_to_dense(csr_to_coo(want));
        for (std::int64_t i = 0; i < a.rows; ++i)
          for (std::int64_t j = 0; j < a.cols; ++j)
            ASSERT_EQ(dt(j, i), conj_if(da(i, j), conj))
                << "ref at " << i << "," << j << " " << what;
      }
      for (const auto& impl : transpose_csr_impls<I, T>()) {
        if (impl.device != device) continue;
        Csr<I, T> t;
        t.ptr.assign(static_cast<std::size_t>(a.cols) + 1, I{-1});
        t.idx.assign(a.idx.size(), I{-1});
        t.val.assign(a.val.size(), test::poison<T>());
        auto r = impl.make(CsrTransposeProblem<I, T>{&a, &t, conj});
        run_all(*r, 2);
        ASSERT_EQ(t.rows, want.rows) << impl.name << " " << what;
        ASSERT_EQ(t.cols, want.cols) << impl.name << " " << what;
        ASSERT_EQ(t.ptr, want.ptr) << impl.name << " " << what;
        ASSERT_EQ(t.idx, want.idx) << impl.name << " " << what;
        test::expect_same_bits(t.val, want.val, impl.name + " " + what);
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0) << "no implementation for this device";
}

TYPED_TEST(CsrTypes, SparseImplsMatchRefOnAwkwardShapes) {
  check_sparse<typename TypeParam::first_type, typename TypeParam::second_type>(
      Device::cpu, test::awkward_shapes());
}

TYPED_TEST(CsrTypes, CudaSparseImplsMatchRefOnAwkwardShapes) {
  MM_REQUIRE_GPU();
  auto shapes = test::awkward_shapes();
  shapes.push_back({"long-rows", 40, 20000, 0.0005, false, true});  // row 0: 20000 entries
  shapes.push_back({"wide-rows", 300, 5000, 0.5});                  // ~2500 a row
  shapes.push_back({"tall", 300000, 70, 0.02, true});               // many rows, few columns
  shapes.push_back({"one-column", 5000, 1, 0.5});                   // every entry in column 0
  check_sparse<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cuda,
                                                                                shapes);
}

// More threads than rows, odd counts, and a dense row that outweighs the rest.
TYPED_TEST(CsrTypes, ParallelCountingSortAnyThreads) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  std::vector<I> scratch;
  for (const auto& s :
       {test::Shape{"3x1000", 3, 1000, 0.3}, test::Shape{"dense-row", 400, 300, 0.01, false, true},
        test::Shape{"1000x5", 1000, 5, 0.5, true}}) {
    const auto a = test::random_csr<I, T>(s, 3);
    Csr<I, T> want;
    transpose_shape(a, want);
    transpose_csr_ref(a, want, true);
    for (const int threads : {1, 2, 3, 5, 16}) {
      Csr<I, T> t;
      transpose_shape(a, t);
      std::fill(t.idx.begin(), t.idx.end(), I{-1});
      std::fill(t.val.begin(), t.val.end(), test::poison<T>());
      transpose_cpu_csr2csc(a, t, true, threads, scratch);
      const std::string what = s.name + " threads " + std::to_string(threads);
      ASSERT_EQ(t.ptr, want.ptr) << what;
      ASSERT_EQ(t.idx, want.idx) << what;
      test::expect_same_bits(t.val, want.val, what);
    }
  }
}

// Every corpus file, symmetry expanded: sparse impls on coordinate files, dense impls (and
// in place when square) on every file; all against ref, bit for bit.
TEST(Transpose, EveryImplOnTheCorpus) {
  using T = std::complex<double>;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    const std::int64_t rows = m.header.rows, cols = m.header.cols;
    for (const bool conj : {false, true}) {
      const std::string what = f + (conj ? " conj" : "");
      if (m.header.format == Format::coordinate) {
        const auto a = coo_to_csr(to_coo<std::int32_t, T>(m));
        Csr<std::int32_t, T> want;
        transpose_shape(a, want);
        transpose_csr_ref(a, want, conj);
        for (const auto& impl : transpose_csr_impls<std::int32_t, T>()) {
          if (!test::runnable(impl.device)) continue;  // CUDA ones: where a GPU exists
          Csr<std::int32_t, T> t;
          t.val.assign(a.val.size(), test::poison<T>());
          run_all(*impl.make({&a, &t, conj}));
          ASSERT_EQ(t.ptr, want.ptr) << impl.name << " " << what;
          ASSERT_EQ(t.idx, want.idx) << impl.name << " " << what;
          test::expect_same_bits(t.val, want.val, impl.name + " " + what);
        }
      }
      if (rows * cols > 4'000'000) continue;
      const Dense<T> d = to_dense<T>(m);
      std::vector<T> want(d.data.size());
      transpose_ref(rows, cols, d.data.data(), want.data(), conj);
      for (const auto& impl : transpose_dense_impls<T>()) {
        if (!test::runnable(impl.device)) continue;
        std::vector<T> b(d.data.size(), test::poison<T>());
        run_all(*impl.make({rows, cols, d.data.data(), b.data(), conj}));
        if (impl.name == "cublas")  // the corpus holds inf and nan on purpose
          expect_equal_finite(b, want, impl.name + " " + what);
        else
          test::expect_same_bits(b, want, impl.name + " " + what);
      }
      if (rows != cols) continue;
      for (const auto& impl : transpose_inplace_impls<T>()) {
        if (!test::runnable(impl.device)) continue;
        std::vector<T> b(d.data.size(), test::poison<T>());
        auto r = impl.make({rows, cols, d.data.data(), b.data(), conj});
        r->upload();
        r->run();
        r->download();
        test::expect_same_bits(b, want, impl.name + " in place " + what);
      }
    }
  }
}

}  // namespace
}  // namespace mm
