// Matrix addition: every implementation against the serial reference on awkward shapes,
// in every operand mix, and on the corpus; the reference against hand-computed sums.
#include <gtest/gtest.h>

#include <set>

#include "add.hpp"
#include "gpu.hpp"
#ifdef MM_HAVE_CUDA
#include "cuda/add_cuda.hpp"
#endif
#include "random_matrices.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

template <class P>
class AddTypes : public ::testing::Test {};
using Types =
    ::testing::Types<std::pair<std::int32_t, float>, std::pair<std::int32_t, double>,
                     std::pair<std::int64_t, double>, std::pair<std::int32_t, std::complex<float>>,
                     std::pair<std::int64_t, std::complex<double>>>;
TYPED_TEST_SUITE(AddTypes, Types);

// The (alpha, beta) pairs every test walks: plain sum, general, a zero scale, and for
// complex types a complex scale.
template <class T>
std::vector<std::pair<T, T>> scales() {
  std::vector<std::pair<T, T>> v{{T(1), T(1)}, {T(-1.5), T(0.25)}, {T(0), T(2)}};
  if constexpr (is_complex_v<T>) v.push_back({T(0.5, -2), T(-1, 0.75)});
  return v;
}

// B's shape: A's dimensions with another density and the other empty-row pattern, so that
// rows empty in one operand and full in the other occur.
test::Shape other(const test::Shape& s) {
  return {s.name, s.rows, s.cols, std::min(1.0, 2 * s.density + 0.01), !s.empty_rows, s.dense_row};
}

template <class I, class T>
AddProblem<I, T> problem(const Dense<T>* da, const Csr<I, T>* sa, const Dense<T>* db,
                         const Csr<I, T>* sb, T alpha, T beta, Dense<T>* dc, Csr<I, T>* sc) {
  AddProblem<I, T> p;
  p.a = {da, sa};
  p.b = {db, sb};
  p.alpha = alpha;
  p.beta = beta;
  p.dense_out = dc;
  p.sparse_out = sc;
  p.threads = 3;  // more than the cores of a small machine: uneven shares get exercised
  return p;
}

// The shapes of the GPU tests: the awkward ones, rows long and many (a thread-per-row merge,
// 2D grids whose rows loop past 65535 blocks), and sizes that are no multiple of a 16-byte pack.
std::vector<test::Shape> gpu_shapes() {
  auto v = test::awkward_shapes();
  v.push_back({"long-rows", 40, 20000, 0.0005, false, true});  // row 0: 20000 entries
  v.push_back({"wide-rows", 300, 5000, 0.3});
  v.push_back({"tall", 1100000, 1, 0.3, true});
  v.push_back({"1023x1021", 1023, 1021, 0.002});
  return v;
}

// How many implementations on DEVICE handle KIND.
template <class I, class T>
int impls_for(Device device, unsigned kind) {
  int n = 0;
  for (const auto& impl : add_impls<I, T>()) n += impl.device == device && (impl.make.kinds & kind);
  return n;
}

template <class I, class T>
void run_twice(const Impl<AddMake<I, T>>& impl, const AddProblem<I, T>& p) {
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->run();  // a second run into the same output gives the same answer
  r->download();
}

TEST(Add, ReferenceByHand) {
  Dense<double> a(2, 2), b(2, 2), c(2, 2);
  a.data = {1, 2, 3, 4};
  b.data = {10, 20, 30, 40};
  add_dense_ref(a, b, c, 2.0, -0.5);
  EXPECT_EQ(c.data, (std::vector<double>{-3, -6, -9, -12}));

  // A = [1 0 2; 0 0 3], B = [0 5 -2; 0 0 0]: the union keeps the cancelled (0,2) entry.
  const auto sa = coo_to_csr(to_coo<std::int32_t, double>(parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1\n1 3 2\n2 3 3\n", "a")));
  const auto sb = coo_to_csr(to_coo<std::int32_t, double>(
      parse_mtx("%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 -2\n1 2 5\n", "b")));
  Csr<std::int32_t, double> sc;
  add_sparse_ref(sa, sb, sc, 1.0, 1.0);
  EXPECT_EQ(sc.ptr, (std::vector<std::int32_t>{0, 3, 4}));
  EXPECT_EQ(sc.idx, (std::vector<std::int32_t>{0, 1, 2, 2}));
  EXPECT_EQ(sc.val, (std::vector<double>{1, 5, 0, 3}));

  // Mixed: 10*D + S with D all ones.
  Dense<double> d(2, 3, 1.0), m(2, 3);
  add_mixed_ref(d, 10.0, sa, 1.0, m);
  EXPECT_EQ(m.data, (std::vector<double>{11, 10, 12, 10, 10, 13}));
}

template <class I, class T>
void check_dense(Device device, const std::vector<test::Shape>& shapes) {
  std::uint64_t seed = 11;
  for (const auto& s : shapes) {
    const auto a = test::random_dense<T>(s.rows, s.cols, seed++);
    const auto b = test::random_dense<T>(s.rows, s.cols, seed++);
    for (const auto& [alpha, beta] : scales<T>()) {
      Dense<T> want(s.rows, s.cols, test::poison<T>());
      add_dense_ref(a, b, want, alpha, beta);
      int ran = 0, refused = 0;
      for (const auto& impl : add_impls<I, T>()) {
        if (impl.device != device || !(impl.make.kinds & add_dense)) continue;
        Dense<T> c(s.rows, s.cols, test::poison<T>());
        const auto p = problem<I, T>(&a, nullptr, &b, nullptr, alpha, beta, &c, nullptr);
#ifdef MM_HAVE_CUDA
        if (impl.name == "cuda-seq" && s.rows * s.cols > add_cuda_seq_max) {
          EXPECT_THROW(impl.make(p), InputError) << s.name;
          ++refused;
          continue;
        }
#endif
        run_twice(impl, p);
        test::expect_close(c.data, want.data, test::tolerance<T>(2), impl.name + " on " + s.name);
        ++ran;
      }
      EXPECT_EQ(ran + refused, (impls_for<I, T>(device, add_dense))) << s.name;
      EXPECT_GT(ran, 0) << s.name;
    }
  }
}

TYPED_TEST(AddTypes, DenseImplsMatchRef) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  EXPECT_EQ((impls_for<I, T>(Device::cpu, add_dense)), 3);  // cpu, openblas, ref
  check_dense<I, T>(Device::cpu, test::awkward_shapes());
}

TYPED_TEST(AddTypes, CudaDenseImplsMatchRef) {
  MM_REQUIRE_GPU();
  check_dense<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cuda,
                                                                               gpu_shapes());
}

// The dense CUDA implementations on the awkward shapes up to 300 x 17 (and one ending inside a
// block of 256 threads, 257 x 129): small enough for compute-sanitizer (scripts/gpu-sanitize.sh),
// where the test above did not finish its first case under memcheck in 470 s (cuda-seq walks
// the 1.1M-element shape with one thread).
TYPED_TEST(AddTypes, CudaDenseImplsOnSmallShapes) {
  MM_REQUIRE_GPU();
  std::vector<test::Shape> shapes;
  for (const auto& s : test::awkward_shapes())
    if (s.rows * s.cols <= 300 * 17) shapes.push_back(s);
  shapes.push_back({"257x129", 257, 129, 0.1});
  ASSERT_EQ(shapes.size(), 8u);
  check_dense<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cuda,
                                                                               shapes);
}

template <class I, class T>
void check_sparse(Device device, const std::vector<test::Shape>& shapes) {
  std::uint64_t seed = 101;
  int ran = 0;
  for (const auto& s : shapes) {
    const auto a = test::random_csr<I, T>(s, seed++);
    const auto b = test::random_csr<I, T>(other(s), seed++);
    // The union of the two patterns, independently of any kernel.
    std::set<std::pair<std::int64_t, std::int64_t>> pattern;
    for (const auto* m : {&a, &b})
      for (std::int64_t i = 0; i < m->rows; ++i)
        for (auto k = m->ptr[i]; k < m->ptr[i + 1]; ++k) pattern.insert({i, m->idx[k]});
    for (const auto& [alpha, beta] : scales<T>()) {
      Csr<I, T> want;
      add_sparse_ref(a, b, want, alpha, beta);
      ASSERT_EQ(want.nnz(), static_cast<std::int64_t>(pattern.size())) << s.name;
      std::size_t k = 0;
      for (const auto& [i, j] : pattern) {
        // Entry k is (i, j): rows in order, columns sorted within each.
        ASSERT_LE(static_cast<std::int64_t>(want.ptr[i]), static_cast<std::int64_t>(k)) << s.name;
        ASSERT_LT(static_cast<std::int64_t>(k), static_cast<std::int64_t>(want.ptr[i + 1]))
            << s.name;
        ASSERT_EQ(want.idx[k++], j) << s.name;
      }
      // ref-sparse against the dense reference on the same operands.
      if (s.rows * s.cols <= 4'000'000) {
        Dense<T> dense(s.rows, s.cols);
        add_dense_ref(coo_to_dense(csr_to_coo(a)), coo_to_dense(csr_to_coo(b)), dense, alpha, beta);
        test::expect_close(coo_to_dense(csr_to_coo(want)).data, dense.data, test::tolerance<T>(2),
                           "ref-sparse vs dense on " + s.name);
      }
      for (const auto& impl : add_impls<I, T>()) {
        if (impl.device != device || !(impl.make.kinds & add_sparse)) continue;
        // Poisoned at the expected size: a kernel that sizes right but skips an entry shows.
        Csr<I, T> c;
        c.ptr.assign(want.ptr.size(), I(-7));
        c.idx.assign(want.idx.size(), I(-1));
        c.val.assign(want.val.size(), test::poison<T>());
        run_twice(impl, problem<I, T>(nullptr, &a, nullptr, &b, alpha, beta, nullptr, &c));
        ASSERT_EQ(c.rows, s.rows);
        ASSERT_EQ(c.cols, s.cols);
        ASSERT_EQ(c.ptr, want.ptr) << impl.name << " on " << s.name;
        ASSERT_EQ(c.idx, want.idx) << impl.name << " on " << s.name;
        test::expect_close(c.val, want.val, test::tolerance<T>(2), impl.name + " on " + s.name);
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0) << "no implementation for this device";
}

TYPED_TEST(AddTypes, SparseImplsMatchRefAndTheDenseSum) {
  check_sparse<typename TypeParam::first_type, typename TypeParam::second_type>(
      Device::cpu, test::awkward_shapes());
}

TYPED_TEST(AddTypes, CudaSparseImplsMatchRef) {
  MM_REQUIRE_GPU();
  check_sparse<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cuda,
                                                                                gpu_shapes());
}

template <class I, class T>
void check_mixed(Device device, const std::vector<test::Shape>& shapes) {
  std::uint64_t seed = 1001;
  for (const auto& s : shapes) {
    const auto d = test::random_dense<T>(s.rows, s.cols, seed++);
    const auto sp = test::random_csr<I, T>(s, seed++);
    const auto spd = coo_to_dense(csr_to_coo(sp));
    for (const auto& [alpha, beta] : scales<T>()) {
      for (const bool dense_first : {true, false}) {
        // The reference sum of the same operands, both dense.
        Dense<T> want(s.rows, s.cols);
        if (dense_first)
          add_dense_ref(d, spd, want, alpha, beta);
        else
          add_dense_ref(spd, d, want, alpha, beta);
        int ran = 0;
        for (const auto& impl : add_impls<I, T>()) {
          if (impl.device != device || !(impl.make.kinds & add_mixed)) continue;
          Dense<T> c(s.rows, s.cols, test::poison<T>());
          const auto p = dense_first
                             ? problem<I, T>(&d, nullptr, nullptr, &sp, alpha, beta, &c, nullptr)
                             : problem<I, T>(nullptr, &sp, &d, nullptr, alpha, beta, &c, nullptr);
          run_twice(impl, p);
          test::expect_close(c.data, want.data, test::tolerance<T>(2),
                             impl.name + (dense_first ? " D+S on " : " S+D on ") + s.name);
          ++ran;
        }
        EXPECT_EQ(ran, (impls_for<I, T>(device, add_mixed)));
        EXPECT_GT(ran, 0) << s.name;
      }
    }
  }
}

TYPED_TEST(AddTypes, MixedImplsMatchRefInBothOrders) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  EXPECT_EQ((impls_for<I, T>(Device::cpu, add_mixed)), 2);  // cpu, ref
  check_mixed<I, T>(Device::cpu, test::awkward_shapes());
}

TYPED_TEST(AddTypes, CudaMixedImplsMatchRefInBothOrders) {
  MM_REQUIRE_GPU();
  check_mixed<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cuda,
                                                                               gpu_shapes());
}

// Every corpus matrix plus its transpose (or itself when not square). Sparse: every sparse
// implementation against ref-sparse, entry by entry. Dense and mixed (files small enough to
// hold densely): every implementation against the dense reference.
TEST(Add, EveryImplOnTheCorpus) {
  using T = std::complex<double>;
  using I = std::int32_t;
  const T alpha(2, 0), beta(-0.5, 0);
  // The corpus holds inf and nan on purpose: compare finite results only.
  auto check = [](const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!std::isfinite(std::abs(want[i]))) continue;
      ASSERT_LE(std::abs(got[i] - want[i]), 1e-14 * (1 + std::abs(want[i])))
          << what << " element " << i;
    }
  };
  int dense_files = 0;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    const auto coo = to_coo<I, T>(m);
    Coo<I, T> tr = coo;
    if (m.header.is_square()) std::swap(tr.row, tr.col);
    const auto a = coo_to_csr(coo), b = coo_to_csr(tr);
    Csr<I, T> want_sparse;
    add_sparse_ref(a, b, want_sparse, alpha, beta);
    for (const auto& impl : add_impls<I, T>()) {
      if (!test::runnable(impl.device)) continue;  // CUDA ones: where a GPU exists
      if (!(impl.make.kinds & add_sparse)) continue;
      Csr<I, T> sc;
      run_twice(impl, problem<I, T>(nullptr, &a, nullptr, &b, alpha, beta, nullptr, &sc));
      ASSERT_EQ(sc.ptr, want_sparse.ptr) << impl.name << " on " << f;
      ASSERT_EQ(sc.idx, want_sparse.idx) << impl.name << " on " << f;
      check(sc.val, want_sparse.val, impl.name + " sparse on " + f);
    }
    if (m.header.rows * m.header.cols > 1'000'000) continue;
    ++dense_files;
    const Dense<T> da = to_dense<T>(m), db = coo_to_dense(tr);
    Dense<T> want(da.rows, da.cols);
    add_dense_ref(da, db, want, alpha, beta);
    check(coo_to_dense(csr_to_coo(want_sparse)).data, want.data, "ref-sparse vs dense on " + f);
    for (const auto& impl : add_impls<I, T>()) {
      if (!test::runnable(impl.device)) continue;
      Dense<T> c(da.rows, da.cols, test::poison<T>());
      if (impl.make.kinds & add_dense) {
        run_twice(impl, problem<I, T>(&da, nullptr, &db, nullptr, alpha, beta, &c, nullptr));
        check(c.data, want.data, impl.name + " dense on " + f);
      }
      if (impl.make.kinds & add_mixed) {
        c = Dense<T>(da.rows, da.cols, test::poison<T>());
        run_twice(impl, problem<I, T>(&da, nullptr, nullptr, &b, alpha, beta, &c, nullptr));
        check(c.data, want.data, impl.name + " D+S on " + f);
        c = Dense<T>(da.rows, da.cols, test::poison<T>());
        run_twice(impl, problem<I, T>(nullptr, &a, &db, nullptr, alpha, beta, &c, nullptr));
        check(c.data, want.data, impl.name + " S+D on " + f);
      }
    }
  }
  EXPECT_GE(dense_files, 15);
}

TEST(Add, PickByOperandKindsAndSize) {
  using I = std::int32_t;
  using T = double;
  const std::int64_t big = add_parallel_min_size, small = add_parallel_min_size - 1;
  auto pick = [](unsigned kind, std::int64_t size, const std::string& name = "",
                 Device d = Device::cpu, int threads = 16) {
    return pick_add_impl<I, T>(kind, size, threads, name, d).name;
  };
  EXPECT_EQ(pick(add_dense, big), "cpu");
  EXPECT_EQ(pick(add_mixed, big), "cpu");
  EXPECT_EQ(pick(add_sparse, big), "cpu-sparse");
  EXPECT_EQ(pick(add_dense, small), "ref");
  EXPECT_EQ(pick(add_mixed, small), "ref");
  EXPECT_EQ(pick(add_sparse, small), "ref-sparse");
  EXPECT_EQ(pick(add_sparse, big, "", Device::cpu, 2), "ref-sparse");  // two passes need 3
  EXPECT_EQ(pick(add_dense, big, "", Device::cpu, 1), "cpu");
  EXPECT_EQ(pick(add_sparse, big, "cpu-sparse", Device::cpu, 1), "cpu-sparse");
  EXPECT_EQ(pick(add_sparse, big, "ref-sparse"), "ref-sparse");
  EXPECT_EQ(pick(add_dense, 1, "openblas"), "openblas");  // --impl wins over the size rule
  EXPECT_THROW(pick(add_sparse, big, "openblas"), InputError);
  EXPECT_THROW(pick(add_mixed, big, "openblas"), InputError);
  EXPECT_THROW(pick(add_dense, big, "cpu-sparse"), InputError);
  EXPECT_THROW(pick(add_dense, big, "nosuch"), UsageError);
#ifdef MM_HAVE_CUDA
  EXPECT_EQ(pick(add_dense, 1, "", Device::cuda), "cuda-vec");  // no size rule on the GPU
  EXPECT_EQ(pick(add_mixed, big, "", Device::cuda), "cuda-vec");
  EXPECT_EQ(pick(add_sparse, big, "", Device::cuda), "cuda-sparse");
  if (test::gpu().count == 0) {  // --impl of a CUDA implementation needs a GPU first
    EXPECT_THROW(pick(add_dense, big, "cuda-vec"), DeviceError);
  } else {
    EXPECT_THROW(pick(add_sparse, big, "cublas"), InputError);
  }
#else
  EXPECT_THROW(pick(add_dense, big, "", Device::cuda), DeviceError);
#endif
  EXPECT_EQ(add_kinds_text(add_dense | add_mixed), "dense+dense, dense+sparse");
  // A runner handed operands its implementation does not handle refuses them.
  Csr<I, T> s;
  Dense<T> d;
  const auto& blas = pick_add_impl<I, T>(add_dense, 1, 1, "openblas", Device::cpu);
  EXPECT_THROW(blas.make(problem<I, T>(nullptr, &s, nullptr, &s, 1.0, 1.0, nullptr, &s)),
               std::logic_error);
}

#ifdef MM_HAVE_CUDA
// cuda-seq refuses large problems before touching the GPU, so this runs everywhere.
TEST(Add, CudaSeqRefusesLargeProblems) {
  using I = std::int32_t;
  using T = double;
  const Dense<T> a(1025, 1024), b(1025, 1024);
  Dense<T> c(1025, 1024);
  int found = 0;
  for (const auto& impl : add_impls<I, T>()) {
    if (impl.name != "cuda-seq") continue;
    EXPECT_THROW(impl.make(problem<I, T>(&a, nullptr, &b, nullptr, 1.0, 1.0, &c, nullptr)),
                 InputError);
    ++found;
  }
  EXPECT_EQ(found, 1);
}
#endif

}  // namespace
}  // namespace mm
