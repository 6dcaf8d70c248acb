// mmsolve: x with A x = b (b one or more columns) by dense LU, Gaussian elimination,
// UMFPACK, CG, BiCGSTAB or restarted GMRES.
#include <omp.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "analysis/check.hpp"
#include "device_memory.hpp"
#include "dist/agree.hpp"
#include "dist/options.hpp"
#include "dist/solve_tool.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"
#include "solve.hpp"
#include "spmv.hpp"
#include "vendor/openblas.hpp"

namespace {

using namespace mm;

// a_ij == conj(a_ji) for every stored entry (symmetric for real values), found by binary
// search in row j's sorted columns.
template <class I, class T>
bool numerically_hermitian(const Csr<I, T>& a) {
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      const std::int64_t j = a.idx[k];
      const auto b = a.idx.begin() + a.ptr[j], e = a.idx.begin() + a.ptr[j + 1];
      const auto it = std::lower_bound(b, e, static_cast<I>(i));
      T mirror{};
      if (it != e && *it == i) mirror = a.val[static_cast<std::size_t>(it - a.idx.begin())];
      T want = a.val[k];
      if constexpr (is_complex_v<T>) want = std::conj(want);
      if (mirror != want) return false;
    }
  return true;
}

template <class I, class T>
bool positive_diagonal(const Csr<I, T>& a) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    T d{};
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      if (a.idx[k] == i) d += a.val[k];
    if (!(std::real(d) > 0) || std::imag(std::complex<double>(d)) != 0) return false;
  }
  return true;
}

// The default method: LU for dense or small systems, CG for sparse Hermitian ones with a
// positive diagonal (the cheap signs of positive definiteness), else UMFPACK, or GMRES
// for complex values (UMFPACK is wired up for real ones only).
template <class I, class T>
std::pair<SolveMethod, std::string> choose_method(const MtxHeader& h, const Csr<I, T>& a) {
  const double n = static_cast<double>(h.rows),
               fill = static_cast<double>(a.nnz()) / std::max(1.0, n * n);
  if (h.format == Format::array) return {SolveMethod::lu, "a dense (array) file"};
  if (h.rows <= 1000) return {SolveMethod::lu, "small (n <= 1000)"};
  if (fill > 0.1) return {SolveMethod::lu, "more than 10% of entries stored"};
  if (numerically_hermitian(a) && positive_diagonal(a))
    return {SolveMethod::cg, "sparse, symmetric, positive diagonal"};
  if (!is_complex_v<T>) return {SolveMethod::umfpack, "sparse, not symmetric positive, real"};
  return {SolveMethod::gmres, "sparse, not symmetric positive, complex"};
}

// The method --method auto will take, as far as the header tells: lu for array files, small or
// dense-filled systems, else an iterative one (choose_method decides once A is read).
SolveMethod expected_method(const std::string& method_opt, const MtxHeader& h, double entries) {
  if (method_opt != "auto") return parse_method(method_opt);
  const double n = static_cast<double>(h.rows);
  if (h.format == Format::array || h.rows <= 1000 || entries > 0.1 * n * n) return SolveMethod::lu;
  return SolveMethod::cg;
}

// What the solve holds: A as CSR, for a dense method A dense and its factors; b, x, x to write,
// the iterative methods' vectors (gmres: --restart + 3 of them); on the GPU the same operands.
// UMFPACK's factors are not known before it runs.
void plan_solve(const PlanInput& a, const PlanInput& b, const std::string& method_opt,
                const IterOptions& opt, const CommonOptions& c, Device device, ToolPlan& p) {
  const bool complex = a.h.field == Field::complex || b.h.field == Field::complex;
  const double v = value_size(c.precision, complex),
               ix = index_size(a.h.rows, a.h.cols, 2 * a.entries);
  const double n = static_cast<double>(a.h.rows), k = static_cast<double>(b.h.cols);
  const SolveMethod method = expected_method(method_opt, a.h, a.expanded);
  const bool dense = is_dense(method);
  plan_csr(p.host, a, ix, v);
  if (dense) {
    plan_dense(p.host, a, v);
    p.host.add("A's factors", n * n * v);
  }
  p.host.add("b and x", 2 * n * k * v);
  const double vectors = method == SolveMethod::cg         ? 5
                         : method == SolveMethod::bicgstab ? 8
                         : method == SolveMethod::gmres    ? opt.restart + 3
                                                           : 0;
  p.host.add("iteration vectors", vectors * n * v);
  p.host.add("residual check", 2 * n * v);
  if (!c.quiet) plan_output(p.host, "x", n * k, false, complex, thread_count(c.threads));
  const double operands = dense ? 2 * n * n * v : csr_bytes(a.h.rows, a.expanded, ix, v);
  p.device.add("A, b, x and vectors", operands + (2 * k + vectors) * n * v);
  const bool gpu = runs_on_cuda(solve_impls<std::int32_t, double>(method), c.impl, device);
  p.device_budget = device_budget(gpu ? device : Device::cpu, c.device_cap());
}

std::string list_impls(bool all) {
  std::ostringstream s;
  for (auto m : {SolveMethod::lu, SolveMethod::gauss, SolveMethod::umfpack, SolveMethod::cg,
                 SolveMethod::bicgstab, SolveMethod::gmres})
    s << "--method " << method_name(m) << ":\n"
      << format_impls(solve_impls<std::int32_t, double>(m), all);
  return s.str();
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  if (c.list_impls) {
    std::cout << list_impls(c.list_all);
    return 0;
  }
  const auto files = cli.positionals("files");
  if (files.size() != 2) throw UsageError("give A and b (see mmsolve --help)");
  const std::string method_opt = cli.get<std::string>("method");
  if (method_opt != "auto") parse_method(method_opt);
  const LuTuning lu_tuning = LuTuning::from(cli.tune());  // bad values: exit 2, before reading
  IterOptions opt;
  opt.tol = cli.get<double>("tol");
  opt.max_iter = cli.get<std::int64_t>("max-iter");
  opt.restart = cli.get<int>("restart");
  opt.check_every = cli.get<int>("check-every");
  const std::string pre = cli.get<std::string>("precond");
  if (pre != "none" && pre != "jacobi")
    throw UsageError("--precond must be none or jacobi, not '" + pre + "'");
  opt.jacobi = pre == "jacobi";
  if (!(opt.tol > 0) || opt.max_iter < 1 || opt.restart < 1 || opt.check_every < 1)
    throw UsageError("--tol must be > 0, --max-iter, --restart and --check-every >= 1");
  if (dist::wanted(cli)) return dist::solve_tool(cli, opt);  // under mpirun: lib/dist/
  const Device device = resolve_device(c.device, c.verbose, "mmsolve");
  set_openblas_threads(c.threads);  // OpenMP's count is set by Cli::parse

  TimingRecord rec("mmsolve");
  rec.precision(c.precision);
  ToolPlan plan;
  std::optional<PlanInput> pa;  // A's header, for the plan made at b's
  const Input a =
      load_input(files[0], c, "mmsolve", plan, [&](const PlanInput& in, ToolPlan&) { pa = in; });
  record_input(rec, a);
  const Input bin = load_input(files[1], c, "mmsolve", plan, [&](const PlanInput& b, ToolPlan& p) {
    plan_solve(*pa, b, method_opt, opt, c, device, p);
  });
  record_input(rec, bin);
  const MtxHeader &h = a.m.header, &hb = bin.m.header;
  check_system_shapes(a.path, h, bin.path, hb);
  const bool complex = h.field == Field::complex || hb.field == Field::complex;

  return with_value_type(c.precision, complex, [&]<class T>() {
    return with_index_type(h.rows, h.cols, a.m.size() * 2, [&]<class I>() -> int {
      const std::int64_t n = h.rows, k = hb.cols;
      Stopwatch w;
      const Csr<I, T> csr = coo_to_csr(to_coo<I, T>(a.m));
      SolveMethod method;
      if (method_opt == "auto") {
        const auto [m, why] = choose_method(h, csr);
        method = m;
        if (c.verbose)
          std::cerr << "mmsolve: --method auto chose " << method_name(m) << ": " << why << "\n";
      } else {
        method = parse_method(method_opt);
      }
      const auto& impl =
          pick_impl(solve_impls<I, T>(method), std::string("solve --method ") + method_name(method),
                    c.impl, device);
      const bool dense = is_dense(method);
      const SolveMethod expected = expected_method(method_opt, h, pa->expanded);
      if (dense && !is_dense(expected)) {
        // auto chose a dense method the header did not foretell: A dense and its factors too.
        MemoryPlan more = plan.host;
        more.add("A dense and factors", 2 * dense_bytes(n, n, sizeof(T)));
        check_memory(more, c.max_memory, c.verbose);
      }
      if (method == SolveMethod::gauss)
        std::cerr << "mmsolve: warning: gauss eliminates without pivoting: unstable unless A is "
                     "diagonally "
                     "dominant or SPD\n";
      const Dense<T> ad = dense ? to_dense<T>(a.m) : Dense<T>{};
      const Dense<T> b = to_dense<T>(bin.m);
      Dense<T> x(n, k);
      rec.phase("convert", w.seconds());

      SolveReport report;
      SolveProblem<I, T> p{method, &ad, &csr, &b, &x, opt, &report, lu_tuning, c.profile};
      auto runner = impl.make(p);
      const Measured m = measure(*runner, c.warmup, c.repeat);
      record_measured(rec, m);
      const std::string used_by = std::string(method_name(method)) + "/" + impl.name;
      warn_unused_tuning("mmsolve", cli.tune(), m.tuning, used_by);
      if (c.profile > 0 && m.profile.is_null())
        std::cerr << "mmsolve: warning: --profile: " << used_by << " has no profile\n";
      // Bytes: the matrix read once per pass of the method (dense: A and its factors; sparse:
      // the CSR arrays per SpMV), plus b read and x written.
      const double spmvs = method == SolveMethod::bicgstab ? 2.0 : 1.0;
      const double bytes =
          (dense ? lu_bytes<T>(n)
                 : spmv_bytes(csr, false) *
                       std::max<double>(1, spmvs * static_cast<double>(report.iterations) *
                                               static_cast<double>(k))) +
          2.0 * static_cast<double>(n * k) * sizeof(T);
      rec.impl(std::string(method_name(method)) + "/" + impl.name).work(report.flops, bytes);
      rec.extra("iterations", report.iterations).extra("converged", report.converged);
      if (is_iterative(method) && impl.device == Device::cuda)
        rec.extra("check_every", opt.check_every);

      // The final residual by the reference SpMV, whatever the method measured, and the
      // normwise backward error ||b-Ax|| / (||A||_F ||x|| + ||b||) of mmcheck residual, which
      // a stable direct solve keeps near n eps however ill-conditioned A is.
      const check::SolveResidual res = check::solve_residual(csr, x, b);
      const double worst = res.relative_residual, backward = res.backward_error;
      // A direct method that only meets exact zero pivots can still return garbage for a
      // matrix singular to working precision: refuse it (exit 5) rather than write it.
      const double backward_limit = sizeof(real_type_t<T>) == 4 ? 1e-2 : 1e-6;
      if (!is_iterative(method) && !(backward <= backward_limit)) {
        std::ostringstream m;
        m << method_name(method) << " (" << impl.name << "): backward error " << backward
          << " (relative residual " << worst << "): A is singular or too ill-conditioned";
        throw NumericalError(m.str());
      }
      rec.extra("relative_residual", worst);
      std::cerr << "mmsolve: " << method_name(method) << " (" << impl.name << "): ";
      if (is_iterative(method)) std::cerr << report.iterations << " iterations, ";
      std::cerr << "relative residual ||b-Ax||/||b|| " << worst << (k > 1 ? " (worst column)" : "")
                << "\n";

      MtxMatrix out = to_mtx(x);
      if (!report.converged) {
        std::ostringstream note;
        note << " mmsolve: not converged after " << report.iterations
             << " iterations, relative residual " << worst
             << (report.note.empty() ? "" : ", " + report.note);
        out.header.comments.push_back(note.str());
        std::cerr << note.str().substr(1) << "\n";  // the comment without its leading space
      }
      rec.phase("write", save_output(out, c));
      rec.emit(c.timing);
      return report.converged ? 0 : 1;
    });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return mm::dist::run_tool("mmsolve", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmsolve",
        "A b [--method M] [--tol t] [--max-iter k] [--restart m] [--precond none|jacobi]",
        "Solves A x = b for a square A and b with one or more columns (n x k); writes x (n x k\n"
        "array). Methods: lu (dense, partial pivoting), gauss (dense, no pivoting: unstable,\n"
        "warned), umfpack (SuiteSparse sparse LU, real), cg (symmetric positive definite),\n"
        "bicgstab, gmres (restarted every --restart steps); the iterative ones start from x = 0,\n"
        "stop at ||b-Ax|| <= tol ||b||, and take --precond jacobi. auto (default; -v says which\n"
        "and why): lu for array files, n <= 1000 or > 10% fill; cg for sparse Hermitian A with a\n"
        "positive diagonal; else umfpack (real) or gmres (complex). Iterations and the final\n"
        "||b-Ax||/||b|| go to stderr. Not converged: exit 1, x still written with a comment line\n"
        "'% mmsolve: not converged after N iterations, relative residual R'. Zero pivot or\n"
        "singular matrix: exit 5, as for a direct method (lu, gauss, umfpack) whose backward\n"
        "error ||b-Ax||/(||A||_F ||x|| + ||b||) exceeds 1e-6 (single: 1e-2): nothing written.\n"
        "A dense method whose matrix and factors exceed --max-memory: exit 4.\n"
        "Work (flops): lu and gauss 2/3 n^3 + 2 n^2 k; umfpack: UMFPACK's factorization count +\n"
        "4 nnz(LU) k; per iteration cg 2 nnz + 10 n, bicgstab 4 nnz + 20 n, gmres step j\n"
        "2 nnz + 4 n (j+1) + 6 n (+ n per preconditioner application; x4 complex). Bytes: the\n"
        "matrix once per pass (dense: 2 n^2 values; sparse: the CSR per SpMV) + b and x.\n"
        "--method lu --impl cuda-blocked takes mmlu's tuning keys (--tune help) and --profile.",
        "mmgen poisson2d --n 100 -o A.mtx && mmgen rhs A.mtx -o b.mtx && mmsolve A.mtx b.mtx -v -o "
        "x.mtx\n"
        "mmsolve A.mtx b.mtx --method cg --precond jacobi --tol 1e-10 | mmcheck residual A.mtx - "
        "b.mtx\n"
        "mmsolve A.mtx b.mtx --method gmres --restart 50 --max-iter 5000 --impl ref -o x.mtx\n"
        "mmsolve A.mtx B.mtx --method lu --impl cpu-blocked --repeat 5 -q --timing -\n"
        "mmsolve A.mtx b.mtx --method umfpack -o x.mtx\n"
        "mmsolve A.mtx b.mtx --method cg --device cuda --check-every 50 -q --timing -\n"
        "mpirun -np 4 mmsolve A.mtx b.mtx --method cg --precond jacobi -o x.mtx\n"
        "mmsolve --list-impls");
    cli.compute().tuning({mm::LuTuning::keys()}).profiling().positional("files", -1);
    cli.options()("method", mm::po::value<std::string>()->default_value("auto"),
                  "auto, lu, gauss, umfpack, cg, bicgstab or gmres")(
        "tol", mm::po::value<double>()->default_value(1e-8),
        "iterative: relative residual to reach")("max-iter",
                                                 mm::po::value<std::int64_t>()->default_value(1000),
                                                 "iterative: most iterations per column")(
        "restart", mm::po::value<int>()->default_value(30), "gmres: inner steps per restart cycle")(
        "check-every", mm::po::value<int>()->default_value(mm::IterOptions{}.check_every),
        "iterative, cuda: read the device's stop flag every this many iterations (counts stay "
        "exact)")("precond", mm::po::value<std::string>()->default_value("none"),
                  "iterative: none or jacobi");
    mm::dist::add_options(cli);
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
