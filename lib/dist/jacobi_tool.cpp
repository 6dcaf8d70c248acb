// mmjacobi under mpirun: the heated room split in slabs or boxes on CPU or GPU ranks, the timed
// sweeps, the grid written.
#include "dist/jacobi_tool.hpp"

#include <omp.h>

#include <iostream>
#include <sstream>

#include "device.hpp"
#include "dist/agree.hpp"
#include "dist/gpu.hpp"
#include "dist/options.hpp"
#include "dist/read.hpp"
#include "dist/room_engine.hpp"
#include "dist/vector.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"
#include "mm/tool_io.hpp"
#include "mm/tuning.hpp"

namespace mm::dist {

namespace {

// The one local kernel of a rank's part on each device (its name in the record, as one process
// names it).
constexpr const char* kImpl = "cpu-stencil";
constexpr const char* kGpuImpl = "cuda-norm";
// The record's transport of GPU ranks: halo planes copied to pinned host memory, sent by MPI.
constexpr const char* kGpuTransport = "mpi-host-staged";

// How this run goes: the split, the device.
struct RoomPlan {
  int dim = 3;
  std::int64_t n = 3;
  SplitChoice split;
  bool gpu = false;
  int gpu_index = -1;
  std::string gpu_name;
  // --comm nccl: the GPU ranks whose NCCL sends the planes (else null: MPI, staged on the host).
  std::shared_ptr<const GpuRanks> nccl;
  JacobiTuning tuning;
  const char* impl() const { return gpu ? kGpuImpl : kImpl; }
  // The transport as the record and -v name it: NCCL's, GPU ranks' staged planes under MPI, or
  // the CPU ranks' (options.hpp's transport).
  std::string transport_of(const Comm& comm) const {
    if (nccl) return nccl->transport();
    return gpu && comm.mpi() ? kGpuTransport : transport(comm);
  }
};

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

std::string describe(const SlabSplit& s, const HeatedRoom& room, int ranks, const RoomPlan& plan) {
  std::ostringstream o;
  o << "mmjacobi: rank " << s.rank << "/" << ranks << ": " << s.axis() << " slab";
  if (plan.gpu) o << " on GPU " << plan.gpu_index;
  o << ", ";
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

// A box's line: "box (1,0,0) of 2x2x1: x 5..8, y 1..8, z 1..8 (256 interior points), faces:
// x- rank 0, y+ rank 2, 96 values an exchange; writes planes 0..4".
std::string describe(const BoxSplit& b, const SlabSplit& out, int ranks) {
  std::ostringstream o;
  o << "mmjacobi: rank " << b.rank << "/" << ranks << ": box (" << b.coord[0] << "," << b.coord[1];
  if (b.dim == 3) o << "," << b.coord[2];
  o << ") of " << b.grid_name() << ": ";
  if (b.empty()) {
    o << "no points (more ranks along an axis than its " << b.n - 2 << " interior points)";
  } else {
    const char* axis = "xyz";
    for (int a = 0; a < b.dim; ++a)
      o << (a ? ", " : "") << axis[a] << " " << b.own.lo[a] << ".." << b.own.hi[a] - 1;
    o << " (" << b.points() << " interior points), faces:";
    int faces = 0;
    for (int a = 0; a < b.dim; ++a)
      for (int side = 0; side < 2; ++side)
        if (const int peer = side ? b.upper[a] : b.lower[a]; peer >= 0)
          o << (faces++ ? ", " : " ") << axis[a] << (side ? "+" : "-") << " rank " << peer;
    if (!faces) o << " none";
    o << ", " << b.halo_values() << " values an exchange";
  }
  if (out.out1 > out.out0)
    o << "; writes planes " << out.out0 << ".." << out.out1 - 1;
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
int run_room(const Comm& comm, const Cli& cli, const JacobiStop& stop, const RoomPlan& plan,
             bool per_rank) {
  const CommonOptions& c = cli.common();
  const int dim = plan.dim;
  const std::int64_t n = plan.n;
  TimingRecord rec("mmjacobi");
  rec.precision(c.precision);
  const HeatedRoom room = heated_room(dim, n);

  // 1. Partition: this rank's slab or box and its buffers (an allocation that fails anywhere
  //    fails every rank). The output is written in slabs whatever the split.
  Stopwatch w;
  const SlabSplit out = slab_split(dim, n, comm.size(), comm.rank());
  const BoxSplit box = box_split(dim, n, plan.split.dims, comm.rank());
  std::unique_ptr<RoomEngine<T>> engine;
  agree(comm, [&] {
    if (plan.gpu)
      engine = gpu_slab_engine<T>(comm, room, out, plan.tuning, plan.nccl);
    else if (plan.split.boxes)
      engine = box_engine<T>(comm, room, box, out);
    else
      engine = slab_engine<T>(comm, room, out);
  });
  const double partition_s = comm.allreduce(w.seconds(), Op::max);
  if (c.verbose)
    print_ranked(comm, plan.split.boxes ? describe(box, out, comm.size())
                                        : describe(out, room, comm.size(), plan));

  // 2. The sweeps, timed: every run starts together from the starting grid, each counts as
  //    its slowest rank.
  JacobiResult res;
  std::vector<double> times, exchange, reduce;
  for (int i = 0; i < c.warmup; ++i) {
    engine->prepare();
    res = engine->run(stop);
  }
  for (int i = 0; i < c.repeat; ++i) {
    engine->prepare();
    comm.barrier();
    Stopwatch t;
    res = engine->run(stop);
    times.push_back(t.seconds());
    exchange.push_back(engine->exchange_seconds());
    reduce.push_back(engine->allreduce_seconds());
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
              << " MLUP/s (" << plan.impl() << " on " << comm.size() << (plan.gpu ? " GPU" : "")
              << (comm.size() == 1 ? " rank" : " ranks") << ", median of " << compute.repeats
              << ")\n";

  // 3. Write: gathered to rank 0, or a file a rank.
  std::vector<T> planes = engine->output_planes();
  const double write_s =
      comm.allreduce(write_grid(comm, out, std::move(planes), per_rank,
                                failed ? " mmjacobi: NOT CONVERGED: " + msg : std::string(), c),
                     Op::max);

  // 4. The record: the whole grid's work by the tool's formula, the balance of the ranks.
  const std::int64_t max_points = comm.allreduce(engine->points(), Op::max);
  const std::int64_t halo = comm.allreduce(engine->halo_values(), Op::sum);
  rec.device(plan.gpu ? plan.gpu_name : cpu_model()).impl(plan.impl());
  rec.work(stencil_flops(room, res.iterations), stencil_bytes<T>(room, res.iterations));
  rec.phase("partition", partition_s).phase("exchange", exch.median);
  rec.phase("compute", compute).phase("allreduce", allred.median).phase("write", write_s);
  rec.extra("iterations", res.iterations).extra("final_norm", res.norm);
  rec.extra("max_iter", stop.max_iter).extra("check_every", stop.check_every);
  rec.extra("tol", stop.tol < 0 ? nlohmann::json() : nlohmann::json(stop.tol));
  rec.extra("converged", stop.tol < 0 ? nlohmann::json() : nlohmann::json(res.converged));
  rec.extra("grid", {{"dim", dim}, {"n", n}, {"interior", room.interior()}});
  rec.extra("mlups", mlups);
  rec.extra("ranks", comm.size());
  rec.extra("transport", plan.transport_of(comm));
  if (plan.split.boxes) {
    rec.extra("partition", "boxes");
    rec.extra("process_grid", nlohmann::json::array({box.dims[0], box.dims[1], box.dims[2]}));
  } else {
    rec.extra("partition", out.axis() + "-slabs");
  }
  if (plan.gpu)
    rec.extra("tuning", engine->tuning().to_json());
  else
    rec.extra("threads", omp_get_max_threads());
  rec.extra("load_imbalance",
            static_cast<double>(max_points) * comm.size() / static_cast<double>(room.interior()));
  rec.extra("halo_values", halo);
  agree(comm, [&] {
    if (comm.root()) rec.emit(c.timing);
  });
  return failed ? 1 : 0;
}

}  // namespace

void add_jacobi_options(Cli& cli) {
  cli.options()("split", po::value<std::string>()->default_value("auto"),
                "under mpirun, --poisson2d/3d: slabs (the slowest axis), boxes (a process grid, "
                "face halos), PXxPY[xPZ] (that process grid), or auto: slabs while every rank gets "
                ">= 4 planes, else boxes; GPU ranks: slabs");
}

int jacobi_tool(const Cli& cli, const JacobiStop& stop) {
  const Comm& comm = world();
  const CommonOptions& c = cli.common();
  // The tool's own checks of the room (tools/mmjacobi.cpp's run_stencil), alike on every rank.
  const bool p3 = cli.has("poisson3d");
  if (!p3 && !cli.has("poisson2d"))
    throw UsageError(
        "A b under mpirun: the system form does not run distributed; run it without mpirun, "
        "or give --poisson2d/--poisson3d N");
  RoomPlan plan;
  plan.dim = p3 ? 3 : 2;
  plan.n = cli.get<std::int64_t>(p3 ? "poisson3d" : "poisson2d");
  if (!cli.positionals("files").empty())
    throw UsageError("--poisson2d/--poisson3d take no input files");
  check_heated_room_size(plan.dim, plan.n);
  // GPU ranks on request only: --device auto keeps the ranks on the CPU.
  plan.gpu = c.device == "cuda";
  if (!c.impl.empty() && c.impl != plan.impl())
    throw UsageError("--impl " + c.impl + " does not run distributed; under mpirun each rank's " +
                     (plan.gpu ? "slab" : "part") + " runs " + plan.impl() +
                     (plan.gpu ? " (--device cuda)" : ""));
  // The distributed options (dist::parse_options' checks; its --impl is the SpMV's).
  if (parse_partition(cli.get<std::string>("partition")) == PartitionKind::metis)
    throw UsageError(
        "--partition metis partitions a sparse matrix; mmjacobi splits its grid in slabs or boxes");
  const bool per_rank = cli.get<bool>("output-per-rank");
  if (per_rank && !c.quiet && c.output == "-")
    throw UsageError("--output-per-rank needs -o PATH (the files are named after it)");
  const std::string split = cli.get<std::string>("split");
  plan.split =
      parse_split(plan.gpu && split == "auto" ? "slabs" : split, plan.dim, plan.n, comm.size());
  if (plan.gpu && plan.split.boxes)
    throw UsageError("--split " + split +
                     " with --device cuda: GPU ranks run slabs (--split slabs, the default)");
  plan.tuning = JacobiTuning::from(cli.tune());
  // The GPU ranks take the marching sweep's keys; not launch: a slab's sweeps exchange their
  // halos between them, so they are launched one by one.
  nlohmann::json used = plan.gpu ? plan.tuning.to_json() : nlohmann::json::object();
  used.erase("launch");
  if (comm.root()) warn_unused_tuning("mmjacobi", cli.tune(), used, plan.impl());
  const CommKind kind = parse_comm(cli.get<std::string>("comm"));
  if (kind == CommKind::nccl && !plan.gpu)
    throw UsageError("--comm nccl moves device memory: it needs GPU ranks (--device cuda)");
  if (plan.gpu) {  // the rank's GPU made current (collective, its errors agreed on every rank)
    const std::shared_ptr<GpuRanks> gpu = open_gpu_ranks(comm, kind);
    plan.gpu_index = gpu->device();
    plan.gpu_name = gpu->device_name();
    if (kind == CommKind::nccl) plan.nccl = gpu;
  }
  const std::string how =
      plan.split.boxes ? "; the grid in boxes, process grid " +
                             box_split(plan.dim, plan.n, plan.split.dims, 0).grid_name()
                       : std::string("; the grid in ") + (plan.dim == 3 ? "z" : "y") + " slabs";
  if (plan.gpu) {
    if (c.verbose && comm.root())
      std::cerr << "mmjacobi: " << comm.size() << (comm.size() == 1 ? " rank" : " ranks") << " ("
                << plan.transport_of(comm)
                << "), one GPU a rank (the node's ranks over its GPUs in turn)" << how << "\n";
  } else {
    say_ranks(comm, c, "mmjacobi", how);
  }
  // The budget (--max-memory, each rank's): on CPU ranks the two copies of the rank's share of
  // the grid with its halos (faces), and on rank 0 the grid gathered for -o. (GPU ranks keep
  // their copies on the device; its memory is not planned here.)
  const std::int64_t budget = rank_budget(c, comm.node_rank().size);  // collective
  agree(comm, [&] {
    const double v = c.precision == "single" ? 4 : 8, n = static_cast<double>(plan.n);
    const double face = plan.dim == 3 ? n * n : n, points = face * n;
    MemoryPlan m;
    if (!plan.gpu)
      m.add("this rank's part of the grid, twice, with its halos",
            2 * (points / comm.size() + 2 * plan.dim * face) * v);
    if (comm.root() && !per_rank && !c.quiet) m.add("the grid gathered on rank 0", points * v);
    check_rank_plan(comm, m, budget, c.verbose);
  });
  return c.precision == "single" ? run_room<float>(comm, cli, stop, plan, per_rank)
                                 : run_room<double>(comm, cli, stop, plan, per_rank);
}

}  // namespace mm::dist
