// Weak scaling of the distributed SpMV and of one CG iteration on CPU ranks, against the
// memory-bandwidth bound of the same ranks measured in the same run.
//
//   mpirun -np P dist_bench [--n N] [--repeat R] [--copy-mb M]   (one JSON line, rank 0)
//
// Each rank owns N^3 rows (fixed, whatever P): z-slabs of the 7-point Laplacian on an
// N x N x (N P) grid, so a rank exchanges one N x N plane with each neighbour. Double values,
// 32-bit indices, one OpenMP thread a rank unless OMP_NUM_THREADS says otherwise.
//
// Bytes a rank moves (docs/scaling.md's model):
//   spmv:         nnz*(8+4) + (rows+1)*4 + (rows + halo)*8 (x and the halo) + rows*8 (y)
//   cg iteration: spmv + 128 B a row: p'q 16, x += a p 24, r -= a q 24, z = D^-1 r 24,
//                 r'r with r'z (one pass) 16, p = z + b p 24
// Copy bandwidth of P ranks together: every rank memcpy's M MiB at once (after a barrier), the
// slowest rank's time: BW(P) = P * 2M / t (bytes read plus written).
// The bound: T_bound(P) = sum of the ranks' bytes / BW(P). The script (dist_scaling.sh)
// turns runs at P = 1 and 2 into the weak-scaling efficiency T(1)/T(P) and its bound
// T_bound(1)/T_bound(P).
//
// SpMV: DistSpmv::apply, each run started by a barrier and timed as the slowest rank's; the
// median of R runs after 2 warm-ups. CG: the one-process driver over DistKrylovOps with
// Jacobi, run for K1 = 2 and K2 = 2 + 10 iterations (a tolerance never met); one iteration =
// (t(K2) - t(K1)) / 10 (the set-up and final residual cancel), medians of R runs.
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "bench_common.hpp"
#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "dist/dist_krylov.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/partition.hpp"
#include "solve.hpp"

namespace {

using namespace mm;
using namespace mm::dist;
namespace po = boost::program_options;

using I = std::int32_t;

// Median of runs each started together and timed as the slowest rank's.
double median_slowest(const Comm& comm, int warmup, int repeat, const std::function<void()>& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    comm.barrier();
    Stopwatch w;
    f();
    t.push_back(comm.allreduce(w.seconds(), Op::max));
  }
  return summarize(t).median;
}

// Copy bandwidth of every rank copying BYTES at once (read + written, all ranks), with
// THREADS threads a rank.
double copy_together(const Comm& comm, std::size_t bytes, int threads, int repeat) {
  std::vector<char> a(bytes, 1), b(bytes, 0);
  const double t = median_slowest(comm, 1, repeat, [&] {
#pragma omp parallel num_threads(threads)
    {
      const std::size_t p = static_cast<std::size_t>(omp_get_thread_num()),
                        q = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t lo = bytes * p / q, hi = bytes * (p + 1) / q;
      std::memcpy(b.data() + lo, a.data() + lo, hi - lo);
    }
  });
  return comm.size() * 2.0 * static_cast<double>(bytes) / t * 1e-9;
}

// This rank's slab of the 7-point Laplacian (6 / -1) on an n x n x (n P) grid.
DistCsr<I, double> slab(const Comm& comm, std::int64_t n) {
  const std::int64_t plane = n * n, rows = plane * n, nz = n * comm.size();
  const std::int64_t total = rows * comm.size(), first = rows * comm.rank();
  const Partition part = uniform_partition(total, comm.size());
  Triplets<double> t;
  t.row.reserve(static_cast<std::size_t>(7 * rows));
  t.col.reserve(t.row.capacity());
  t.val.reserve(t.row.capacity());
  for (std::int64_t g = first; g < first + rows; ++g) {
    const std::int64_t x = g % n, y = (g / n) % n, z = g / plane;
    if (z > 0) t.push(g, g - plane, -1);
    if (y > 0) t.push(g, g - n, -1);
    if (x > 0) t.push(g, g - 1, -1);
    t.push(g, g, 6);
    if (x + 1 < n) t.push(g, g + 1, -1);
    if (y + 1 < n) t.push(g, g + n, -1);
    if (z + 1 < nz) t.push(g, g + plane, -1);
  }
  return build_dist_csr<I, double>(comm, total, total, part, part, t);
}

}  // namespace

int main(int argc, char** argv) {
  Session session(argc, argv);
  const Comm& comm = world();
  po::options_description o("dist_bench options");
  o.add_options()("help,h", "this help")("n", po::value<std::int64_t>()->default_value(216),
                                         "grid side: N^3 rows a rank")(
      "repeat", po::value<int>()->default_value(5), "timed runs (median)")(
      "copy-mb", po::value<std::int64_t>()->default_value(1024),
      "MiB each rank copies for the bandwidth (beyond the last-level cache)");
  po::variables_map vm;
  if (!bench::parse_options(argc, argv, o, vm, "dist_bench")) return 2;
  if (vm.count("help")) {
    if (comm.root()) std::cout << o;
    return 0;
  }
  const std::int64_t n = vm["n"].as<std::int64_t>();
  const int repeat = vm["repeat"].as<int>(), threads = omp_get_max_threads();
  const std::size_t copy_bytes = static_cast<std::size_t>(vm["copy-mb"].as<std::int64_t>()) << 20;

  double load[1] = {0};
  if (getloadavg(load, 1) != 1) load[0] = -1;

  // 1. The bandwidth P ranks reach together.
  const double copy = copy_together(comm, copy_bytes, threads, repeat);

  // 2. The matrix, this rank's bytes by the formulas.
  const DistCsr<I, double> a = slab(comm, n);
  const double rows = static_cast<double>(a.local_rows()),
               halo = static_cast<double>(a.plan.halo_size());
  const double spmv_bytes =
      static_cast<double>(a.local_nnz()) * 12 + (rows + 1) * 4 + (rows + halo) * 8 + rows * 8;
  const double cg_bytes = spmv_bytes + 128 * rows;

  // 3. SpMV.
  std::vector<double> x(static_cast<std::size_t>(a.local_rows()), 1.0), y(x.size());
  DistSpmv<I, double> op(comm, a);
  double exchange = 0;
  const double spmv_s = median_slowest(comm, 2, repeat, [&] {
    op.apply(x.data(), y.data());
    exchange = op.exchange_seconds();
  });

  // 4. One CG iteration (Jacobi): the difference of two solves of different lengths.
  DistKrylovOps<I, double> ops(comm, a, LocalKernel::cpu_csr, true);
  IterOptions opt;
  opt.tol = 1e-300;
  opt.jacobi = true;
  const int k1 = 2, k2 = k1 + 10;
  double allreduce[2] = {0, 0};
  std::int64_t reductions[2] = {0, 0};
  auto cg = [&](int k) {
    opt.max_iter = k;
    const int slot = k == k1 ? 0 : 1;
    return median_slowest(comm, 1, repeat, [&] {
      SolveReport rep;
      ops.reset();
      krylov_solve(SolveMethod::cg, ops, x.data(), y.data(), opt, rep);
      allreduce[slot] = comm.allreduce(ops.allreduce_seconds(), Op::max);
      reductions[slot] = ops.reductions();
    });
  };
  const double t1 = cg(k1), t2 = cg(k2);
  const double cg_s = (t2 - t1) / (k2 - k1);

  if (comm.root())
    bench::emit({{"bench", "dist_bench"},
                 {"device", cpu_model()},
                 {"ranks", comm.size()},
                 {"threads_per_rank", threads},
                 {"rows_per_rank", a.local_rows()},
                 {"nnz_per_rank", a.local_nnz()},
                 {"halo", a.plan.halo_size()},
                 {"copy_gbps", copy},
                 {"load_average", load[0]},
                 {"spmv_bytes_per_rank", spmv_bytes},
                 {"cg_bytes_per_rank", cg_bytes},
                 {"spmv_s", spmv_s},
                 {"spmv_exchange_s", exchange},
                 {"cg_iteration_s", cg_s},
                 {"cg_allreduce_per_iteration_s", (allreduce[1] - allreduce[0]) / (k2 - k1)},
                 {"cg_reductions_per_iteration",
                  static_cast<double>(reductions[1] - reductions[0]) / (k2 - k1)}});
  return 0;
}
