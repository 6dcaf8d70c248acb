// mmspmv: y = alpha*A*x + beta*y0 for a sparse (or dense) matrix A.
#include <iostream>

#include "analysis/generate.hpp"
#include "device_memory.hpp"
#include "dist/agree.hpp"
#include "dist/options.hpp"
#include "dist/spmv_tool.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"
#include "spmv.hpp"

namespace {

using namespace mm;

// x from --x ones|random|range by mmgen's generator: exactly the vector that
// `mmgen vector --n N --kind KIND --seed SEED` writes (random: uniform in [0, 1)).
template <class T>
std::vector<T> make_x(const std::string& kind, std::int64_t n, std::uint64_t seed) {
  GenOptions o;
  o.kind = "vector";
  o.n = n;
  o.seed = seed;
  o.vector_kind = kind;
  const MtxMatrix v = generate(o);
  return std::vector<T>(v.real.begin(), v.real.end());
}

// Stand-in with the expanded nonzero count of a stored triangle, for the flop formula.
template <class I, class T>
Csr<I, T> expanded_pattern(const Csr<I, T>& stored) {
  std::int64_t diag = 0;
  for (std::int64_t i = 0; i < stored.rows; ++i)
    for (auto k = stored.ptr[i]; k < stored.ptr[i + 1]; ++k) diag += stored.idx[k] == i;
  Csr<I, T> e;
  e.rows = stored.rows;
  e.cols = stored.cols;
  e.val.resize(static_cast<std::size_t>(2 * stored.nnz() - diag));
  return e;
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  if (c.list_impls) {
    std::cout << format_impls(spmv_impls<std::int32_t, double>(), c.list_all);
    return 0;
  }
  const auto files = cli.positionals("files");
  const std::string xkind = cli.has("x") ? cli.get<std::string>("x") : "";
  if (files.empty() || files.size() > 2 || (files.size() == 2) == !xkind.empty())
    throw UsageError(
        "give A and either a vector file x or --x ones|random|range (see mmspmv --help)");
  if (!xkind.empty() && xkind != "ones" && xkind != "random" && xkind != "range")
    throw UsageError("--x must be ones, random or range, not '" + xkind + "'");
  const double beta = cli.get<double>("beta");
  if (beta != 0 && !cli.has("y0")) throw UsageError("--beta needs --y0 PATH");
  const SpmvTuning tuning = SpmvTuning::from(cli.tune());  // bad values: exit 2, before reading
  if (dist::wanted(cli)) return dist::spmv_tool(cli);      // under mpirun: lib/dist/
  const Device device = resolve_device(c.device, c.verbose, "mmspmv");

  TimingRecord rec("mmspmv");
  rec.precision(c.precision);
  // The plan, from A's header: A as CSR (expanded), x, y, y0 and y written; on the GPU the
  // CSR and the vectors. A dimension-sized y and x are refused here, before any is allocated.
  ToolPlan plan;
  plan.device_budget = device_budget(
      runs_on_cuda(spmv_impls<std::int32_t, double>(), c.impl, device) ? device : Device::cpu,
      c.device_cap());
  const Input a = load_input(files[0], c, "mmspmv", plan, [&](const PlanInput& in, ToolPlan& p) {
    const bool complex = in.h.field == Field::complex;
    const double v = value_size(c.precision, complex),
                 ix = index_size(in.h.rows, in.h.cols, 2 * in.entries);
    const double rows = static_cast<double>(in.h.rows), cols = static_cast<double>(in.h.cols);
    plan_csr(p.host, in, ix, v);
    // A file's x is read, made dense, then copied; a generated one is mmgen's vector first.
    p.host.add("x", cols * v + cols * (xkind.empty() ? v : 8));
    p.host.add("y", rows * v);
    if (cli.has("y0")) p.host.add("y0", 2 * rows * v);
    if (!c.quiet) plan_output(p.host, "y", rows, false, complex, thread_count(c.threads));
    p.device.add("A as CSR", csr_bytes(in.h.rows, in.expanded, ix, v));
    p.device.add("x, y" + std::string(cli.has("y0") ? ", y0" : ""),
                 (cols + rows * (cli.has("y0") ? 2 : 1)) * v);
  });
  record_input(rec, a);
  std::optional<Input> xin, y0in;
  if (files.size() == 2) record_input(rec, *(xin = load_input(files[1], c, "mmspmv", plan)));
  if (cli.has("y0"))
    record_input(rec, *(y0in = load_input(cli.get<std::string>("y0"), c, "mmspmv", plan)));
  const MtxHeader& h = a.m.header;
  const bool complex = h.field == Field::complex ||
                       (xin && xin->m.header.field == Field::complex) ||
                       (y0in && y0in->m.header.field == Field::complex);

  return with_value_type(c.precision, complex, [&]<class T>() {
    return with_index_type(h.rows, h.cols, a.m.size() * 2, [&]<class I>() {
      Stopwatch w;
      SpmvProblem<I, T> p;
      Csr<I, T> full, stored;
      // None named: the default for A's row statistics (on the GPU, a kernel per matrix).
      if (c.impl.empty()) full = coo_to_csr(to_coo<I, T>(a.m));
      const auto& impl = c.impl.empty() ? spmv_default_impl(full, device)
                                        : pick_impl(spmv_impls<I, T>(), "spmv", c.impl, device);
      const bool triangle = impl.make.input == SpmvInput::stored_triangle;  // what it reads
      if (triangle) {
        if (h.symmetry == Symmetry::general)
          throw InputError(
              a.path, 0,
              "--impl " + impl.name + " needs a symmetric, skew-symmetric or hermitian file");
        stored = coo_to_csr(to_coo<I, T>(a.m, /*expand=*/false));
        p.stored = &stored;
        p.symmetry = h.symmetry;
      }
      if (!c.impl.empty()) full = triangle ? Csr<I, T>{} : coo_to_csr(to_coo<I, T>(a.m));
      p.full = triangle ? &stored : &full;
      const std::vector<T> x = xin ? vector_values<T>(*xin, h.cols, "x")
                                   : make_x<T>(xkind, h.cols, cli.get<std::uint64_t>("seed"));
      const std::vector<T> y0 = y0in ? vector_values<T>(*y0in, h.rows, "y0") : std::vector<T>{};
      Dense<T> y(h.rows, 1);
      p.x = x.data();
      p.y0 = y0.empty() ? nullptr : y0.data();
      p.y = y.data.data();
      p.alpha = T(cli.get<double>("alpha"));
      p.beta = T(beta);
      rec.phase("convert", w.seconds());

      auto runner = impl.make(p, tuning);
      const Measured m = measure(*runner, c.warmup, c.repeat);
      record_measured(rec, m);
      warn_unused_tuning("mmspmv", cli.tune(), m.tuning, impl.name);
      // Flops of the whole product, whichever triangle is stored; bytes of what is read.
      rec.impl(impl.name).work(spmv_flops(full.rows ? full : expanded_pattern(stored)),
                               spmv_bytes(*p.full, beta != 0));
      if (c.verbose)
        std::cerr << "mmspmv: " << impl.name << " on " << m.device << ": median "
                  << m.compute.median << " s over " << m.compute.repeats << " runs\n";
      rec.phase("write", save_output(to_mtx(y), c));
      rec.emit(c.timing);
      return 0;
    });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return mm::dist::run_tool("mmspmv", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmspmv", "A (x | --x ones|random|range) [options]",
        "Sparse matrix-vector product y = alpha*A*x + beta*y0, written as an n x 1 array.\n"
        "Work: flops = 2*nnz (8*nnz complex); bytes = nnz*(value+index) + (rows+1)*index\n"
        "+ cols*value (x) + rows*value (y, twice when beta != 0).\n"
        "On the GPU the default is chosen from A's row lengths (mean, max, spread):\n"
        "cuda-vector-k for even rows, cuda-adaptive where a few very long rows hold much of\n"
        "A, cusparse for spread rows between; the record's impl names it.\n"
        "Tuning of the GPU kernels: --tune lanes=K, items=N, l2=MODE (--tune help).",
        "mmspmv A.mtx x.mtx -o y.mtx\n"
        "mmgen poisson2d --n 1000 | mmspmv - --x ones | mmcheck info -\n"
        "mmspmv A.mtx --x random --seed 3 --impl cpu-sym --repeat 10 --warmup 2 -q --timing -\n"
        "mmspmv A.mtx x.mtx --alpha 2 --beta -1 --y0 y.mtx\n"
        "mpirun -np 4 mmspmv A.mtx --x ones -o y.mtx");
    cli.compute().tuning({mm::SpmvTuning::keys()}).positional("files", -1);
    cli.options()("x", mm::po::value<std::string>(),
                  "x generated as mmgen vector --kind makes it: ones, random (uniform in [0,1)) "
                  "or range (1..n)")("seed", mm::po::value<std::uint64_t>()->default_value(1),
                                     "seed for --x random (mmgen vector's --seed)")(
        "alpha", mm::po::value<double>()->default_value(1.0), "scale of A*x")(
        "beta", mm::po::value<double>()->default_value(0.0), "scale of y0 (needs --y0)")(
        "y0", mm::po::value<std::string>(), "the vector beta scales");
    mm::dist::add_options(cli);
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
