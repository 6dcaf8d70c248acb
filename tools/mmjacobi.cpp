// mmjacobi: Jacobi iteration on a system A x = b, or on the heated-room Poisson grid.
#include <omp.h>

#include <cmath>
#include <iostream>
#include <sstream>

#include "device_memory.hpp"
#include "dist/agree.hpp"
#include "dist/jacobi_tool.hpp"
#include "dist/options.hpp"
#include "jacobi.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"

namespace {

using namespace mm;

constexpr std::int64_t kDefaultMaxIter = 10000;  // when only --tol is given

// Whether NAME is one of the --poisson implementations (the lists hold the same names for
// every value type).
bool is_stencil_impl(const std::string& name) {
  for (const auto& i : stencil_impls<double>())
    if (i.name == name) return true;
  return false;
}

std::string stencil_impl_names() {
  std::string s;
  for (const auto& i : stencil_impls<double>()) s += (s.empty() ? "" : ", ") + i.name;
  return s;
}

JacobiStop parse_stop(const Cli& cli) {
  JacobiStop s;
  if (!cli.has("max-iter") && !cli.has("tol"))
    throw UsageError("give --max-iter K and/or --tol T (see mmjacobi --help)");
  s.max_iter = cli.has("max-iter") ? cli.get<std::int64_t>("max-iter") : kDefaultMaxIter;
  if (s.max_iter < 1) throw UsageError("--max-iter must be >= 1");
  if (cli.has("tol")) {
    s.tol = cli.get<double>("tol");
    if (!(s.tol >= 0) || !std::isfinite(s.tol))
      throw UsageError("--tol must be a finite number >= 0");
  }
  s.check_every = cli.get<std::int64_t>("check-every");
  if (s.check_every < 1) throw UsageError("--check-every must be >= 1");
  return s;
}

// cuda-timetile's sweeps a pass (--time-tile K, or the default, stencil_time_tile_default, with
// --impl cuda-timetile), for the 3D room only: 0 when neither is given (and for --impl
// cuda-timetile on the 2D room, which it sweeps as cuda-norm does). The change is computed at the
// end of a pass, so every C sweeps with C a multiple of K: --check-every C when given, else C = K.
int parse_time_tile(const Cli& cli, bool p3, JacobiStop& stop) {
  const CommonOptions& c = cli.common();
  const bool given = cli.has("time-tile");
  if (!given && c.impl != "cuda-timetile") return 0;
  if (given && !c.impl.empty() && c.impl != "cuda-timetile")
    throw UsageError("--time-tile runs cuda-timetile, not --impl " + c.impl);
  if (!p3) {
    if (given) throw UsageError("--time-tile: the time-tiled sweep is 3D only (--poisson3d N)");
    return 0;
  }
  if (given && dist::wanted(cli))
    throw UsageError("--time-tile: one process on one GPU (not under mpirun)");
  const std::size_t bytes = c.precision == "single" ? 4 : 8;
  const int most = stencil_time_tile_max(bytes);
  const int k = given ? cli.get<int>("time-tile") : stencil_time_tile_default();
  if (k < 1 || k > most)
    throw UsageError("--time-tile must be 1.." + std::to_string(most) + " in " + c.precision +
                     " precision");
  if (cli.vm()["check-every"].defaulted())
    stop.check_every = k;
  else if (stop.check_every % k != 0)
    throw UsageError("--check-every " + std::to_string(stop.check_every) +
                     " is not a multiple of --time-tile " + std::to_string(k) +
                     ": the change is computed at the end of a pass of K sweeps");
  return k;
}

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// "57 iterations, ||x_k - x_{k-1}||_2 = 3e-11 (converged: <= tol 1e-10)"; WHAT names x or u.
std::string outcome(const JacobiResult& r, const JacobiStop& s, const std::string& what) {
  std::string t = std::to_string(r.iterations) +
                  (r.iterations == 1 ? " iteration" : " iterations") + ", ||" + what +
                  "||_2 = " + fmt(r.norm);
  if (s.tol < 0) return t + " (fixed count)";
  return t + (r.converged ? " (converged: <= tol " : " (NOT converged: tol ") + fmt(s.tol) +
         (r.converged ? ")" : " not reached in --max-iter " + std::to_string(s.max_iter) + ")");
}

void record_outcome(TimingRecord& rec, const JacobiResult& r, const JacobiStop& s) {
  rec.extra("iterations", r.iterations).extra("final_norm", r.norm).extra("max_iter", s.max_iter);
  rec.extra("check_every", s.check_every)
      .extra("tol", s.tol < 0 ? nlohmann::json() : nlohmann::json(s.tol));
  rec.extra("converged", s.tol < 0 ? nlohmann::json() : nlohmann::json(r.converged));
}

// Writes M (the comment marks an unconverged result); returns the exit status.
int finish(TimingRecord& rec, MtxMatrix m, const JacobiResult& r, const JacobiStop& s,
           const std::string& message, const CommonOptions& c) {
  const bool failed = s.tol >= 0 && !r.converged;
  if (failed) m.header.comments.push_back(" mmjacobi: NOT CONVERGED: " + message);
  rec.phase("write", save_output(m, c));
  rec.emit(c.timing);
  return failed ? 1 : 0;
}

int run_system(const Cli& cli, const JacobiStop& stop, const JacobiTuning& tuning, Device device) {
  const CommonOptions& c = cli.common();
  const auto files = cli.positionals("files");
  if (files.size() != 2)
    throw UsageError("give A and b, or --poisson2d/--poisson3d N (see mmjacobi --help)");
  if (is_stencil_impl(c.impl))
    throw UsageError("--impl " + c.impl + " needs --poisson2d or --poisson3d");
  TimingRecord rec("mmjacobi");
  rec.precision(c.precision);
  // The plan: A as CSR and its off-diagonal part, b, x and the previous x, x to write; on the
  // GPU the CSR and the vectors.
  ToolPlan plan;
  plan.device_budget = device_budget(
      runs_on_cuda(jacobi_impls<std::int32_t, double>(), c.impl, device) ? device : Device::cpu,
      c.device_cap());
  const Input a = load_input(files[0], c, "mmjacobi", plan, [&](const PlanInput& in, ToolPlan& p) {
    const bool complex = in.h.field == Field::complex;
    const double v = value_size(c.precision, complex),
                 ix = index_size(in.h.rows, in.h.cols, 2 * in.entries);
    const double n = static_cast<double>(in.h.rows);
    plan_csr(p.host, in, ix, v);
    p.host.add("off-diagonal part", csr_bytes(in.h.rows, in.expanded, ix, v) + n * v);
    p.host.add("b, x and the previous x", 4 * n * v);
    if (!c.quiet) plan_output(p.host, "x", n, false, complex, thread_count(c.threads));
    p.device.add("A as CSR and the vectors", csr_bytes(in.h.rows, in.expanded, ix, v) + 4 * n * v);
  });
  record_input(rec, a);
  const Input bin = load_input(files[1], c, "mmjacobi", plan);
  record_input(rec, bin);
  const MtxHeader& h = a.m.header;
  if (!h.is_square())
    throw InputError(
        a.path, 0,
        "A must be square, found " + std::to_string(h.rows) + " x " + std::to_string(h.cols));
  const bool complex = h.field == Field::complex || bin.m.header.field == Field::complex;

  return with_value_type(c.precision, complex, [&]<class T>() {
    return with_index_type(h.rows, h.cols, a.m.size() * 2, [&]<class I>() {
      const auto& impl = pick_impl(jacobi_impls<I, T>(), "jacobi", c.impl, device);
      Stopwatch w;
      const Csr<I, T> csr = coo_to_csr(to_coo<I, T>(a.m));
      const std::vector<T> b = vector_values<T>(bin, h.rows, "b");
      if (const auto row = jacobi_zero_diagonal_row(csr); row >= 0)
        throw NumericalError(a.path + ": zero on the diagonal in row " + std::to_string(row + 1) +
                             "; Jacobi divides by it");
      if (const auto row = jacobi_not_dominant_row(csr); row >= 0)
        std::cerr << "mmjacobi: warning: " << a.path
                  << " is not strictly diagonally dominant (first at row " << row + 1
                  << "): the iteration may diverge\n";
      Dense<T> x(h.rows, 1);
      JacobiResult res;
      JacobiProblem<I, T> p{&csr, b.data(), x.data.data(), stop, &res, tuning};
      rec.phase("convert", w.seconds());

      auto runner = impl.make(p);
      const Measured m = measure(*runner, c.warmup, c.repeat);
      record_measured(rec, m);
      warn_unused_tuning("mmjacobi", cli.tune(), m.tuning, impl.name);
      rec.impl(impl.name).work(jacobi_flops(csr, res.iterations),
                               jacobi_bytes(csr, res.iterations));
      record_outcome(rec, res, stop);
      const std::string msg = outcome(res, stop, "x_k - x_{k-1}");
      std::cerr << "mmjacobi: " << msg << "\n";
      if (c.verbose)
        std::cerr << "mmjacobi: " << impl.name << " on " << m.device << ": median "
                  << m.compute.median << " s over " << m.compute.repeats << " runs\n";
      return finish(rec, to_mtx(x), res, stop, msg, c);
    });
  });
}

int run_stencil(const Cli& cli, const JacobiStop& stop, const JacobiTuning& tuning, Device device,
                int dim, std::int64_t n, int time_tile) {
  const CommonOptions& c = cli.common();
  if (!cli.positionals("files").empty())
    throw UsageError("--poisson2d/--poisson3d take no input files");
  check_heated_room_size(dim, n);
  if (!c.impl.empty() && !is_stencil_impl(c.impl))
    throw UsageError("--impl " + c.impl +
                     " is a system implementation; with --poisson use one of " +
                     stencil_impl_names());
  if (cli.has("time-tile") && device != Device::cuda)
    throw UsageError(
        "--time-tile runs on the GPU (cuda-timetile); the CPU sweeps are not "
        "time-tiled (--device " +
        c.device + " chose the CPU)");
  const std::string impl_name = time_tile > 0 ? "cuda-timetile" : c.impl;
  TimingRecord rec("mmjacobi");
  rec.precision(c.precision);
  const HeatedRoom room = heated_room(dim, n);
  // Real grids only (with_value_type would also instantiate the complex types).
  auto body = [&]<class T>() {
    const auto& impl = pick_impl(stencil_impls<T>(), "jacobi stencil", impl_name, device);
    // The plan, before either side allocates a grid: the grid (and the CPU sweeps' second),
    // the grid to write; on the GPU its two grids.
    const double points = static_cast<double>(room.points()), v = sizeof(T);
    ToolPlan plan;
    plan.host.add("grid", (impl.device == Device::cuda ? 1 : 2) * points * v);
    if (!c.quiet) plan_output(plan.host, "grid", points, false, false, thread_count(c.threads));
    plan.device.add("two grids", 2 * points * v);
    plan.device_budget = device_budget(impl.device, c.device_cap());
    check_plan(plan, c);
    Stopwatch w;
    JacobiResult res;
    StencilProblem<T> p{room, nullptr, stop, &res, tuning, time_tile};
    // A CUDA runner refuses a room larger than the free device memory when it is made (exit 4,
    // naming the bytes asked and free): made once before the host allocates its grid.
    if (impl.device == Device::cuda) impl.make(p);
    // 3D: the N^3 grid is the N^2 x N array's row-major data (rows of x), no copy needed.
    Dense<T> u(dim == 3 ? n * n : n, n);
    p.u = u.data.data();
    auto runner = impl.make(p);
    rec.phase("convert", w.seconds());

    const Measured m = measure(*runner, c.warmup, c.repeat);
    record_measured(rec, m);
    warn_unused_tuning("mmjacobi", cli.tune(), m.tuning, impl.name);
    // Time-tiled: the bytes its passes move (stencil_time_tile_bytes), the flops of the
    // sweeps made (effective point updates).
    const bool plain_checks = m.tuning.value("norm", "") == "plain";
    rec.impl(impl.name).work(
        stencil_flops(room, res.iterations),
        time_tile > 0
            ? stencil_time_tile_bytes<T>(
                  room, stencil_time_tile_passes(stop, res.iterations, time_tile, plain_checks))
            : stencil_bytes<T>(room, res.iterations));
    if (time_tile > 0) rec.extra("time_tile", time_tile);
    const double mlups = m.compute.median > 0
                             ? static_cast<double>(room.interior()) *
                                   static_cast<double>(res.iterations) / m.compute.median * 1e-6
                             : 0.0;
    record_outcome(rec, res, stop);
    rec.extra("grid", {{"dim", dim}, {"n", n}, {"interior", room.interior()}})
        .extra("mlups", mlups);
    const std::string msg = outcome(res, stop, "u_new - u_old");
    std::cerr << "mmjacobi: poisson" << dim << "d N=" << n << ": " << msg << ", " << fmt(mlups)
              << " MLUP/s (" << impl.name
              << (time_tile > 0 ? ", " + std::to_string(time_tile) + " sweeps a pass" : "")
              << (impl.device == Device::cuda ? " on " + m.device : std::string()) << ", median of "
              << m.compute.repeats << ")\n";
    return finish(rec, c.quiet ? MtxMatrix{} : to_mtx(u), res, stop, msg, c);
  };
  return c.precision == "single" ? body.template operator()<float>()
                                 : body.template operator()<double>();
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  if (c.list_impls) {
    std::cout << format_impls(jacobi_impls<std::int32_t, double>(), c.list_all)
              << format_impls(stencil_impls<double>(), c.list_all);
    return 0;
  }
  const bool p2 = cli.has("poisson2d"), p3 = cli.has("poisson3d");
  if (p2 && p3) throw UsageError("give --poisson2d or --poisson3d, not both");
  JacobiStop stop = parse_stop(cli);
  const int time_tile = parse_time_tile(cli, p3, stop);
  const JacobiTuning tuning = JacobiTuning::from(cli.tune());  // bad values: exit 2, now
  if (dist::wanted(cli)) return dist::jacobi_tool(cli, stop);  // under mpirun: lib/dist/
  const Device device = resolve_device(c.device, c.verbose, "mmjacobi");
  if (p2 || p3)
    return run_stencil(cli, stop, tuning, device, p3 ? 3 : 2,
                       cli.get<std::int64_t>(p3 ? "poisson3d" : "poisson2d"), time_tile);
  return run_system(cli, stop, tuning, device);
}

}  // namespace

int main(int argc, char** argv) {
  return mm::dist::run_tool("mmjacobi", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmjacobi",
        "A b (--max-iter K | --tol T) [options]  |  mmjacobi --poisson3d|--poisson2d N [options]",
        "Jacobi iteration x_k = D^-1 (b - (A - D) x_{k-1}) from x_0 = 0 on a square sparse or "
        "dense\n"
        "system (zero on the diagonal: exit 5 naming the row; a warning when A is not strictly\n"
        "diagonally dominant); x is written as an n x 1 array.\n"
        "--poisson3d N / --poisson2d N: the heated room on [-1,1]^3 (^2), no matrix stored: N\n"
        "points a side with the walls, h = 2/(N-1), walls u = 20 except u = 0 on y = -1, radiator\n"
        "f = 200 on x in [-1,-3/8], y in [-1,-1/2], z in [-2/3,0], interior started at 0;\n"
        "u = (sum of the 6 (4) neighbours + h^2 f) / 6 (4), two grids swapped each iteration.\n"
        "The grid is written as a dense array with x along the columns: 2D N x N, entry (j,i) at\n"
        "(x_i, y_j); 3D N^2 x N, entry ((k-1)*N + j, i) at (x_i, y_j, z_k) (1-based).\n"
        "Stopping: after --max-iter K iterations, and/or when the change ||x_k - x_{k-1}||_2\n"
        "(Euclidean norm over all unknowns; for the grid over the interior points, the Frobenius\n"
        "norm of u_new - u_old) is <= --tol T, checked every --check-every C iterations and at\n"
        "the last. --tol alone allows at most 10000 iterations. Iterations and the last change go\n"
        "to standard error (grid: also MLUP/s = interior points * iterations / compute seconds).\n"
        "Exit 1 when --tol was not reached: the result is still written, with a comment line\n"
        "'% mmjacobi: NOT CONVERGED: ...'.\n"
        "Implementations: ref and cpu (GPU: cuda) for A b; ref-stencil and cpu-stencil (GPU:\n"
        "cuda-norm, cuda-timetile, cuda-coalesced, cuda-naive) for --poisson*; --device auto\n"
        "picks the GPU's when one exists. GPU times are kernel time (events), transfers apart.\n"
        "Tuning of the CUDA marching sweeps: --tune warps=8|16|32, chunks=C,\n"
        "ahead=off|regs|tma, stages=S, order=up|alternate (--tune help).\n"
        "--time-tile K (3D, GPU): cuda-timetile, K sweeps a pass through memory (K <= 4 double,\n"
        "8 single), the grid bit for bit that of K plain sweeps; the change at the end of a pass,\n"
        "so --check-every must be a multiple of K (default: K); --tune norm=plain computes it by\n"
        "a last plain sweep, cuda-norm's change bit for bit (fused: in the pass, the default).\n"
        "Its record's bytes are what the passes move (u read and written once a pass).\n"
        "Work per iteration: system flops = 2*nnz + 3*n (x4 complex), bytes = nnz*(value+index)\n"
        "+ (n+1)*index + 4*n*value; grid flops = 8 (2D: 6) and bytes = 2*value (16 B double) per\n"
        "interior point.",
        "mmgen diagdom --n 1000 --nnz-per-row 8 -o A.mtx && mmgen rhs A.mtx -o b.mtx\n"
        "mmjacobi A.mtx b.mtx --tol 1e-12 -o x.mtx && mmcheck residual A.mtx x.mtx b.mtx\n"
        "mmjacobi A.mtx b.mtx --max-iter 50 --impl ref --precision single\n"
        "mmgen rhs A.mtx | mmjacobi A.mtx - --tol 1e-10 --check-every 10 --timing -\n"
        "mmjacobi --poisson3d 128 --max-iter 1000 --tol 1e-6 --check-every 50 -o room.mtx\n"
        "mmjacobi --poisson3d 512 --max-iter 200 --device cuda --tune warps=16 -q --timing -\n"
        "mmjacobi --poisson3d 512 --tol 1e-4 --time-tile 4 --check-every 40 -q --timing -\n"
        "mmjacobi --poisson2d 256 --tol 1e-8 --impl ref-stencil --threads 1 -q --timing t.jsonl\n"
        "mpirun -np 4 mmjacobi --poisson3d 256 --tol 1e-4 --check-every 50 -o room.mtx");
    cli.compute().tuning({mm::JacobiTuning::keys()}).positional("files", -1);
    cli.options()("max-iter", mm::po::value<std::int64_t>(),
                  "iterations at most (fixed count without --tol)")(
        "tol", mm::po::value<double>(), "stop when ||x_k - x_{k-1}||_2 <= T")(
        "check-every", mm::po::value<std::int64_t>()->default_value(1),
        "compute the change every C iterations")("poisson3d", mm::po::value<std::int64_t>(),
                                                 "the 3D heated room, N points a side")(
        "poisson2d", mm::po::value<std::int64_t>(), "the 2D heated room, N points a side")(
        "time-tile", mm::po::value<int>(),
        "3D on the GPU: K sweeps a pass through memory (cuda-timetile)");
    mm::dist::add_options(cli);
    mm::dist::add_jacobi_options(cli);
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
