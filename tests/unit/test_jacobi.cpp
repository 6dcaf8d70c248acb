// Jacobi on a system A x = b: every implementation against the reference on awkward shapes,
// hand-computed cases, mmgen systems solved, the corpus, and the matrix form of the 2D heated
// room against the stencil sweep; the CUDA implementation where a GPU exists.
#include <gtest/gtest.h>

#include "analysis/check.hpp"
#include "analysis/generate.hpp"
#include "analysis/generate_rhs.hpp"
#include "gpu.hpp"
#include "jacobi.hpp"
#include "random_matrices.hpp"
#include "stencil_run.hpp"
#include "test_helpers.hpp"

namespace mm {
namespace {

// ---- the system ---------------------------------------------------------------------------

// A random matrix of shape S made strictly diagonally dominant: every row gets a diagonal
// of (1.5 + its off-diagonal absolute sum), with a random sign (phase for complex).
template <class I, class T>
Csr<I, T> dominant(const test::Shape& s, std::uint64_t seed) {
  const auto a = test::random_csr<I, T>(s, seed);
  Coo<I, T> c = csr_to_coo(a);
  std::mt19937_64 rng(seed + 1000);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double off = 0;
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      if (a.idx[k] != i) off += static_cast<double>(std::abs(a.val[k]));
    T d = test::random_value<T>(rng);
    const double mag = static_cast<double>(std::abs(d));
    d = mag > 0.1 ? d * static_cast<real_type_t<T>>((off + 1.5) / mag) : T(off + 1.5);
    // Replace any random diagonal: add the difference so the sum is D.
    T have{};
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      if (a.idx[k] == i) have = a.val[k];
    c.row.push_back(static_cast<I>(i));
    c.col.push_back(static_cast<I>(i));
    c.val.push_back(d - have);
  }
  return coo_to_csr(c);
}

template <class P>
class JacobiTypes : public ::testing::Test {};
using Types =
    ::testing::Types<std::pair<std::int32_t, float>, std::pair<std::int32_t, double>,
                     std::pair<std::int64_t, double>, std::pair<std::int32_t, std::complex<float>>,
                     std::pair<std::int64_t, std::complex<double>>>;
TYPED_TEST_SUITE(JacobiTypes, Types);

template <class I, class T>
std::vector<T> run_impl(const Impl<JacobiMake<I, T>>& impl, const Csr<I, T>& a,
                        const std::vector<T>& b, const JacobiStop& stop, JacobiResult& res) {
  std::vector<T> x(static_cast<std::size_t>(a.rows), test::poison<T>());
  JacobiProblem<I, T> p{&a, b.data(), x.data(), stop, &res};
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->run();  // a second run starts again from x_0 = 0
  r->download();
  return x;
}

TEST(Jacobi, ReferenceByHand) {
  // [4 1; 2 5] x = [5; 7]: x_1 = (5/4, 7/5), x_2 = ((5 - 7/5)/4, (7 - 5/2)/5) = (0.9, 0.9).
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 4\n1 2 1\n2 1 2\n2 2 5\n", "t");
  const auto a = coo_to_csr(to_coo<std::int32_t, double>(m));
  const std::vector<double> b{5, 7};
  std::vector<double> x(2);
  auto r = jacobi_ref(a, b.data(), x.data(), JacobiStop{1, -1, 1});
  EXPECT_EQ(r.iterations, 1);
  EXPECT_DOUBLE_EQ(x[0], 1.25);
  EXPECT_DOUBLE_EQ(x[1], 1.4);
  EXPECT_DOUBLE_EQ(r.norm, std::sqrt(1.25 * 1.25 + 1.4 * 1.4));
  r = jacobi_ref(a, b.data(), x.data(), JacobiStop{2, -1, 1});
  EXPECT_DOUBLE_EQ(x[0], 0.9);
  EXPECT_DOUBLE_EQ(x[1], 0.9);
  EXPECT_DOUBLE_EQ(r.norm, std::hypot(0.35, 0.5));
  EXPECT_FALSE(r.converged);
  // Converges to (1, 1); check-every 4 stops at a multiple of 4.
  r = jacobi_ref(a, b.data(), x.data(), JacobiStop{1000, 1e-13, 4});
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations % 4, 0);
  EXPECT_NEAR(x[0], 1.0, 1e-13);
  EXPECT_NEAR(x[1], 1.0, 1e-13);
  // Tolerance not reached: the last change is from the last iteration (max_iter 7 not a multiple).
  r = jacobi_ref(a, b.data(), x.data(), JacobiStop{7, 1e-30, 3});
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 7);
  EXPECT_GT(r.norm, 0);
}

TEST(Jacobi, DiagonalChecks) {
  // Row 2 has an explicit zero on the diagonal, row 3 none at all; row 1 is not dominant.
  auto m = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n1 2 1\n2 2 0\n2 1 1\n3 1 1\n",
      "t");
  auto a = coo_to_csr(to_coo<std::int32_t, double>(m));
  EXPECT_EQ(jacobi_zero_diagonal_row(a), 1);
  EXPECT_EQ(jacobi_not_dominant_row(a), 0);
  m = parse_mtx(
      "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 3\n1 3 -2\n2 2 1\n3 1 1\n", "t");
  a = coo_to_csr(to_coo<std::int32_t, double>(m));
  EXPECT_EQ(jacobi_zero_diagonal_row(a), 2);
  m = parse_mtx("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 3\n1 2 -2\n2 2 1\n",
                "t");
  a = coo_to_csr(to_coo<std::int32_t, double>(m));
  EXPECT_EQ(jacobi_zero_diagonal_row(a), -1);
  EXPECT_EQ(jacobi_not_dominant_row(a), -1);
  // Duplicates summed to zero on the diagonal count as zero.
  m = parse_mtx("%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 2\n1 1 -2\n", "t");
  EXPECT_EQ(jacobi_zero_diagonal_row(coo_to_csr(to_coo<std::int32_t, double>(m))), 0);
}

// cpu against ref: fixed counts and a tolerance, identical iteration counts, results within
// rounding, on every square awkward shape (empty rows keep only their diagonal).
TYPED_TEST(JacobiTypes, CpuMatchesRefOnAwkwardShapes) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  const double tol = is_complex_v<T> || std::is_same_v<real_type_t<T>, float> ? 1e-4 : 1e-11;
  std::uint64_t seed = 5;
  for (const auto& s : test::awkward_shapes()) {
    if (s.rows != s.cols) continue;
    const auto a = dominant<I, T>(s, seed++);
    const auto b = test::random_vector<T>(a.rows, seed++);
    for (const JacobiStop stop : {JacobiStop{1, -1, 1}, JacobiStop{17, -1, 5},
                                  JacobiStop{500, tol, 1}, JacobiStop{500, tol, 7}}) {
      JacobiResult want_r, got_r;
      std::vector<T> want(static_cast<std::size_t>(a.rows), test::poison<T>());
      want_r = jacobi_ref(a, b.data(), want.data(), stop);
      for (const auto& impl : jacobi_impls<I, T>()) {
        if (!test::runnable(impl.device)) continue;  // CUDA ones: covered where a GPU exists
        const auto x = run_impl(impl, a, b, stop, got_r);
        const std::string what =
            impl.name + " on " + s.name + " max_iter " + std::to_string(stop.max_iter);
        EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
        EXPECT_EQ(got_r.converged, want_r.converged) << what;
        // The change is a difference of nearby values: its rounding is that of x, not of the norm.
        double scale = 1;
        for (const auto& w : want) scale = std::max(scale, static_cast<double>(std::abs(w)));
        EXPECT_NEAR(got_r.norm, want_r.norm,
                    1e-6 * want_r.norm + 8 * test::tolerance<T>(a.cols) * scale)
            << what;
        test::expect_close(x, want, test::tolerance<T>(a.cols) * 4, what);
      }
      if (stop.tol >= 0 && a.rows > 0) {
        EXPECT_TRUE(want_r.converged) << s.name;
        EXPECT_EQ(want_r.iterations % stop.check_every, 0) << s.name;
      }
    }
  }
}

// A dominant system converges to its solution: b = A x_true, ||x - x_true|| small.
TYPED_TEST(JacobiTypes, ConvergesToTheSolution) {
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  const bool single = std::is_same_v<real_type_t<T>, float>;
  const auto a = dominant<I, T>({"t", 300, 300, 0.03}, 77);
  const auto x_true = test::random_vector<T>(300, 78);
  std::vector<T> b(300, T{});
  for (std::int64_t i = 0; i < 300; ++i)
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) b[i] += a.val[k] * x_true[a.idx[k]];
  for (const auto& impl : jacobi_impls<I, T>()) {
    if (!test::runnable(impl.device)) continue;
    JacobiResult r;
    const auto x = run_impl(impl, a, b, JacobiStop{2000, single ? 1e-5 : 1e-13, 1}, r);
    EXPECT_TRUE(r.converged) << impl.name;
    test::expect_close(x, x_true, single ? 1e-4 : 1e-11, impl.name);
  }
}

// Systems from mmgen diagdom (through the generator library) solved to a small residual.
TEST(Jacobi, SolvesMmgenDiagdomSystems) {
  for (const std::int64_t n : {1, 31, 33, 1000}) {
    GenOptions g;
    g.kind = "diagdom";
    g.n = n;
    g.nnz_per_row = 6;
    g.seed = static_cast<std::uint64_t>(n);
    const MtxMatrix m = generate(g);
    const RhsResult rhs = make_rhs(m, "random", 3, -1, 1);
    const auto a = coo_to_csr(to_coo<std::int32_t, double>(m));
    ASSERT_EQ(jacobi_zero_diagonal_row(a), -1);
    const auto b = to_dense<double>(rhs.b).data;
    for (const auto& impl : jacobi_impls<std::int32_t, double>()) {
      if (!test::runnable(impl.device)) continue;
      JacobiResult r;
      const auto x = run_impl(impl, a, b, JacobiStop{5000, 1e-14, 1}, r);
      ASSERT_TRUE(r.converged) << impl.name << " n=" << n;
      Dense<double> xd(n, 1);
      xd.data = x;
      const auto res = check::residual(m, to_mtx(xd), rhs.b, 1e-12);
      EXPECT_TRUE(res.pass) << impl.name << " n=" << n << ": residual " << res.relative_residual;
    }
  }
}

// The square corpus matrices with a full diagonal: a few iterations, cpu against ref.
TEST(Jacobi, EveryImplOnTheCorpus) {
  int tried = 0;
  for (const auto& f : test::corpus_files()) {
    const MtxMatrix m = read_mtx(f);
    if (!m.header.is_square()) continue;
    using T = std::complex<double>;
    const auto a = coo_to_csr(to_coo<std::int32_t, T>(m));
    if (jacobi_zero_diagonal_row(a) >= 0) continue;
    ++tried;
    const auto b = test::random_vector<T>(a.rows, 11);
    std::vector<T> want(static_cast<std::size_t>(a.rows));
    const JacobiStop stop{4, -1, 1};
    const auto wr = jacobi_ref(a, b.data(), want.data(), stop);
    for (const auto& impl : jacobi_impls<std::int32_t, T>()) {
      if (!test::runnable(impl.device)) continue;
      JacobiResult r;
      const auto x = run_impl(impl, a, b, stop, r);
      EXPECT_EQ(r.iterations, wr.iterations);
      // Non-dominant matrices grow fast, and the corpus holds inf and nan on purpose.
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(std::abs(want[i]))) continue;
        ASSERT_LE(std::abs(x[i] - want[i]), 1e-9 * (1 + std::abs(want[i])))
            << impl.name << " on " << f << " " << i;
      }
    }
  }
  EXPECT_GT(tried, 3);
}

// The 2D heated room as an explicit system A x = b over the interior points (4 on the
// diagonal, -1 to interior neighbours, walls and h^2 f moved to b) gives, by the system
// Jacobi, the stencil's interior after the same number of iterations.
TEST(Stencil, MatrixFormAgreesWithStencil) {
  for (const std::int64_t n : {4, 31, 33}) {
    const HeatedRoom room = heated_room(2, n);
    std::vector<double> walls(static_cast<std::size_t>(room.points()));
    heated_room_init(room, walls.data());
    const std::int64_t m = n - 2;
    Coo<std::int32_t, double> c;
    c.rows = c.cols = m * m;
    std::vector<double> b(static_cast<std::size_t>(m * m), 0.0);
    for (std::int64_t j = 1; j <= m; ++j)
      for (std::int64_t i = 1; i <= m; ++i) {
        const auto row = static_cast<std::int32_t>((j - 1) * m + (i - 1));
        c.row.push_back(row);
        c.col.push_back(row);
        c.val.push_back(4.0);
        b[row] = room.rx.contains(i) && room.ry.contains(j) ? room.h2f : 0.0;
        const std::int64_t di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
        for (int q = 0; q < 4; ++q) {
          const std::int64_t ii = i + di[q], jj = j + dj[q];
          if (ii < 1 || ii > m || jj < 1 || jj > m) {
            b[row] += walls[jj * n + ii];
          } else {
            c.row.push_back(row);
            c.col.push_back(static_cast<std::int32_t>((jj - 1) * m + (ii - 1)));
            c.val.push_back(-1.0);
          }
        }
      }
    const auto a = coo_to_csr(c);
    for (const JacobiStop stop : {JacobiStop{25, -1, 1}, JacobiStop{20000, 1e-4, 10}}) {
      JacobiResult rs;
      const auto grid =
          test::run_stencil(test::stencil_impl<double>("ref-stencil"), 2, n, stop, rs);
      std::vector<double> interior;
      for (std::int64_t j = 1; j <= m; ++j)
        for (std::int64_t i = 1; i <= m; ++i) interior.push_back(grid[j * n + i]);
      for (const auto& impl : jacobi_impls<std::int32_t, double>()) {
        if (!test::runnable(impl.device)) continue;
        JacobiResult r;
        const auto x = run_impl(impl, a, b, stop, r);
        EXPECT_EQ(r.iterations, rs.iterations) << impl.name << " N=" << n;
        // The change is a difference of values near 20: rounded as they are.
        EXPECT_NEAR(r.norm, rs.norm, 1e-9 * rs.norm + 20 * 1e-14 * static_cast<double>(m))
            << impl.name << " N=" << n;
        test::expect_close(x, interior, 1e-13, impl.name + " N=" + std::to_string(n));
      }
      if (stop.tol >= 0) {
        EXPECT_TRUE(rs.converged) << n;
      }
    }
  }
}

// ---- the CUDA implementations (skipped, with the reason, where no GPU exists) ----------------

// Every CUDA system implementation against ref on the square awkward shapes, plus rows long
// enough for a full warp a row: fixed counts and tolerances (reached at odd and even checks,
// the stopping change decided while the next iteration runs), identical iteration counts,
// poisoned outputs, a timed run after a plain one (each starts again from x_0 = 0).
TYPED_TEST(JacobiTypes, CudaMatchesRefOnAwkwardShapes) {
  MM_REQUIRE_GPU();
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  const double tol = is_complex_v<T> || std::is_same_v<real_type_t<T>, float> ? 1e-4 : 1e-11;
  auto shapes = test::awkward_shapes();
  shapes.push_back({"wide-rows", 600, 600, 0.1});  // ~60 a row: 32 lanes a row
  shapes.push_back({"2000x2000", 2000, 2000, 0.004});
  std::uint64_t seed = 300;
  int ran = 0;
  for (const auto& s : shapes) {
    if (s.rows != s.cols) continue;
    const auto a = dominant<I, T>(s, seed++);
    const auto b = test::random_vector<T>(a.rows, seed++);
    for (const JacobiStop stop :
         {JacobiStop{1, -1, 1}, JacobiStop{2, -1, 1}, JacobiStop{17, -1, 5},
          JacobiStop{500, tol, 1}, JacobiStop{500, tol, 7}, JacobiStop{500, tol, 2}}) {
      std::vector<T> want(static_cast<std::size_t>(a.rows), test::poison<T>());
      const JacobiResult want_r = jacobi_ref(a, b.data(), want.data(), stop);
      double scale = 1;
      for (const auto& w : want) scale = std::max(scale, static_cast<double>(std::abs(w)));
      for (const auto& impl : jacobi_impls<I, T>()) {
        if (impl.device != Device::cuda) continue;
        std::vector<T> x(static_cast<std::size_t>(a.rows), test::poison<T>());
        JacobiResult got_r;
        JacobiProblem<I, T> p{&a, b.data(), x.data(), stop, &got_r};
        auto r = impl.make(p);
        r->upload();
        r->run();
        r->timed_run();
        r->download();
        const std::string what = impl.name + " on " + s.name + " max_iter " +
                                 std::to_string(stop.max_iter) + " check " +
                                 std::to_string(stop.check_every);
        EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
        EXPECT_EQ(got_r.converged, want_r.converged) << what;
        EXPECT_NEAR(got_r.norm, want_r.norm,
                    1e-6 * want_r.norm + 8 * test::tolerance<T>(a.cols) * scale)
            << what;
        test::expect_close(x, want, test::tolerance<T>(a.cols) * 4, what);
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 0) << "no CUDA system implementation";
}

// The CUDA system runs as one graph (launch=graph, and the code's choice without a tolerance)
// against their sweeps launched one by one (launch=stream): x, the change and the iterations
// bit for bit over a plain run and two timed ones (one capture, three replays), on the awkward
// shapes (the empty one: only the change's sums) and counts ending on a check or not; a run with
// a tolerance records stream whatever the key.
TYPED_TEST(JacobiTypes, CudaGraphRunsAreTheStreamsBitForBit) {
  MM_REQUIRE_GPU();
  using I = typename TypeParam::first_type;
  using T = typename TypeParam::second_type;
  const auto run = [](const Impl<JacobiMake<I, T>>& impl, const Csr<I, T>& a,
                      const std::vector<T>& b, const JacobiStop& stop, int launch,
                      JacobiResult& res, nlohmann::json& used) {
    std::vector<T> x(static_cast<std::size_t>(a.rows), test::poison<T>());
    JacobiTuning t;
    t.launch = launch;
    JacobiProblem<I, T> p{&a, b.data(), x.data(), stop, &res, t};
    auto r = impl.make(p);
    const Measured m = measure(*r, 1, 2);
    used = m.tuning;
    r->download();
    return x;
  };
  std::uint64_t seed = 900;
  int ran = 0;
  for (const auto& s : test::awkward_shapes()) {
    if (s.rows != s.cols) continue;
    const auto a = dominant<I, T>(s, seed++);
    const auto b = test::random_vector<T>(a.rows, seed++);
    for (const JacobiStop stop : {JacobiStop{1, -1, 1}, JacobiStop{17, -1, 5},
                                  JacobiStop{20, -1, 4}, JacobiStop{500, 1e-3, 3}}) {
      for (const auto& impl : jacobi_impls<I, T>()) {
        if (impl.device != Device::cuda) continue;
        JacobiResult want_r;
        nlohmann::json want_used;
        const auto want = run(impl, a, b, stop, 1, want_r, want_used);
        EXPECT_EQ(want_used, (nlohmann::json{{"launch", "stream"}}));
        for (const int launch : {2, 0}) {
          JacobiResult got_r;
          nlohmann::json used;
          const auto got = run(impl, a, b, stop, launch, got_r, used);
          const std::string what = impl.name + " on " + s.name + " max_iter " +
                                   std::to_string(stop.max_iter) + " launch " +
                                   std::to_string(launch) + " used " + used.dump();
          EXPECT_EQ(used, (nlohmann::json{{"launch", stop.tol < 0 ? "graph" : "stream"}})) << what;
          EXPECT_EQ(got_r.iterations, want_r.iterations) << what;
          EXPECT_EQ(got_r.converged, want_r.converged) << what;
          EXPECT_EQ(got_r.norm, want_r.norm) << what;
          test::expect_same_bits(got, want, what);
          ++ran;
        }
      }
    }
  }
  EXPECT_GT(ran, 0) << "no CUDA system implementation";
}

}  // namespace
}  // namespace mm
