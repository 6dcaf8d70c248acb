// mmlu: dense LU with partial pivoting, PA = LU, written packed (and optionally split).
#include <omp.h>

#include <iostream>

#include "device_memory.hpp"
#include "lu.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"
#include "vendor/openblas.hpp"

namespace {

using namespace mm;

MtxMatrix pivots_mtx(const std::vector<std::int64_t>& ipiv) {
  MtxMatrix m;
  m.header.format = Format::array;
  m.header.field = Field::integer;
  m.header.rows = static_cast<std::int64_t>(ipiv.size());
  m.header.cols = 1;
  m.header.nnz = m.header.rows;
  m.integer = ipiv;
  return m;
}

// L (unit lower), U and the permutation P with PA = LU, from the packed factors.
template <class T>
std::vector<MtxMatrix> split_factors(const Dense<T>& lu, const std::vector<std::int64_t>& ipiv) {
  const std::int64_t n = lu.rows;
  Dense<T> l(n, n), u(n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (j < i)
        l(i, j) = lu(i, j);
      else
        u(i, j) = lu(i, j);
    }
  for (std::int64_t i = 0; i < n; ++i) l(i, i) = T(1);
  // Row i of PA is row perm[i] of A: the swaps replayed on the identity order.
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) perm[i] = i;
  for (std::int64_t i = 0; i < n; ++i) std::swap(perm[i], perm[ipiv[i] - 1]);
  MtxMatrix p;
  p.header.format = Format::coordinate;
  p.header.field = Field::integer;
  p.header.rows = p.header.cols = p.header.nnz = n;
  for (std::int64_t i = 0; i < n; ++i) {
    p.row.push_back(i);
    p.col.push_back(perm[i]);
    p.integer.push_back(1);
  }
  return {to_mtx(l), to_mtx(u), std::move(p)};
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  if (c.list_impls) {
    std::cout << format_impls(lu_impls<double>(), c.list_all);
    return 0;
  }
  const auto files = cli.positionals("A");
  if (files.size() != 1) throw UsageError("give one matrix A (see mmlu --help)");
  const LuTuning tuning = LuTuning::from(cli.tune());  // bad values: exit 2, before reading
  std::vector<std::string> split;
  if (cli.has("split")) {
    split = cli.get<std::vector<std::string>>("split");
    if (split.size() != 3) throw UsageError("--split takes three paths: L U P");
  }
  const Device device = resolve_device(c.device, c.verbose, "mmlu");
  const int threads = thread_count(c.threads);
  set_openblas_threads(threads);  // OpenMP's count is set by Cli::parse

  TimingRecord rec("mmlu");
  rec.precision(c.precision);
  // The plan: A dense, LU and the pivots, LU to write, and with --split L, U and P apart; on
  // the GPU A and its factors.
  ToolPlan plan;
  plan.device_budget = device_budget(
      runs_on_cuda(lu_impls<double>(), c.impl, device) ? device : Device::cpu, c.device_cap());
  const Input a = load_input(files[0], c, "mmlu", plan, [&](const PlanInput& in, ToolPlan& p) {
    const bool complex = in.h.field == Field::complex;
    const double v = value_size(c.precision, complex);
    const double n = static_cast<double>(in.h.rows), nn = n * static_cast<double>(in.h.cols);
    plan_dense(p.host, in, v);
    p.host.add("LU and pivots", nn * v + n * 8);
    if (!c.quiet) {
      plan_output(p.host, "LU", nn, false, complex, threads);
      if (!split.empty()) plan_output(p.host, "L and U", 2 * nn, false, complex, threads);
      p.host.add("L and U dense, P", split.empty() ? 0 : 2 * nn * v + n * 24);
    }
    p.device.add("A and LU", 2 * nn * v + n * 8);
  });
  record_input(rec, a);
  const MtxHeader& h = a.m.header;
  if (!h.is_square())
    throw InputError(a.path, 0,
                     "LU needs a square matrix, this one is " + std::to_string(h.rows) + " x " +
                         std::to_string(h.cols));

  return with_value_type(c.precision, h.field == Field::complex, [&]<class T>() {
    const std::int64_t n = h.rows;
    const auto& impl = c.impl.empty() ? lu_default_impl<T>(n, device)
                                      : pick_impl(lu_impls<T>(), "lu", c.impl, device);
    Stopwatch w;
    const Dense<T> dense = to_dense<T>(a.m);
    Dense<T> lu(n, n);
    std::vector<std::int64_t> ipiv(static_cast<std::size_t>(n));
    rec.phase("convert", w.seconds());

    LuProblem<T> p{&dense, &lu, &ipiv, tuning, c.profile};
    auto runner = impl.make(p);
    const Measured m = measure(*runner, c.warmup, c.repeat);
    record_measured(rec, m);
    warn_unused_tuning("mmlu", cli.tune(), m.tuning, impl.name);
    if (c.profile > 0 && m.profile.is_null())
      std::cerr << "mmlu: warning: --profile: " << impl.name << " has no profile\n";
    rec.impl(impl.name).work(lu_flops<T>(n), lu_bytes<T>(n));
    if (c.verbose)
      std::cerr << "mmlu: " << impl.name << " on " << m.device << ": median " << m.compute.median
                << " s over " << m.compute.repeats << " runs, "
                << lu_flops<T>(n) / m.compute.median * 1e-9 << " GFLOP/s\n";

    w.restart();
    if (!c.quiet) {
      std::vector<MtxMatrix> parts =
          split.empty() ? std::vector<MtxMatrix>{} : split_factors(lu, ipiv);
      save_output(to_mtx(lu), c);
      const WriteOptions wo{threads};
      if (cli.has("pivots")) write_mtx(cli.get<std::string>("pivots"), pivots_mtx(ipiv), wo);
      for (std::size_t k = 0; k < parts.size(); ++k) write_mtx(split[k], parts[k], wo);
    }
    rec.phase("write", w.seconds());
    rec.emit(c.timing);
    return 0;
  });
}

}  // namespace

int main(int argc, char** argv) {
  return mm::run_tool("mmlu", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmlu", "A [--pivots p.mtx] [--split L.mtx U.mtx P.mtx] [options]",
        "Dense LU with partial pivoting, PA = LU. Writes the packed factors as an n x n array\n"
        "(unit lower L strictly below the diagonal, U on and above it); --pivots writes LAPACK's\n"
        "ipiv (1-based: at step i row i was swapped with row ipiv[i]) as an n x 1 array integer\n"
        "file, the form 'mmcheck lu A LU pivots' reads; --split writes L, U (arrays) and the\n"
        "permutation P (coordinate integer) with PA = LU. A sparse A is made dense first.\n"
        "Work: flops = 2/3 n^3 (8/3 n^3 complex); bytes = 2 n^2 * value (A read, LU written)\n"
        "+ 8 n (pivots). An exact zero pivot (singular A) exits 5 naming the column; a\n"
        "non-square A exits 3; A whose dense form and factors exceed --max-memory exits 4.\n"
        "Tuning of cuda-blocked (panel width, leaves, graph): --tune KEY=VALUE (--tune help\n"
        "lists the keys); the values used go into the timing record. --profile prints where\n"
        "cuda-blocked's device time goes (--profile=2: also the leaf's phases) and records it.",
        "mmlu A.mtx -o LU.mtx --pivots p.mtx && mmcheck lu A.mtx LU.mtx p.mtx\n"
        "mmgen dense --n 500 --lo -1 --hi 1 | mmlu - --impl cpu-blocked -q --repeat 5 --timing -\n"
        "mmlu A.mtx --split L.mtx U.mtx P.mtx -o LU.mtx\n"
        "mmlu A.mtx --device cuda --impl cuda-blocked --tune leaf=grid --profile -q --timing -\n"
        "mmlu --list-impls");
    cli.compute().tuning({mm::LuTuning::keys()}).profiling().positional("A", -1);
    cli.options()("pivots", mm::po::value<std::string>(),
                  "write the pivots (n x 1 array integer) here")(
        "split", mm::po::value<std::vector<std::string>>()->multitoken(),
        "write L, U and P to these three paths");
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
