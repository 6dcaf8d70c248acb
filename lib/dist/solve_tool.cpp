// mmsolve under mpirun: read across the ranks, partition, halo plan, Krylov solve, output.
#include "dist/solve_tool.hpp"

#include <omp.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/dist_csr.hpp"
#include "dist/dist_krylov.hpp"
#include "dist/gpu.hpp"
#include "dist/options.hpp"
#include "dist/read.hpp"
#include "dist/report.hpp"
#include "dist/vector.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"
#include "mm/tool_io.hpp"

namespace mm::dist {

namespace {

// mmsolve's implementation names for the Krylov methods: cpu (OpenMP: the ranks' cpu-csr
// product and parallel vector loops) and ref (serial loops); on GPU ranks cuda (the
// cuda-adaptive product, vectors and reductions on the device).
LocalKernel solve_kernel(const std::string& impl, bool gpu) {
  if (gpu) {
    if (impl.empty() || impl == "cuda") return LocalKernel::cuda_adaptive;
    throw UsageError("--impl " + impl +
                     " does not run on GPU ranks; under mpirun with --device cuda the ranks run "
                     "cuda");
  }
  if (impl.empty() || impl == "cpu") return LocalKernel::cpu_csr;
  if (impl == "ref") return LocalKernel::ref;
  throw UsageError("--impl " + impl +
                   " does not run distributed (yet); under mpirun the ranks run cpu or ref");
}

std::string impl_name(LocalKernel k) {
  return on_gpu(k) ? "cuda" : k == LocalKernel::ref ? "ref" : "cpu";
}

// --method under mpirun: the Krylov methods only (a direct method needs the whole matrix).
std::optional<SolveMethod> parse_dist_method(const std::string& name) {
  if (name == "auto") return std::nullopt;
  const SolveMethod m = parse_method(name);
  if (!is_iterative(m))
    throw UsageError("--method " + name +
                     " does not run distributed: under mpirun use cg, bicgstab, gmres or auto");
  return m;
}

// auto: cg for a file stored symmetric (hermitian) whose diagonal is real and positive on
// every rank, else gmres. (One process also tests the values of a general file for symmetry
// and picks a direct method for small or dense systems; across ranks the header decides.)
template <class I, class T>
std::pair<SolveMethod, std::string> choose_method(const Comm& comm, const MtxHeader& h,
                                                  const DistCsr<I, T>& a) {
  int positive = 1;
  const Csr<I, T>& d = a.diag;
  for (std::int64_t i = 0; i < d.rows && positive; ++i) {
    T s{};
    for (auto k = d.ptr[i]; k < d.ptr[i + 1]; ++k)
      if (d.idx[k] == i) s += d.val[k];
    positive = std::real(s) > 0 && std::imag(std::complex<double>(s)) == 0;
  }
  positive = comm.allreduce(positive, Op::min);
  if (h.symmetry != Symmetry::symmetric && h.symmetry != Symmetry::hermitian)
    return {SolveMethod::gmres, "not stored symmetric or hermitian"};
  if (!positive) return {SolveMethod::gmres, "stored symmetric, but a diagonal entry is not > 0"};
  return {SolveMethod::cg, "stored symmetric, positive diagonal"};
}

// What a solve of every column measured, the same on every rank (the convergence test reads
// reduced values only), and this rank's time in reductions and halo exchanges.
struct SolveRun {
  SolveReport report;
  double seconds = 0, allreduce = 0, exchange = 0;
  std::int64_t reductions = 0;
};

// Column C of the row-major n x k array M into V (n values), and back.
template <class T>
void column_to(const std::vector<T>& m, std::int64_t k, std::int64_t c, std::vector<T>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = m[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(c)];
}
template <class T>
void column_from(const std::vector<T>& v, std::int64_t k, std::int64_t c, std::vector<T>& m) {
  for (std::size_t i = 0; i < v.size(); ++i)
    m[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(c)] = v[i];
}

// Each column solved in turn, b and x in the ops' memory (GPU ranks: device vectors).
template <class I, class T>
SolveRun solve_columns(const Comm& comm, DistKrylovOps<I, T>& ops, SolveMethod method,
                       const IterOptions& opt, const std::vector<T>& b, std::vector<T>& x,
                       std::int64_t k) {
  const std::int64_t n = ops.size();
  std::vector<T> bc(static_cast<std::size_t>(n)), xc(bc.size());
  const auto bv = ops.vector(n), xv = ops.vector(n);
  SolveRun r;
  comm.barrier();
  ops.reset();
  Stopwatch w;
  for (std::int64_t c = 0; c < k; ++c) {
    column_to(b, k, c, bc);
    bv->load(bc.data());
    krylov_solve(method, ops, bv->data(), xv->data(), opt, r.report);
    xv->store(xc.data());
    column_from(xc, k, c, x);
  }
  r.seconds = w.seconds();
  r.allreduce = ops.allreduce_seconds();
  r.exchange = ops.exchange_seconds();
  r.reductions = ops.reductions();
  return r;
}

// max over the columns of ||b - Ax|| / ||b|| (||b - Ax|| for b = 0; a NaN as infinity), by
// the distributed product, as check::solve_residual computes it in one process.
template <class I, class T>
double worst_residual(DistKrylovOps<I, T>& ops, const std::vector<T>& b, const std::vector<T>& x,
                      std::int64_t k) {
  const std::int64_t n = ops.size();
  std::vector<T> bc(static_cast<std::size_t>(n)), xc(bc.size());
  const auto bv = ops.vector(n), xv = ops.vector(n), tv = ops.vector(n);
  double worst = 0;
  for (std::int64_t c = 0; c < k; ++c) {
    column_to(b, k, c, bc);
    column_to(x, k, c, xc);
    bv->load(bc.data());
    xv->load(xc.data());
    ops.matvec(xv->data(), tv->data());
    ops.axpby(T(1), bv->data(), T(-1), tv->data());
    const T* xs[2] = {tv->data(), bv->data()};
    T d[2];
    ops.dots(2, xs, xs, d);
    const double res = std::sqrt(std::max(0.0, static_cast<double>(std::real(d[0])))),
                 bn = std::sqrt(std::max(0.0, static_cast<double>(std::real(d[1]))));
    const double rel = bn > 0 ? res / bn : res;
    worst = std::isnan(rel) || std::isnan(static_cast<double>(std::real(d[0])))
                ? INFINITY
                : std::max(worst, rel);
  }
  return worst;
}

}  // namespace

int solve_tool(const Cli& cli, IterOptions opt) {
  const Comm& comm = world();
  const CommonOptions& c = cli.common();
  const DistOptions o = agree(comm, [&] { return parse_options(cli, solve_kernel); });
  const std::optional<SolveMethod> method_opt = parse_dist_method(cli.get<std::string>("method"));
  // Classical Gram-Schmidt twice: two reductions a GMRES step instead of j + 2.
  opt.orth = Orthogonalization::cgs2;
  const auto files = cli.positionals("files");
  // GPU ranks: each rank bound to its GPU before any other CUDA work, the transport set up.
  const std::shared_ptr<GpuRanks> gpu = o.gpu ? open_gpu_ranks(comm, o.comm) : nullptr;
  say_ranks(comm, c, "mmsolve", "", gpu.get());
  if (gpu && c.verbose) print_ranked(comm, "mmsolve: " + gpu->describe());

  TimingRecord rec("mmsolve");
  rec.precision(c.precision);
  // 1. Read: A across the ranks, b by rank 0 (its header everywhere).
  // The rank's plan besides its share of A: the method's vectors of its rows (GMRES: restart +
  // 6 of them, the others 8) for each column of b; on rank 0 b read whole and x gathered.
  const int restart = cli.get<int>("restart");
  DistRead a =
      read_tool_matrix(comm, files[0], c, "mmsolve", [&](const MtxHeader& h, MemoryPlan& p) {
        const double ranks = comm.size(), v = h.field == Field::complex ? 16 : 8;
        const double rows = static_cast<double>(h.rows);
        const double vectors = cli.get<std::string>("method") == "gmres" ? restart + 6.0 : 8.0;
        p.add("the method's vectors of this rank's rows", vectors * rows / ranks * v);
        if (comm.root()) p.add("b as read and x gathered on rank 0", 3 * rows * v);
      });
  const Input bin = load_on_root(comm, files[1], c, "mmsolve");
  const double read_s = comm.allreduce(a.seconds + bin.seconds, Op::max);
  const MtxHeader h = a.header, hb = bin.m.header;
  if (c.verbose && comm.root())
    std::cerr << "mmsolve: read " << files[0] << ": " << h.banner().substr(15) << ", " << h.rows
              << " x " << h.cols << ", " << h.nnz << " stored entries, " << read_s << " s\n";
  rec.input(files[0], h.rows, h.cols, h.nnz, a.bytes);
  rec.input(bin.path, hb.rows, hb.cols, hb.nnz, bin.bytes);
  rec.phase("read", read_s);
  // Every rank holds both headers: every rank refuses alike, one message is printed.
  check_system_shapes(files[0], h, bin.path, hb);
  const bool complex = h.field == Field::complex || hb.field == Field::complex;

  return with_value_type(c.precision, complex, [&]<class T>() {
    return with_index_type(h.rows, h.cols, h.nnz * 2, [&]<class I>() -> int {
      // 2. Partition (--partition rows|metis), entries routed to their owners, halo plan.
      Stopwatch w;
      Triplets<T> t = to_triplets<T>(a.part);
      a.part = MtxMatrix{};
      const RowOrder order = partition_rows(comm, h, t, o.partition, c, "mmsolve");
      const Partition& rows = order.rows;
      t = route_to_owners(comm, rows, std::move(t));
      const DistCsr<I, T> m = build_dist_csr<I, T>(comm, h.rows, h.cols, rows, rows, t);
      t = Triplets<T>{};
      const double partition_s = comm.allreduce(w.seconds(), Op::max);

      // b: this rank's rows, all k columns (row-major, as the whole n x k array).
      const std::int64_t k = hb.cols;
      std::vector<T> b;
      {
        std::vector<T> all;
        agree(comm, [&] {
          if (comm.root()) all = to_dense<T>(bin.m).data;
        });
        b = scatter_rows(comm, all, k, order);
      }
      if (c.verbose) print_ranked(comm, describe_rank("mmsolve", m, a));

      SolveMethod method;
      if (method_opt) {
        method = *method_opt;
      } else {
        const auto [chosen, why] = choose_method(comm, h, m);
        method = chosen;
        if (c.verbose && comm.root())
          std::cerr << "mmsolve: --method auto chose " << method_name(method) << ": " << why
                    << "\n";
      }
      // A zero diagonal entry under Jacobi: exit 5 on every rank, the lowest row named.
      const auto ops = agree(comm, [&] {
        return std::make_unique<DistKrylovOps<I, T>>(comm, m, o.kernel, opt.jacobi, gpu.get());
      });

      // 3. The solve, timed: every run starts together from x = 0, each counts as its
      //    slowest rank; the reductions' and the halo's share likewise.
      std::vector<T> x(b.size());
      SolveRun run;
      for (int i = 0; i < c.warmup; ++i) run = solve_columns(comm, *ops, method, opt, b, x, k);
      std::vector<double> times, reduce_s, exchange_s;
      for (int i = 0; i < c.repeat; ++i) {
        run = solve_columns(comm, *ops, method, opt, b, x, k);
        times.push_back(run.seconds);
        reduce_s.push_back(run.allreduce);
        exchange_s.push_back(run.exchange);
      }
      const PhaseStats compute = slowest(comm, times), reduce = slowest(comm, reduce_s),
                       exch = slowest(comm, exchange_s);
      const SolveReport& report = run.report;
      const double worst = worst_residual(*ops, b, x, k);

      // The whole system's work, as the one-process tool counts it; the balance of the ranks.
      const double flops = comm.allreduce(report.flops, Op::sum);
      const std::int64_t nnz = comm.allreduce(m.local_nnz(), Op::sum);
      const std::int64_t max_nnz = comm.allreduce(m.local_nnz(), Op::max);
      const std::int64_t halo = comm.allreduce(m.plan.halo_size(), Op::sum);
      const double s = sizeof(T), ib = sizeof(I), n = static_cast<double>(h.rows);
      const double spmv_bytes = static_cast<double>(nnz) * (s + ib) + (n + 1) * ib + 2 * n * s;
      const double spmvs = method == SolveMethod::bicgstab ? 2.0 : 1.0;
      const double bytes =
          spmv_bytes * std::max<double>(1, spmvs * static_cast<double>(report.iterations) *
                                               static_cast<double>(k)) +
          2.0 * n * static_cast<double>(k) * s;
      const std::string name = method_name(method), impl = impl_name(o.kernel);
      if (comm.root()) {
        if (c.verbose)
          std::cerr << "mmsolve: " << name << " on " << comm.size() << " ranks: median "
                    << compute.median << " s over " << compute.repeats << " runs, "
                    << run.reductions << " reductions (" << reduce.median << " s in allreduce), "
                    << "halo exchange " << exch.median << " s outside the overlap\n";
        std::cerr << "mmsolve: " << name << " (" << impl << ", " << comm.size()
                  << (comm.size() == 1 ? " rank" : " ranks") << "): " << report.iterations
                  << " iterations, relative residual ||b-Ax||/||b|| " << worst
                  << (k > 1 ? " (worst column)" : "") << "\n";
      }

      // 4. Write: x gathered to rank 0, or a file a rank; marked when not converged.
      const bool converged = report.converged;
      std::vector<std::string> comments;
      if (!converged) {
        std::ostringstream note;
        note << " mmsolve: not converged after " << report.iterations
             << " iterations, relative residual " << worst
             << (report.note.empty() ? "" : ", " + report.note);
        comments.push_back(note.str());
        if (comm.root())
          std::cerr << note.str().substr(1) << "\n";  // the comment without its leading space
      }
      Dense<T> xl;
      xl.rows = m.local_rows();
      xl.cols = k;
      xl.data = std::move(x);
      const double write_s =
          comm.allreduce(o.per_rank ? write_per_rank(comm, xl, order, c, comments)
                                    : write_gathered(comm, xl, order, c, comments),
                         Op::max);

      rec.impl(name + "/" + impl).work(flops, bytes);
      if (gpu) rec.device(gpu->device_name());
      rec.phase("partition", partition_s).phase("exchange", exch.median);
      rec.phase("compute", compute).phase("allreduce", reduce.median).phase("write", write_s);
      rec.extra("ranks", comm.size()).extra("transport", transport(comm, gpu.get()));
      record_order(rec, order);
      rec.extra(
          "load_imbalance",
          nnz > 0 ? static_cast<double>(max_nnz) * comm.size() / static_cast<double>(nnz) : 1.0);
      rec.extra("halo_values", halo).extra("reductions", run.reductions);
      rec.extra("iterations", report.iterations).extra("converged", converged);
      rec.extra("relative_residual", worst);
      if (method == SolveMethod::gmres) rec.extra("orthogonalization", "cgs2");
      agree(comm, [&] {
        if (comm.root()) rec.emit(c.timing);
      });
      return converged ? 0 : 1;
    });
  });
}

}  // namespace mm::dist
