// The heated room in slabs (mmjacobi under mpirun): the split for any rank count, the plane
// exchange, and the distributed iteration against the one-process cpu-stencil bit for bit
// (grid, iteration count and norm), on every rank count CTest runs them with.

#include "dist/slab.hpp"
#include "dist/sweep_loop.hpp"
#include "dist_test.hpp"

namespace mm::test {
namespace {

using dist::Partition;
using dist::SlabSplit;

// Every rank's split of an N-a-side grid among RANKS: the planes 1..N-2 in uniform blocks in
// rank order, the neighbours those holding the adjacent planes, the output planes 0..N-1.
TEST(SlabSplit, PlanesNeighboursAndOutputForAnyRankCount) {
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 4, 5, 6, 9, 17})
      for (const int ranks : {1, 2, 3, 4, 7}) {
        const std::string what = std::to_string(dim) + "D N=" + std::to_string(n) + " on " +
                                 std::to_string(ranks) + " ranks";
        std::int64_t next = 1, out_next = 0, most = 0, least = n;
        int holders = 0;
        for (int r = 0; r < ranks; ++r) {
          const SlabSplit s = dist::slab_split(dim, n, ranks, r);
          EXPECT_EQ(s.rank, r);
          EXPECT_EQ(s.plane_size(), dim == 3 ? n * n : n) << what;
          if (!s.empty()) {
            EXPECT_EQ(s.k0, next) << what << " rank " << r;
            next = s.k1;
            ++holders;
            // Neighbours: the previous and next ranks that hold planes (a wall at the ends).
            EXPECT_EQ(s.lower, s.k0 == 1 ? -1 : r - 1) << what << " rank " << r;
            EXPECT_EQ(s.upper, s.k1 == n - 1 ? -1 : r + 1) << what << " rank " << r;
            EXPECT_EQ(s.buffer_size(), (s.planes() + 2) * s.plane_size());
          } else {
            EXPECT_EQ(s.lower, -1);
            EXPECT_EQ(s.upper, -1);
            EXPECT_EQ(s.buffer_size(), 0);
          }
          most = std::max(most, s.planes());
          least = std::min(least, s.planes());
          // The output: contiguous in rank order, inside the rank's buffer (planes k0-1..k1).
          EXPECT_EQ(s.out0, s.out1 > s.out0 ? out_next : s.out0) << what << " rank " << r;
          if (s.out1 > s.out0) {
            EXPECT_FALSE(s.empty()) << what;
            EXPECT_GE(s.out0, s.k0 - 1);
            EXPECT_LE(s.out1, s.k1 + 1);
            out_next = s.out1;
          }
          const Partition rows = s.output_rows();
          EXPECT_EQ(rows.n(), n * s.rows_per_plane());
          EXPECT_EQ(rows.begin(r), s.out0 * s.rows_per_plane());
          EXPECT_EQ(rows.end(r), s.out1 * s.rows_per_plane());
        }
        EXPECT_EQ(next, n - 1) << what;  // every interior plane held once
        EXPECT_EQ(out_next, n) << what;  // every plane written once
        EXPECT_LE(most - least, 1) << what;
        EXPECT_EQ(holders, std::min<std::int64_t>(ranks, n - 2)) << what;
      }
  // By hand: 2 interior planes on 4 ranks: ranks 0 and 1 one each, 2 and 3 none; rank 1
  // writes its plane and the wall plane 3.
  const SlabSplit a = dist::slab_split(3, 4, 4, 1), b = dist::slab_split(3, 4, 4, 3);
  EXPECT_EQ(a.k0, 2);
  EXPECT_EQ(a.k1, 3);
  EXPECT_EQ(a.lower, 0);
  EXPECT_EQ(a.upper, -1);
  EXPECT_EQ(a.out0, 2);
  EXPECT_EQ(a.out1, 4);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.out1 - b.out0, 0);
  EXPECT_EQ(a.output_rows().start, (std::vector<std::int64_t>{0, 8, 16, 16, 16}));
}

// Each rank's planes hold (plane, point) codes: after one exchange the halo planes hold the
// neighbours' codes, walls and the rank's own planes are untouched; twice (reusable).
TEST(SlabHalo, ExchangeFillsTheHaloPlanes) {
  const dist::Comm& c = comm();
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 5, 8, 13}) {
      const SlabSplit s = dist::slab_split(dim, n, c.size(), c.rank());
      const std::int64_t ps = s.plane_size();
      std::vector<double> u(static_cast<std::size_t>(s.buffer_size()), -1.0);
      auto code = [&](std::int64_t plane, std::int64_t i) {
        return static_cast<double>(plane * 100000 + i);
      };
      for (std::int64_t p = s.k0; p < s.k1; ++p)
        for (std::int64_t i = 0; i < ps; ++i) u[(p - s.k0 + 1) * ps + i] = code(p, i);
      dist::SlabHalo<double> halo(c, s);
      for (int pass = 0; pass < 2; ++pass) {
        halo.start(u.data());
        halo.finish();
        if (s.empty()) continue;
        int bad = 0;
        for (std::int64_t p = s.k0 - 1; p <= s.k1; ++p) {
          const bool remote = (p == s.k0 - 1 && s.lower >= 0) || (p == s.k1 && s.upper >= 0);
          const bool own = p >= s.k0 && p < s.k1;
          for (std::int64_t i = 0; i < ps; ++i) {
            const double want = remote || own ? code(p, i) : -1.0;  // a wall plane: untouched
            bad += u[(p - s.k0 + 1) * ps + i] != want;
          }
        }
        EXPECT_EQ(bad, 0) << dim << "D N=" << n << " rank " << c.rank();
        EXPECT_EQ(halo.halo_values(), ((s.lower >= 0) + (s.upper >= 0)) * ps);
      }
    }
}

// The distributed iteration against the one-process cpu-stencil: the grid gathered on rank 0
// equal bit for bit, the same iterations and norm on every rank.
template <class T>
void check_slab_jacobi(int dim, std::int64_t n, const JacobiStop& stop) {
  const dist::Comm& c = comm();
  const std::string what = std::to_string(dim) + "D N=" + std::to_string(n) + " max_iter " +
                           std::to_string(stop.max_iter) + " check " +
                           std::to_string(stop.check_every) + " tol " + std::to_string(stop.tol) +
                           (sizeof(T) == 4 ? " float" : " double");
  const HeatedRoom room = heated_room(dim, n);
  const OneProcessRoom<T> want = one_process_room<T>(room, stop);

  const SlabSplit s = dist::slab_split(dim, n, c.size(), c.rank());
  dist::SlabJacobi<T> jac(c, room, s);
  for (int run = 0; run < 2; ++run) {  // a second run starts again from the starting grid
    const JacobiResult got = jac.run(stop);
    const std::vector<T> mine = jac.output_planes();
    EXPECT_EQ(static_cast<std::int64_t>(mine.size()), (s.out1 - s.out0) * s.plane_size());
    expect_same_room(c, got, mine, want, what);
  }
}

TEST(SlabJacobi, EqualsOneProcessBitForBit) {
  for (const int dim : {2, 3})
    for (const std::int64_t n : {3, 4, 5, 6, 11, 24}) {
      check_slab_jacobi<double>(dim, n, JacobiStop{7, -1, 1});
      check_slab_jacobi<double>(dim, n, JacobiStop{40, -1, 6});
      check_slab_jacobi<float>(dim, n, JacobiStop{9, -1, 4});
    }
}

// Stopping on --tol: the decision taken on the same norm, at a check between others, or at the
// last iteration allowed without reaching it.
TEST(SlabJacobi, StopsAtTheSameIteration) {
  for (const int dim : {2, 3})
    for (const std::int64_t n : {5, 9, 20}) {
      JacobiResult r30;
      const HeatedRoom room = heated_room(dim, n);
      std::vector<double> u(static_cast<std::size_t>(room.points())), v(u.size());
      r30 = stencil_iterate<double>(room, &stencil_sweep_cpu<double>, u.data(), v.data(),
                                    JacobiStop{30, -1, 1});
      for (const JacobiStop stop : {JacobiStop{200, r30.norm, 1}, JacobiStop{200, r30.norm, 7},
                                    JacobiStop{25, r30.norm, 5}, JacobiStop{10000, 1e-9, 13}}) {
        check_slab_jacobi<double>(dim, n, stop);
        check_slab_jacobi<float>(dim, n, stop);
      }
    }
}

// The GPU ranks' loop (lagged_sweep_loop) against jacobi_iterate, on a model of an engine: two
// buffers, iteration K's squared change CHANGE[K] kept in set 0 or 1 of the slots, in turn over
// the checked iterations. The
// same iterations, norm and decision; the current buffer the stopping iteration's; each change
// read after the next iteration is queued (where there is one) and only where it can stop the
// run; never more than one iteration queued past the stop.
TEST(LaggedSweepLoop, StopsAsTheOneProcessLoop) {
  std::vector<double> change(64);
  for (std::size_t k = 0; k < change.size(); ++k) change[k] = 1e4 / static_cast<double>(k * k + 1);
  const double at12 = std::sqrt(change[12]), at30 = std::sqrt(change[30]);
  for (const JacobiStop stop :
       {JacobiStop{1, -1, 1}, JacobiStop{7, -1, 1}, JacobiStop{40, -1, 6}, JacobiStop{1, at12, 1},
        JacobiStop{30, at12, 1}, JacobiStop{30, at12, 5}, JacobiStop{30, at12, 4},
        JacobiStop{30, at30, 1}, JacobiStop{30, at30, 7}, JacobiStop{31, at30, 1},
        JacobiStop{11, 1e-12, 3}, JacobiStop{40, 1e9, 1}, JacobiStop{40, 1e9, 9}}) {
    const std::string what = "max " + std::to_string(stop.max_iter) + " tol " +
                             std::to_string(stop.tol) + " every " +
                             std::to_string(stop.check_every);
    std::int64_t done = 0, checks = 0;
    const JacobiResult want = jacobi_iterate(stop, [&](bool check) {
      ++done;
      checks += check;
      return check ? change[static_cast<std::size_t>(done)] : 0.0;
    });
    std::int64_t queued = 0, current = 0, reads = 0, checked = 0;
    std::int64_t in_set[2] = {0, 0};  // the iteration whose change each set holds
    const JacobiResult got = dist::lagged_sweep_loop(
        stop,
        [&](int set) {
          ++queued;
          current = queued;
          const bool check = jacobi_checks(stop, queued);
          EXPECT_EQ(set, check ? static_cast<int>(checked & 1) : -1) << what;
          checked += check;
          if (set >= 0) in_set[set] = queued;
        },
        [&](int set) {
          ++reads;
          const std::int64_t k = in_set[set];
          EXPECT_TRUE(k == queued - 1 || k == stop.max_iter) << what << " read " << k;
          return change[static_cast<std::size_t>(k)];
        },
        [&] { --current; });
    EXPECT_EQ(got.iterations, want.iterations) << what;
    EXPECT_EQ(got.norm, want.norm) << what;
    EXPECT_EQ(got.converged, want.converged) << what;
    EXPECT_EQ(current, want.iterations) << what;
    EXPECT_LE(queued, want.iterations + 1) << what;
    EXPECT_EQ(reads, stop.tol < 0 ? 1 : checks) << what;
  }
}

}  // namespace
}  // namespace mm::test
