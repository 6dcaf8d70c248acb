// SpMV: every implementation against the serial reference, on awkward shapes and the corpus.
#include <gtest/gtest.h>

#include "gpu.hpp"
#include "random_matrices.hpp"
#include "spmv.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

template <class P>
class SpmvTypes : public ::testing::Test {};
using Types =
    ::testing::Types<std::pair<std::int32_t, float>, std::pair<std::int32_t, double>,
                     std::pair<std::int64_t, double>, std::pair<std::int32_t, std::complex<float>>,
                     std::pair<std::int64_t, std::complex<double>>>;
TYPED_TEST_SUITE(SpmvTypes, Types);

TEST(Spmv, ReferenceByHand) {
  auto m = parse_mtx("%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 2\n1 3 -1\n2 2 4\n",
                     "t");
  const auto a = coo_to_csr(to_coo<std::int32_t, double>(m));
  const std::vector<double> x{1, 2, 3};
  std::vector<double> y{10, 20};
  spmv_ref(a, x.data(), y.data(), 2.0, 0.5);
  EXPECT_EQ(y, (std::vector<double>{2 * (2 - 3) + 5, 2 * 8 + 10}));
}

// Every implementation on DEVICE for general matrices against ref, alpha/beta included,
// on the awkward shapes plus rows long enough to be split across blocks.
template <class I, class T>
void check_general_impls(Device device) {
  auto shapes = test::awkward_shapes();
  shapes.push_back({"long-rows", 40, 20000, 0.0005, false, true});  // row 0: 20000 entries
  shapes.push_back({"wide-rows", 300, 5000, 0.5});                  // ~2500 per row
  std::uint64_t seed = 1;
  int ran = 0;
  for (const auto& s : shapes) {
    const auto a = test::random_csr<I, T>(s, seed++);
    const auto x = test::random_vector<T>(a.cols, seed++);
    const auto y0 = test::random_vector<T>(a.rows, seed++);
    for (const T beta : {T(0), T(0.5)}) {
      std::vector<T> want = y0;
      spmv_ref(a, x.data(), want.data(), T(-1.5), beta);
      for (const auto& impl : spmv_impls<I, T>()) {
        // The stored-triangle ones: below.
        if (impl.device != device || impl.make.input != SpmvInput::full) continue;
        std::vector<T> y(static_cast<std::size_t>(a.rows), test::poison<T>());
        SpmvProblem<I, T> p{&a,        nullptr,  Symmetry::general, x.data(),
                            y0.data(), y.data(), T(-1.5),           beta};
        auto r = impl.make(p);
        r->upload();
        r->run();
        r->timed_run();  // repeated runs give the same answer (beta must not compound)
        r->download();
        test::expect_close(y, want, test::tolerance<T>(a.cols), impl.name + " on " + s.name);
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0) << "no implementation for this device";
}

// cuda-vector-k at every lane count and cuda-merge at every tile size, under every L2 mode
// (cuda-csr-stream and cuda-adaptive too), against ref: the awkward shapes plus rows spanning
// many merge tiles, tiles of row ends only (mostly empty rows), warps of rows whose nonzeros
// overrun one csr-stream stage (~9 a row: ~290 a warp) and power-law-like row lengths.
template <class I, class T>
void check_cuda_tunings() {
  auto shapes = test::awkward_shapes();
  shapes.push_back({"long-rows", 40, 20000, 0.0005, false, true});  // row 0: ~10 tiles
  shapes.push_back({"mostly-empty", 6000, 50, 0.001, true});        // tiles without nonzeros
  shapes.push_back({"one-dense-row", 1, 9000, 1.0});                // 1 x 9000, a single row
  shapes.push_back({"tall-thin", 9000, 1, 0.7, true});              // a column
  shapes.push_back({"stage-crossing", 4000, 300, 0.03});            // ~9 a row
  std::vector<std::pair<std::string, SpmvTuning>> runs;
  for (const int lanes : {1, 2, 4, 8, 16, 32})
    runs.push_back({"cuda-vector-k", SpmvTuning{.lanes = lanes}});
  for (const int items : {4, 6, 8}) runs.push_back({"cuda-merge", SpmvTuning{.items = items}});
  for (const int l2 : {1, 2, 3}) {
    runs.push_back({"cuda-vector-k", SpmvTuning{.l2 = l2}});
    runs.push_back({"cuda-merge", SpmvTuning{.l2 = l2}});
    runs.push_back({"cuda-adaptive", SpmvTuning{.l2 = l2}});
    runs.push_back({"cuda-csr-stream", SpmvTuning{.l2 = l2}});
  }
  // Power-law-like rows: lengths 1 / u^2 (a few hundred at most), in a random order.
  Csr<I, T> pl;
  {
    std::mt19937_64 rng(5);
    Coo<I, T> c;
    c.rows = 3000;
    c.cols = 2000;
    for (std::int64_t i = 0; i < c.rows; ++i) {
      const double u = (static_cast<double>(rng() >> 11) + 1) * 0x1p-53;
      const auto len = std::min<std::int64_t>(c.cols, static_cast<std::int64_t>(1 / (u * u)));
      for (std::int64_t j = 0; j < len; ++j) {
        c.row.push_back(static_cast<I>(i));
        c.col.push_back(static_cast<I>((j * 7919 + i) % c.cols));
        c.val.push_back(test::random_value<T>(rng));
      }
    }
    pl = coo_to_csr(c);
  }
  std::uint64_t seed = 100;
  for (std::size_t m = 0; m <= shapes.size(); ++m) {
    const auto a = m < shapes.size() ? test::random_csr<I, T>(shapes[m], seed++) : pl;
    const std::string name = m < shapes.size() ? shapes[m].name : "power-law-like";
    const auto x = test::random_vector<T>(a.cols, seed++);
    const auto y0 = test::random_vector<T>(a.rows, seed++);
    for (const T beta : {T(0), T(-2)}) {
      std::vector<T> want = y0;
      spmv_ref(a, x.data(), want.data(), T(0.75), beta);
      for (const auto& [impl_name, tuning] : runs) {
        const auto* impl = &spmv_impls<I, T>().front();
        for (const auto& i : spmv_impls<I, T>())
          if (i.name == impl_name) impl = &i;
        ASSERT_EQ(impl->name, impl_name);
        std::vector<T> y(static_cast<std::size_t>(a.rows), test::poison<T>());
        SpmvProblem<I, T> p{&a,        nullptr,  Symmetry::general, x.data(),
                            y0.data(), y.data(), T(0.75),           beta};
        auto r = impl->make(p, tuning);
        r->upload();
        r->run();
        r->timed_run();
        r->download();
        const std::string what = impl_name + " " + tuning.to_json().dump() + " on " + name;
        test::expect_close(y, want, test::tolerance<T>(a.cols), what);
        // The record's tuning holds what ran: the key asked for, resolved where it was 0.
        const nlohmann::json used = r->tuning();
        if (tuning.lanes) {
          EXPECT_EQ(used.value("lanes", 0), tuning.lanes) << what;
        }
        if (tuning.items && (tuning.items < 8 || sizeof(I) + sizeof(T) < 24)) {
          EXPECT_EQ(used.value("items", 0), tuning.items) << what;
        }
        if (impl_name == "cuda-vector-k" || impl_name == "cuda-merge") {
          EXPECT_EQ(used.count(impl_name == "cuda-merge" ? "items" : "lanes"), 1u) << what;
        }
        const int mode = tuning.l2 ? tuning.l2 : impl_name == "cuda-adaptive" ? 1 : 3;
        const char* l2 = mode == 1 ? "plain" : mode == 2 ? "stream" : "keep-x";
        EXPECT_EQ(used.value("l2", ""), l2) << what;
      }
    }
  }
}

TYPED_TEST(SpmvTypes, CudaTuningsMatchRef) {
  MM_REQUIRE_GPU();
  check_cuda_tunings<typename TypeParam::first_type, typename TypeParam::second_type>();
}

TEST(Spmv, RowStatisticsByHand) {
  // Rows of 4, 0, 2 and 2 entries: mean 2, max 4, standard deviation sqrt(2): cv 0.7071.
  Csr<std::int32_t, double> a;
  a.rows = 4;
  a.cols = 5;
  a.ptr = {0, 4, 4, 6, 8};
  a.idx = {0, 1, 2, 3, 0, 4, 1, 2};
  a.val.assign(8, 1.0);
  const SpmvRowStats s = spmv_row_stats(a);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.nnz, 8);
  EXPECT_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
  EXPECT_NEAR(s.cv, std::sqrt(2.0) / 2.0, 1e-15);
  const SpmvRowStats e = spmv_row_stats(Csr<std::int32_t, double>{});
  EXPECT_EQ(e.rows, 0);
  EXPECT_EQ(e.cv, 0.0);
}

TEST(Spmv, LanesFollowTheMeanRowLength) {
  EXPECT_EQ(spmv_lanes(0), 2);
  EXPECT_EQ(spmv_lanes(5), 2);  // the Poisson matrices: 2 lanes measured best
  EXPECT_EQ(spmv_lanes(8), 2);
  EXPECT_EQ(spmv_lanes(11.3), 2);
  EXPECT_EQ(spmv_lanes(11.4), 4);  // past 4 * 2 * sqrt(2)
  EXPECT_EQ(spmv_lanes(20), 4);
  EXPECT_EQ(spmv_lanes(40), 8);
  EXPECT_EQ(spmv_lanes(1e6), 32);
}

TEST(Spmv, ChoiceFollowsTheRowStatistics) {
  // Row statistics, then the choice on a GPU whose memory is not rich against its
  // multiprocessors (the H100) and on one where it is (the H200): there even rows shorter than
  // 6 go to the staging warp, and only they.
  struct Case {
    const char* what;
    SpmvRowStats stats;
    const char *lean, *rich;
  };
  const Case cases[] = {
      {"2D Poisson, rows of 5 (cv 0.05): even",
       {2250000, 11244000, 5, 4.997, 0.05},
       "cuda-vector-k",
       "cuda-csr-stream"},
      {"3D Poisson, rows of 7: even",
       {2197000, 15277600, 7, 6.95, 0.03},
       "cuda-vector-k",
       "cuda-vector-k"},
      {"uniform random rows of 8: even",
       {2000000, 16000000, 8, 8.0, 0.0},
       "cuda-vector-k",
       "cuda-vector-k"},
      {"rows of 8 but one of 100: not even (lanes would idle on it)",
       {2000000, 16000092, 100, 8.0, 0.02},
       "cusparse",
       "cusparse"},
      {"power-law rows, alpha 1.5 (spread, rows of thousands)",
       {2000000, 15896029, 43046, 7.95, 6.92},
       "cusparse",
       "cusparse"},
      {"power-law rows, alpha 3", {2000000, 16000887, 678, 8.0, 0.57}, "cusparse", "cusparse"},
      {"four full rows of 1M among rows of 10: adaptive's chunks",
       {1000000, 13999960, 1000000, 14.0, 142.9},
       "cuda-adaptive",
       "cuda-adaptive"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(spmv_cuda_choice(c.stats, false), c.lean) << c.what;
    EXPECT_EQ(spmv_cuda_choice(c.stats, true), c.rich) << c.what;
  }
}

TEST(Spmv, TuningKeysParse) {
  const SpmvTuning t = SpmvTuning::from(TuneArgs({"lanes=8", "items=6", "l2=keep-x"}));
  EXPECT_EQ(t.lanes, 8);
  EXPECT_EQ(t.items, 6);
  EXPECT_EQ(t.l2, 3);
  EXPECT_EQ(t.to_json(), (nlohmann::json{{"lanes", 8}, {"items", 6}, {"l2", "keep-x"}}));
  EXPECT_EQ(SpmvTuning{}.to_json(), nlohmann::json::object());
  EXPECT_THROW(SpmvTuning::from(TuneArgs({"lanes=3"})), UsageError);
  EXPECT_THROW(SpmvTuning::from(TuneArgs({"items=16"})), UsageError);
  EXPECT_THROW(SpmvTuning::from(TuneArgs({"l2=last"})), UsageError);
}

TEST(Spmv, DefaultOnTheCpuIsTheListsFirst) {
  const auto a = test::random_csr<std::int32_t, double>({"t", 50, 50, 0.1}, 3);
  EXPECT_EQ(spmv_default_impl(a, Device::cpu).name, "cpu-csr");
}

// On the GPU the default follows the row statistics and the GPU: a 2D Poisson matrix's rows of
// 3-5 go to the staging warp where memory is rich against the multiprocessors (the H200), else
// to K lanes a row; and the staging warp's result matches ref on it.
TEST(Spmv, DefaultOnTheGpuFollowsTheGpu) {
  MM_REQUIRE_GPU();
  constexpr std::int64_t m = 70;
  Csr<std::int32_t, double> a;
  a.rows = a.cols = m * m;
  a.ptr.push_back(0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      const auto r = static_cast<std::int32_t>(i * m + j);
      for (const std::int32_t c :
           {r - static_cast<std::int32_t>(m), r - 1, r, r + 1, r + static_cast<std::int32_t>(m)}) {
        const bool inside = c >= 0 && c < a.rows && (c == r || c / m == i || c % m == j);
        if (!inside) continue;
        a.idx.push_back(c);
        a.val.push_back(c == r ? 4.0 : -1.0 - 0.001 * static_cast<double>(c % 13));
      }
      a.ptr.push_back(static_cast<std::int32_t>(a.idx.size()));
    }
  const auto& impl = spmv_default_impl(a, Device::cuda);
  EXPECT_EQ(impl.name, gpu_memory_rich() ? "cuda-csr-stream" : "cuda-vector-k");
  std::vector<double> x(static_cast<std::size_t>(a.cols)), y(x.size()), want(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 1.0 + static_cast<double>(k % 7) * 0.25;
  spmv_ref(a, x.data(), want.data(), 1.0, 0.0);
  SpmvProblem<std::int32_t, double> p;
  p.full = &a;
  p.x = x.data();
  p.y = y.data();
  auto run = impl.make(p);
  run->upload();
  run->run();
  run->download();
  // Sums of at most 5 products.
  test::expect_close(y, want, test::tolerance<double>(5), impl.name);
}

TYPED_TEST(SpmvTypes, CpuImplsMatchRefOnAwkwardShapes) {
  check_general_impls<typename TypeParam::first_type, typename TypeParam::second_type>(Device::cpu);
}

TYPED_TEST(SpmvTypes, CudaImplsMatchRefOnAwkwardShapes) {
  MM_REQUIRE_GPU();
  check_general_impls<typename TypeParam::first_type, typename TypeParam::second_type>(
      Device::cuda);
}

// The symmetric kernel on the stored triangle, against ref on the expanded matrix.
TYPED_TEST(SpmvTypes, SymmetricKernelMatchesRef) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  std::vector<Symmetry> kinds{Symmetry::symmetric, Symmetry::skew_symmetric};
  if constexpr (is_complex_v<T>) kinds.push_back(Symmetry::hermitian);
  std::uint64_t seed = 99;
  for (const Symmetry sym : kinds) {
    for (const std::int64_t n : {1, 31, 33, 1000}) {
      // A random lower triangle as an MtxMatrix of that symmetry.
      const auto l = test::random_csr<I, T>({"t", n, n, 0.05}, seed++);
      MtxMatrix m = to_mtx(l);
      std::vector<std::int64_t> keep;
      for (std::int64_t k = 0; k < m.header.nnz; ++k)
        if (m.row[k] > m.col[k] || (m.row[k] == m.col[k] && sym != Symmetry::skew_symmetric))
          keep.push_back(k);
      MtxMatrix t;
      t.header = m.header;
      t.header.symmetry = sym;
      t.header.nnz = static_cast<std::int64_t>(keep.size());
      for (auto k : keep) {
        t.row.push_back(m.row[k]);
        t.col.push_back(m.col[k]);
        t.real.push_back(m.real[k]);
        if (!m.imag.empty())
          t.imag.push_back(sym == Symmetry::hermitian && m.row[k] == m.col[k] ? 0.0 : m.imag[k]);
      }
      const auto stored = coo_to_csr(to_coo<I, T>(t, false));
      const auto full = coo_to_csr(to_coo<I, T>(t, true));
      const auto x = test::random_vector<T>(n, seed++);
      std::vector<T> want(static_cast<std::size_t>(n)),
          y(static_cast<std::size_t>(n), test::poison<T>());
      spmv_ref(full, x.data(), want.data(), T(1), T(0));
      SpmvProblem<I, T> p{&stored, &stored, sym, x.data(), nullptr, y.data(), T(1), T(0)};
      int ran = 0;
      for (const auto& impl : spmv_impls<I, T>()) {
        if (impl.make.input != SpmvInput::stored_triangle || !test::runnable(impl.device)) continue;
        std::fill(y.begin(), y.end(), test::poison<T>());
        impl.make(p)->run();
        test::expect_close(y, want, test::tolerance<T>(n), impl.name + " n=" + std::to_string(n));
        ++ran;
      }
      EXPECT_GT(ran, 0) << "no stored-triangle implementation";
    }
  }
}

TEST(Spmv, EveryImplOnTheCorpus) {
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    if (m.header.format != Format::coordinate) continue;
    using T = std::complex<double>;
    const auto full = coo_to_csr(to_coo<std::int32_t, T>(m));
    const auto stored = coo_to_csr(to_coo<std::int32_t, T>(m, false));
    const auto x = test::random_vector<T>(full.cols, 7);
    std::vector<T> want(static_cast<std::size_t>(full.rows));
    spmv_ref(full, x.data(), want.data(), T(1), T(0));
    for (const auto& impl : spmv_impls<std::int32_t, T>()) {
      if (impl.make.input == SpmvInput::stored_triangle && m.header.symmetry == Symmetry::general)
        continue;
      if (!test::runnable(impl.device)) continue;  // CUDA ones: covered where a GPU exists
      std::vector<T> y(static_cast<std::size_t>(full.rows), test::poison<T>());
      SpmvProblem<std::int32_t, T> p{&full, &stored, m.header.symmetry, x.data(), nullptr, y.data(),
                                     T(1),  T(0)};
      auto r = impl.make(p);
      r->upload();
      r->run();
      r->download();
      // The corpus holds inf and nan on purpose: compare finite results only.
      for (std::size_t i = 0; i < y.size(); ++i) {
        if (!std::isfinite(std::abs(want[i]))) continue;
        ASSERT_LE(std::abs(y[i] - want[i]), 1e-10 * (1 + std::abs(want[i])))
            << impl.name << " on " << f << " row " << i;
      }
    }
  }
}

TEST(Spmv, SplitBalancesNonzerosNotRows) {
  // Row 0 holds 1000 entries, rows 1..999 one each: two parts split near row 500, not at 500 rows.
  test::Shape s{"skew", 1000, 1000, 0.0, false, true};
  auto a = test::random_csr<std::int32_t, double>(s, 1);
  const auto split = spmv_split(a, 2);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[0], 0);
  EXPECT_EQ(split[2], 1000);
  EXPECT_LE(split[1], 2);  // row 0 alone is about half the work (1000 nnz + 1 of 2000)
}

}  // namespace
}  // namespace mm
