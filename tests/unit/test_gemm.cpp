// GEMM: every implementation against the naive reference on awkward shapes and the corpus;
// the CUDA ones where a GPU exists (skipped with the reason elsewhere).
#include <gtest/gtest.h>

#include <cblas.h>
#include <omp.h>

#include <cmath>

#include "gemm.hpp"
#include "gpu.hpp"
#include "random_matrices.hpp"
#include "test_helpers.hpp"
#include "vendor/openblas.hpp"

namespace mm {
namespace {

template <class T>
class GemmTypes : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(GemmTypes, Types);

struct Dims {
  std::int64_t m, n, k;
};

// Around every tile edge (MR 2..8, NR 4..48), a K panel (KC 128/256), a task (NC 1024) and
// a B panel (8192 columns) boundary, several MC blocks of rows, and the empty cases.
std::vector<Dims> awkward_dims() {
  return {{1, 1, 1},    {31, 31, 31},  {33, 33, 33},   {1000, 7, 5},   {5, 1000, 9},
          {17, 300, 1}, {300, 17, 40}, {401, 50, 260}, {9, 8300, 260}, {25, 49, 513},
          {0, 5, 5},    {5, 0, 5},     {5, 5, 0},      {1, 97, 1}};
}

std::string name(const Dims& d) {
  return std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k);
}

TEST(Gemm, ReferenceByHand) {
  Dense<double> a(2, 3), b(3, 2), c(2, 2);
  a.data = {1, 2, 3, 4, 5, 6};
  b.data = {7, 8, 9, 10, 11, 12};
  c.data = {1, 1, 1, 1};
  gemm_ref(a, b, c, 2.0, -1.0);
  // A*B = [58 64; 139 154]
  EXPECT_EQ(c.data, (std::vector<double>{115, 127, 277, 307}));
}

TEST(Gemm, ShapeMismatchIsAnInputError) {
  Dense<double> a(2, 3), b(4, 2), c(2, 2);
  for (const auto& impl : gemm_impls<double>()) {
    GemmProblem<double> p{&a, &b, &c, 1.0, {}};
    try {
      impl.make(p)->run();
      ADD_FAILURE() << impl.name << " accepted 2x3 times 4x2";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("2x3"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("4x2"), std::string::npos) << e.what();
    } catch (const DeviceError&) {  // a kernel this CPU lacks
    }
  }
}

// Every registered CPU implementation through its Runner, output poisoned, run twice.
TYPED_TEST(GemmTypes, EveryImplMatchesRef) {
  using T = TypeParam;
  std::uint64_t seed = 1;
  for (const Dims& d : awkward_dims()) {
    const auto a = test::random_dense<T>(d.m, d.k, seed++);
    const auto b = test::random_dense<T>(d.k, d.n, seed++);
    Dense<T> want(d.m, d.n);
    gemm_ref(a, b, want, T(-1.5), T{});
    for (const auto& impl : gemm_impls<T>()) {
      // CUDA ones: CudaImplsMatchRef below, where a GPU exists, with per-kernel tolerances.
      if (impl.device != Device::cpu) continue;
      Dense<T> c(d.m, d.n, test::poison<T>());
      std::unique_ptr<Runner> r;
      try {
        r = impl.make(GemmProblem<T>{&a, &b, &c, T(-1.5), {}});
      } catch (const DeviceError& e) {
        GTEST_LOG_(INFO) << "skipping " << impl.name << ": " << e.what();
        continue;
      }
      r->upload();
      r->run();
      r->run();
      r->download();
      test::expect_close(c.data, want.data, test::tolerance<T>(d.k), impl.name + " on " + name(d));
    }
  }
}

// The tile edges of the CUDA kernels (16, 32, 128; BK 8, 16, 32), tiles met exactly, shapes
// with and without the 16-byte vector path (n and k multiples of 4 floats / 2 doubles),
// k = 1000 for the TF32 bound, and a very long k.
std::vector<Dims> gpu_dims() {
  auto d = awkward_dims();
  for (const Dims& x : std::vector<Dims>{{128, 128, 128},
                                         {256, 128, 64},
                                         {129, 130, 131},
                                         {257, 252, 1000},
                                         {300, 256, 260},
                                         {127, 1, 64},
                                         {1, 129, 64},
                                         {2, 2, 1000},
                                         {33, 40, 20000},
                                         {1000, 1000, 4},
                                         // More than 8 rows of 128-row tiles: the FP64
                                         // kernel's groups of 8 tile rows, the last partial.
                                         {1100, 200, 36},
                                         {2050, 70, 17},
                                         // cuda-tf32's 128x256 tiles and 32-deep k slices
                                         // (4-stage ring wrapping), k not a multiple of 4
                                         // (padded copy of A), odd and even n past a tile.
                                         {300, 520, 129},
                                         {130, 513, 72},
                                         {257, 260, 300},
                                         // cuda-sgemm's 128x256 tiles: all inside (the path
                                         // without bounds tests), then inside and edge ones.
                                         {256, 512, 96},
                                         {300, 520, 64}})
    d.push_back(x);
  return d;
}

// The TF32 ones, named *-tf32* (cuda-tf32, its variants, cublas-tf32; single precision only),
// round A and B to TF32 (10 explicit mantissa bits, u = 2^-11; cuda-tf32 truncates A, which
// errs by 2u at most): each product errs by at most about 3u|ab|, these errors are independent
// with mean zero, so an element errs by about 0.8u*sqrt(sum (ab)^2) while elements themselves are
// of size sqrt(sum (ab)^2). Relative to the largest element (expect_close's scale) the error stays
// within a few u whatever k; where the scale is clamped to 1 (small k) the worst case 2u*k*|alpha|
// is below 16u for k <= 5. Hence 16u = 7.8e-3 (about 1e-2 for k = 1000), plus the FP32 summation's
// own tolerance.
template <class T>
double cuda_tolerance(const std::string& impl, std::int64_t k) {
  if (std::is_same_v<T, float> && impl.find("-tf32") != std::string::npos)
    return 16 * 0x1p-11 + test::tolerance<T>(k);
  return test::tolerance<T>(k);
}

// Every CUDA implementation against ref: output poisoned (NaN), run, timed run (repeats must
// give the same answer), downloaded.
template <class T>
int check_cuda_impls(const std::vector<Dims>& dims, bool tf32_exact, std::uint64_t seed) {
  int ran = 0;
  for (const Dims& d : dims) {
    auto a = test::random_dense<T>(d.m, d.k, seed++);
    auto b = test::random_dense<T>(d.k, d.n, seed++);
    if constexpr (!is_complex_v<T>) {
      if (tf32_exact)  // multiples of 1/64 in [-1, 1]: exact in TF32, and so are all the sums
        for (auto* x : {&a, &b})
          for (auto& v : x->data) v = std::round(v * T(64)) / T(64);
    }
    Dense<T> want(d.m, d.n);
    gemm_ref(a, b, want, T(-1.5), T{});
    for (const auto& impl : gemm_impls<T>()) {
      if (impl.device != Device::cuda) continue;
      Dense<T> c(d.m, d.n, test::poison<T>());
      auto r = impl.make(GemmProblem<T>{&a, &b, &c, T(-1.5), {}});
      r->upload();
      r->run();
      r->timed_run();
      r->download();
      const double tol = tf32_exact ? test::tolerance<T>(d.k) : cuda_tolerance<T>(impl.name, d.k);
      test::expect_close(c.data, want.data, tol, impl.name + " on " + name(d));
      if (::testing::Test::HasFatalFailure()) return ran;
      ++ran;
    }
  }
  return ran;
}

TYPED_TEST(GemmTypes, CudaImplsMatchRef) {
  MM_REQUIRE_GPU();
  EXPECT_GT(check_cuda_impls<TypeParam>(gpu_dims(), false, 500), 0) << "no CUDA implementation";
}

// Every CUDA implementation on a few shapes that end inside each kernel's tiles (16, 32, 128 and
// 256 wide; k past a slice): the size at which compute-sanitizer's racecheck finishes
// (scripts/gpu-sanitize.sh), where it did not finish one case of the test above in 470 s.
TYPED_TEST(GemmTypes, CudaImplsOnSmallShapes) {
  MM_REQUIRE_GPU();
  const std::vector<Dims> dims{{33, 33, 33}, {129, 130, 131}, {1, 97, 1}, {17, 300, 40}};
  EXPECT_GT(check_cuda_impls<TypeParam>(dims, false, 700), 0) << "no CUDA implementation";
}

// Inputs exact in TF32 with every partial sum exact in FP32 (k <= 1000: sums are multiples
// of 2^-12 below 2^12): the TF32 tensor kernel must then agree with ref to FP32 accuracy,
// which catches a misplaced fragment that the looser TF32 tolerance might let through.
TEST(GemmGpu, FloatKernelsOnInputsExactInTf32) {
  MM_REQUIRE_GPU();
  std::vector<Dims> dims;
  for (const Dims& d : gpu_dims())
    if (d.k <= 1000) dims.push_back(d);
  EXPECT_GT(check_cuda_impls<float>(dims, true, 900), 0);
}

// The tool's path: a CUDA impl bound once, measured as the tools do (warm-up and repeats).
TEST(GemmGpu, MeasuredRunsReportTheGpu) {
  MM_REQUIRE_GPU();
  const auto a = test::random_dense<double>(200, 300, 1),
             b = test::random_dense<double>(300, 100, 2);
  Dense<double> want(200, 100), c(200, 100, test::poison<double>());
  gemm_ref(a, b, want, 2.0, 0.0);
  const auto& impl = pick_impl(gemm_impls<double>(), "gemm", "", Device::cuda);
  EXPECT_EQ(impl.device, Device::cuda);
  auto r = impl.make(GemmProblem<double>{&a, &b, &c, 2.0, {}});
  const Measured m = measure(*r, 1, 3);
  EXPECT_EQ(m.compute.repeats, 3);
  EXPECT_EQ(m.device, test::gpu().name);
  test::expect_close(c.data, want.data, test::tolerance<double>(300), impl.name);
}

// The blocked driver's beta path and every kernel family, on one thread and on three.
TYPED_TEST(GemmTypes, BlockedKernelsWithBeta) {
  using T = TypeParam;
  const int saved = omp_get_max_threads();
  std::uint64_t seed = 100;
  for (const int threads : {1, 3}) {
    omp_set_num_threads(threads);
    for (const GemmKernel k :
         {GemmKernel::portable, GemmKernel::avx2, GemmKernel::avx512, GemmKernel::best}) {
      if (!gemm_kernel_supported(k)) continue;
      for (const Dims& d : awkward_dims()) {
        const auto a = test::random_dense<T>(d.m, d.k, seed++);
        const auto b = test::random_dense<T>(d.k, d.n, seed++);
        const auto c0 = test::random_dense<T>(d.m, d.n, seed++);
        Dense<T> want = c0, got = c0;
        gemm_ref(a, b, want, T(0.5), T(-2));
        gemm_cpu_blocked(a, b, got, T(0.5), T(-2), k);
        test::expect_close(got.data, want.data, test::tolerance<T>(d.k),
                           gemm_kernel_name<T>(k) + " beta=-2 on " + name(d) + " threads " +
                               std::to_string(threads));
      }
    }
  }
  omp_set_num_threads(saved);
}

// cpu-blocked's micro-kernel is a tuning key: each value runs through the registry's runner,
// matches the reference and is what the runner reports; an unknown word is a usage error.
TEST(GemmTuning, EveryMicrokernelThroughCpuBlocked) {
  const auto a = test::random_dense<double>(37, 41, 7), b = test::random_dense<double>(41, 29, 8);
  Dense<double> want(37, 29);
  gemm_ref(a, b, want, 2.0, 0.0);
  const auto& impl = pick_impl(gemm_impls<double>(), "gemm", "cpu-blocked", Device::cpu);
  for (const std::string word : {"auto", "portable", "avx2", "avx512"}) {
    const GemmTuning t = GemmTuning::from(TuneArgs({"microkernel=" + word}));
    if (!gemm_kernel_supported(t.microkernel)) {
      Dense<double> c(37, 29);
      EXPECT_THROW(impl.make(GemmProblem<double>{&a, &b, &c, 2.0, t}), DeviceError) << word;
      continue;
    }
    Dense<double> c(37, 29, test::poison<double>());
    auto r = impl.make(GemmProblem<double>{&a, &b, &c, 2.0, t});
    r->run();
    test::expect_close(c.data, want.data, test::tolerance<double>(41), "microkernel=" + word);
    const std::string used = r->tuning().at("microkernel");
    EXPECT_EQ(used, gemm_kernel_name<double>(t.microkernel)) << word;
    if (word != "auto") {
      EXPECT_EQ(used.substr(0, word.size()), word);
    }
  }
  EXPECT_EQ(GemmTuning::from(TuneArgs()).microkernel, GemmKernel::best);
  EXPECT_THROW(GemmTuning::from(TuneArgs({"microkernel=avx3"})), UsageError);
}

// OpenBLAS's pool gets --threads, or OpenMP's count when none is given.
TEST(Gemm, OpenBlasThreadsFollowTheToolsCount) {
  const int saved = omp_get_max_threads();
  set_openblas_threads(3);
  EXPECT_EQ(openblas_get_num_threads(), 3);
  omp_set_num_threads(1);
  set_openblas_threads(0);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  omp_set_num_threads(2);
  set_openblas_threads(0);
  EXPECT_EQ(openblas_get_num_threads(), 2);
  omp_set_num_threads(saved);
  set_openblas_threads(0);
}

TEST(Gemm, KernelNamesSayWhatRuns) {
  EXPECT_EQ(gemm_kernel_name<double>(GemmKernel::portable), "portable 4x4");
  EXPECT_EQ(gemm_kernel_name<float>(GemmKernel::portable), "portable 4x8");
  if (gemm_kernel_supported(GemmKernel::avx512))
    EXPECT_EQ(gemm_kernel_name<double>(GemmKernel::best), "avx512 8x24");
  else
    EXPECT_THROW(gemm_kernel_name<double>(GemmKernel::avx512), DeviceError);
}

// Dense forms of the small corpus files times their transposes (every file has a product
// with its transpose whatever its shape), every implementation against ref.
TEST(Gemm, EveryImplOnTheCorpus) {
  using T = std::complex<double>;
  int tested = 0;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    if (m.header.rows * m.header.cols > 700 * 700) continue;  // ref is cubic
    const Dense<T> a = to_dense<T>(m);
    Dense<T> at(a.cols, a.rows);
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t j = 0; j < a.cols; ++j) at(j, i) = a(i, j);
    Dense<T> want(a.rows, a.rows);
    gemm_ref(a, at, want, T(1), T{});
    for (const auto& impl : gemm_impls<T>()) {
      if (!test::runnable(impl.device)) continue;  // CUDA ones: where a GPU exists
      Dense<T> c(a.rows, a.rows, test::poison<T>());
      auto r = impl.make(GemmProblem<T>{&a, &at, &c, T(1), {}});
      r->upload();
      r->run();
      r->download();
      // The corpus holds inf and nan on purpose: compare finite results only.
      for (std::size_t i = 0; i < c.data.size(); ++i) {
        if (!std::isfinite(std::abs(want.data[i]))) continue;
        ASSERT_LE(std::abs(c.data[i] - want.data[i]), 1e-10 * (1 + std::abs(want.data[i])))
            << impl.name << " on " << f << " element " << i;
      }
    }
    ++tested;
  }
  EXPECT_GE(tested, 10);
}

}  // namespace
}  // namespace mm
