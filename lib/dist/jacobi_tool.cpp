// mmjacobi under mpirun: the heated room split in slabs, the timed sweeps, the grid written.
#include "dist/jacobi_tool.hpp"

#include <omp.h>

#include <iostream>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/options.hpp"
#include "dist/slab.hpp"
#include "dist/vector.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"
#include "mm/tool_io.hpp"
#include "mm/tuning.hpp"

namespace mm::dist {

namespace {

// The one local kernel of a rank's slab (its name in the record, as one process names it).
constexpr const char* kImpl = "cpu-stencil";

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// The one-process tool's outcome line (tools/mmjacobi.cpp's outcome(): keep them in step).
std::string outcome(const JacobiResult& r, const JacobiStop& s) {
  std::string t = std::to_string(r.iterations) +
                  (r.iterations == 1 ? " iteration" : " iterations") +
                  ", ||u_new - u_old||_2 = " + fmt(r.norm);
  if (s.tol < 0) return t + " (fixed count)";
  return t + (r.converged ? " (converged: <= tol " : " (NOT converged: tol ") + fmt(s.tol) +
         (r.converged ? ")" : " not reached in --max-iter " + std::to_string(s.max_iter) + ")");
}

std::string neighbour(int rank, const char* side) {
  return rank < 0 ? std::string("wall ") + side : "rank " + std::to_string(rank) + " " + side;
}

std::string describe(const SlabSplit& s, const HeatedRoom& room, int ranks) {
  std::ostringstream o;
  o << "mmjacobi: rank " << s.rank << "/" << ranks << ": " << s.axis() << " slab, ";
  if (s.empty()) {
    o << "no planes (more ranks than the " << s.n - 2 << " interior planes)";
  } else {
    const std::int64_t m = s.n - 2, points = s.planes() * (room.dim == 3 ? m * m : m);
    o << "planes " << s.k0 << ".." << s.k1 - 1 << " (" << s.planes() << ", " << points
      << " interior points), halo planes " << s.k0 - 1 << " (" << neighbour(s.lower, "below")
      << ") and " << s.k1 << " (" << neighbour(s.upper, "above") << "), "
      << ((s.lower >= 0) + (s.upper >= 0)) * s.plane_size() << " values an exchange";
  }
  if (s.out1 > s.out0)
    o << "; writes planes " << s.out0 << ".." << s.out1 - 1;
  else
    o << "; writes nothing";
  return o.str();
}

// Per-run times of the job: each run the slowest rank's.
PhaseStats slowest(const Comm& comm, std::vector<double> t) {
  comm.allreduce(t.data(), t.size(), Op::max);
  return summarize(std::move(t));
}

// The grid gathered to rank 0 (the one-process tool's array: 3D N^2 x N, 2D N x N) and written
// atomically, or a file a rank; NOTE, when not empty, is the comment line of an unconverged
// result. Returns this rank's seconds.
template <class T>
double write_grid(const Comm& comm, const SlabSplit& s, std::vector<T> mine, bool per_rank,
                  const std::string& note, const CommonOptions& c) {
  Stopwatch w;
  if (c.quiet) return 0;
  const std::int64_t n = s.n;
  if (per_rank) {
    Dense<T> part((s.out1 - s.out0) * s.rows_per_plane(), n);
    part.data = std::move(mine);
    MtxMatrix m = to_mtx(part);
    if (!note.empty()) m.header.comments.push_back(note);
    write_parts(comm, m, s.output_rows(), n, c);
    return w.seconds();
  }
  std::vector<T> all = comm.gatherv(mine.data(), mine.size(), 0);
  agree(comm, [&] {
    if (!comm.root()) return;
    Dense<T> u(n * s.rows_per_plane(), n);
    u.data = std::move(all);
    MtxMatrix m = to_mtx(u);
    if (!note.empty()) m.header.comments.push_back(note);
    save_output(m, c);
  });
  return w.seconds();
}

template <class T>
int run_room(const Comm& comm, const Cli& cli, const JacobiStop& stop, int dim, std::int64_t n,
             bool per_rank) {
  const CommonOptions& c = cli.common();
  TimingRecord rec("mmjacobi");
  rec.precision(c.precision);
  const HeatedRoom room = heated_room(dim, n);

  // 1. Partition: this rank's slab and its two buffers (an allocation that fails anywhere
  //    fails every rank).
  Stopwatch w;
  const SlabSplit split = slab_split(dim, n, comm.size(), comm.rank());
  std::optional<SlabJacobi<T>> jac;
  agree(comm, [&] { jac.emplace(comm, room, split); });
  const double partition_s = comm.allreduce(w.seconds(), Op::max);
  if (c.verbose) print_ranked(comm, describe(split, room, comm.size()));

  // 2. The sweeps, timed: every run starts together from the starting grid, each counts as
  //    its slowest rank.
  JacobiResult res;
  for (int i = 0; i < c.warmup; ++i) res = jac->run(stop);
  std::vector<double> times, exchange, reduce;
  for (int i = 0; i < c.repeat; ++i) {
    comm.barrier();
    Stopwatch t;
    res = jac->run(stop);
    times.push_back(t.seconds());
    exchange.push_back(jac->exchange_seconds());
    reduce.push_back(jac->allreduce_seconds());
  }
  const PhaseStats compute = slowest(comm, times);
  const PhaseStats exch = slowest(comm, exchange);
  const PhaseStats allred = slowest(comm, reduce);

  const double mlups = compute.median > 0
                           ? static_cast<double>(room.interior()) *
                                 static_cast<double>(res.iterations) / compute.median * 1e-6
                           : 0.0;
  const std::string msg = outcome(res, stop);
  const bool failed = stop.tol >= 0 && !res.converged;
  if (comm.root())
    std::cerr << "mmjacobi: poisson" << dim << "d N=" << n << ": " << msg << ", " << fmt(mlups)
              << " MLUP/s (" << kImpl << " on " << comm.size()
              << (comm.size() == 1 ? " rank" : " ranks") << ", median of " << compute.repeats
              << ")\n";

  // 3. Write: gathered to rank 0, or a file a rank.
  const double write_s =
      comm.allreduce(write_grid(comm, split, jac->output_planes(), per_rank,
                                failed ? " mmjacobi: NOT CONVERGED: " + msg : std::string(), c),
                     Op::max);

  // 4. The record: the whole grid's work by the tool's formula, the balance of the ranks.
  const std::int64_t m = n - 2, per_plane = dim == 3 ? m * m : m;
  const std::int64_t max_planes = comm.allreduce(split.planes(), Op::max);
  const std::int64_t halo = comm.allreduce(jac->halo().halo_values(), Op::sum);
  rec.device(cpu_model()).impl(kImpl);
  rec.work(stencil_flops(room, res.iterations), stencil_bytes<T>(room, res.iterations));
  rec.phase("partition", partition_s).phase("exchange", exch.median);
  rec.phase("compute", compute).phase("allreduce", allred.median).phase("write", write_s);
  rec.extra("iterations", res.iterations).extra("final_norm", res.norm);
  rec.extra("max_iter", stop.max_iter).extra("check_every", stop.check_every);
  rec.extra("tol", stop.tol < 0 ? nlohmann::json() : nlohmann::json(stop.tol));
  rec.extra("converged", stop.tol < 0 ? nlohmann::json() : nlohmann::json(res.converged));
  rec.extra("grid", {{"dim", dim}, {"n", n}, {"interior", room.interior()}});
  rec.extra("mlups", mlups);
  rec.extra("ranks", comm.size()).extra("transport", transport(comm));
  rec.extra("partition", split.axis() + "-slabs");
  rec.extra("threads", omp_get_max_threads());
  rec.extra("load_imbalance", static_cast<double>(max_planes * per_plane) * comm.size() /
                                  static_cast<double>(room.interior()));
  rec.extra("halo_values", halo);
  agree(comm, [&] {
    if (comm.root()) rec.emit(c.timing);
  });
  return failed ? 1 : 0;
}

}  // namespace

int jacobi_tool(const Cli& cli, const JacobiStop& stop) {
  const Comm& comm = world();
  const CommonOptions& c = cli.common();
  // The tool's own checks of the room (tools/mmjacobi.cpp's run_stencil), alike on every rank.
  const bool p3 = cli.has("poisson3d");
  if (!p3 && !cli.has("poisson2d"))
    throw UsageError(
        "A b under mpirun: the system form does not run distributed; run it without mpirun, "
        "or give --poisson2d/--poisson3d N");
  const int dim = p3 ? 3 : 2;
  const std::int64_t n = cli.get<std::int64_t>(p3 ? "poisson3d" : "poisson2d");
  if (!cli.positionals("files").empty())
    throw UsageError("--poisson2d/--poisson3d take no input files");
  check_heated_room_size(dim, n);
  if (!c.impl.empty() && c.impl != kImpl)
    throw UsageError("--impl " + c.impl + " does not run distributed; under mpirun each rank's " +
                     "slab runs " + kImpl);
  // The distributed options (dist::parse_options' checks; its --impl is the SpMV's).
  if (parse_partition(cli.get<std::string>("partition")) == PartitionKind::metis)
    throw UsageError(
        "--partition metis partitions a sparse matrix; mmjacobi splits its grid in slabs");
  const bool per_rank = cli.get<bool>("output-per-rank");
  if (per_rank && !c.quiet && c.output == "-")
    throw UsageError("--output-per-rank needs -o PATH (the files are named after it)");
  if (c.device == "cuda")
    throw DeviceError(
        "--device cuda under mpirun: GPU ranks are not built yet (issue 15); "
        "use --device cpu");
  if (comm.root()) warn_unused_tuning("mmjacobi", cli.tune(), nlohmann::json::object(), kImpl);
  say_ranks(comm, c, "mmjacobi", std::string("; the grid in ") + (dim == 3 ? "z" : "y") + " slabs");
  return c.precision == "single" ? run_room<float>(comm, cli, stop, dim, n, per_rank)
                                 : run_room<double>(comm, cli, stop, dim, n, per_rank);
}

}  // namespace mm::dist
