// mmmul: C = alpha*A*B for dense or sparse A and B (GEMM, SpGEMM, SpMM, dense x sparse).
#include <omp.h>

#include <iostream>
#include <optional>

#include "device_memory.hpp"
#include "gemm.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"
#include "spgemm.hpp"
#include "vendor/openblas.hpp"

namespace {

using namespace mm;

enum class Mode { gemm, spgemm, spmm, dsmm };

const char* mode_title(Mode m) {
  switch (m) {
    case Mode::gemm:
      return "gemm (dense x dense -> dense)";
    case Mode::spgemm:
      return "spgemm (sparse x sparse -> sparse)";
    case Mode::spmm:
      return "spmm (sparse x dense -> dense)";
    default:
      return "dsmm (dense x sparse -> dense)";
  }
}

const char* mode_name(Mode m) {
  return m == Mode::gemm     ? "gemm"
         : m == Mode::spgemm ? "spgemm"
         : m == Mode::spmm   ? "spmm"
                             : "dsmm";
}

// --mode auto: array files are dense operands, coordinate files sparse ones.
Mode pick_mode(const std::string& word, const MtxHeader& a, const MtxHeader& b) {
  if (word == "gemm") return Mode::gemm;
  if (word == "spgemm") return Mode::spgemm;
  if (word == "spmm") return Mode::spmm;
  if (word == "dsmm") return Mode::dsmm;
  const bool da = a.format == Format::array, db = b.format == Format::array;
  return da ? (db ? Mode::gemm : Mode::dsmm) : (db ? Mode::spmm : Mode::spgemm);
}

// The whole matrix as CSR; array files keep only their nonzero values.
template <class I, class T>
Csr<I, T> as_csr(const MtxMatrix& m) {
  if (m.header.format == Format::array) return coo_to_csr(dense_to_coo<I, T>(to_dense<T>(m)));
  return coo_to_csr(to_coo<I, T>(m));
}

// Entries a matrix may have once expanded: the index type must count them.
std::int64_t entry_bound(const MtxHeader& h) {
  return h.format == Format::array ? h.rows * h.cols : 2 * h.nnz;
}

struct Context {
  const CommonOptions& c;
  const TuneArgs& tune;    // --tune, for the warning about keys an implementation ignored
  const GemmTuning& gemm;  // its GEMM keys, parsed before anything is read
  Device device;           // resolved --device: the product's implementations on it are chosen
  TimingRecord& rec;
  Stopwatch convert;  // restarted once the inputs are read
};

// Runs IMPL's runner under the timer, records work and phases, and writes OUT().
template <class Impl, class Problem, class Out>
int execute(Context& x, const Impl& impl, const Problem& p, double flops,
            const std::function<double()>& bytes, const Out& out) {
  x.rec.phase("convert", x.convert.seconds());
  auto runner = impl.make(p);
  const Measured m = measure(*runner, x.c.warmup, x.c.repeat);
  record_measured(x.rec, m);
  warn_unused_tuning("mmmul", x.tune, m.tuning, impl.name);
  x.rec.impl(impl.name).work(flops, bytes());
  if (x.c.verbose)
    std::cerr << "mmmul: " << impl.name << " on " << m.device << ": median " << m.compute.median
              << " s over " << m.compute.repeats << " runs, " << flops / m.compute.median * 1e-9
              << " GFLOP/s\n";
  x.rec.phase("write", save_output(out(), x.c));
  x.rec.emit(x.c.timing);
  return 0;
}

template <class T>
int run_gemm(Context& x, const Input& a, const Input& b, T alpha) {
  const auto& impl = pick_impl(gemm_impls<T>(), "gemm", x.c.impl, x.device);
  const Dense<T> da = to_dense<T>(a.m), db = to_dense<T>(b.m);
  Dense<T> dc(da.rows, db.cols);
  const std::int64_t m = da.rows, n = db.cols, k = da.cols;
  return execute(
      x, impl, GemmProblem<T>{&da, &db, &dc, alpha, x.gemm}, gemm_flops(m, n, k, is_complex_v<T>),
      [&] { return gemm_bytes(m, n, k, sizeof(T)); }, [&] { return to_mtx(dc); });
}

template <class I, class T>
int run_sparse(Context& x, Mode mode, const Input& a, const Input& b, T alpha) {
  const std::int64_t m = a.m.header.rows, k = a.m.header.cols, n = b.m.header.cols;
  const double value = sizeof(T);
  if (mode == Mode::spgemm) {
    const auto& impl = pick_impl(spgemm_impls<I, T>(), "spgemm", x.c.impl, x.device);
    const Csr<I, T> sa = as_csr<I, T>(a.m), sb = as_csr<I, T>(b.m);
    Csr<I, T> sc;
    return execute(
        x, impl, SpgemmProblem<I, T>{&sa, &sb, &sc, alpha},
        product_flops<T>(spgemm_products(sa, sb)),
        [&] { return csr_bytes(sa) + csr_bytes(sb) + csr_bytes(sc); }, [&] { return to_mtx(sc); });
  }
  if (mode == Mode::spmm) {
    const auto& impl = pick_impl(spmm_impls<I, T>(), "spmm", x.c.impl, x.device);
    const Csr<I, T> sa = as_csr<I, T>(a.m);
    const Dense<T> db = to_dense<T>(b.m);
    Dense<T> dc(m, n);
    return execute(
        x, impl, SpmmProblem<I, T>{&sa, &db, &dc, alpha},
        product_flops<T>(static_cast<double>(sa.nnz()) * static_cast<double>(n)),
        [&] { return csr_bytes(sa) + static_cast<double>(k * n + m * n) * value; },
        [&] { return to_mtx(dc); });
  }
  const auto& impl = pick_impl(dsmm_impls<I, T>(), "dsmm", x.c.impl, x.device);
  const Dense<T> da = to_dense<T>(a.m);
  const Csr<I, T> sb = as_csr<I, T>(b.m);
  Dense<T> dc(m, n);
  return execute(
      x, impl, DsmmProblem<I, T>{&da, &sb, &dc, alpha},
      product_flops<T>(static_cast<double>(m) * static_cast<double>(sb.nnz())),
      [&] { return csr_bytes(sb) + static_cast<double>(m * k + m * n) * value; },
      [&] { return to_mtx(dc); });
}

// What C = alpha A B holds in MODE: the operands dense or as CSR (an array file as CSR passes
// through its dense form), C dense (m x n) or, for spgemm, its row pointers (C's entries are
// known only once the product's pass counts them); on the GPU the operands and C.
void plan_mul(const PlanInput& a, const PlanInput& b, Mode mode, const CommonOptions& c,
              Device device, ToolPlan& p) {
  const bool complex = a.h.field == Field::complex || b.h.field == Field::complex;
  const double v = value_size(c.precision, complex);
  const double ix = index_size(std::max(a.h.rows, b.h.rows), std::max(a.h.cols, b.h.cols),
                               std::max(a.expanded, b.expanded));
  const bool dense_a = mode == Mode::gemm || mode == Mode::dsmm,
             dense_b = mode == Mode::gemm || mode == Mode::spmm;
  double device_bytes = 0;
  for (const auto& [in, dense] : {std::pair{&a, dense_a}, std::pair{&b, dense_b}}) {
    const bool array = in->h.format == Format::array;
    if (dense || array) plan_dense(p.host, *in, v);
    if (!dense) {
      PlanInput as_csr = *in;
      if (array)
        as_csr.expanded = static_cast<double>(in->h.rows) * static_cast<double>(in->h.cols);
      plan_csr(p.host, as_csr, ix, v);
    }
    device_bytes +=
        dense ? dense_bytes(in->h.rows, in->h.cols, v) : csr_bytes(in->h.rows, in->expanded, ix, v);
  }
  const double out = static_cast<double>(a.h.rows) * static_cast<double>(b.h.cols);
  if (mode == Mode::spgemm) {
    p.host.add("C's row pointers", (static_cast<double>(a.h.rows) + 1) * ix);
  } else {
    p.host.add("C", out * v);
    if (!c.quiet) plan_output(p.host, "C", out, false, complex, thread_count(c.threads));
    device_bytes += out * v;
  }
  p.device.add("A, B and C", device_bytes);
  const std::string& impl = c.impl;
  const bool gpu =
      mode == Mode::gemm     ? runs_on_cuda(gemm_impls<double>(), impl, device)
      : mode == Mode::spgemm ? runs_on_cuda(spgemm_impls<std::int32_t, double>(), impl, device)
      : mode == Mode::spmm   ? runs_on_cuda(spmm_impls<std::int32_t, double>(), impl, device)
                             : runs_on_cuda(dsmm_impls<std::int32_t, double>(), impl, device);
  p.device_budget = device_budget(gpu ? device : Device::cpu, c.device_cap());
}

template <class Make>
void list_section(Mode m, const ImplList<Make>& l, bool all) {
  std::cout << mode_title(m) << ":\n" << format_impls(l, all);
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  const std::string mode_word = cli.get<std::string>("mode");
  if (mode_word != "auto" && mode_word != "gemm" && mode_word != "spgemm" && mode_word != "spmm" &&
      mode_word != "dsmm")
    throw UsageError("--mode must be auto, gemm, spgemm, spmm or dsmm, not '" + mode_word + "'");
  if (c.list_impls) {  // for --precision: some kernels exist in one precision only
    auto list = [&]<class T>() {
      using I = std::int32_t;
      const bool all = mode_word == "auto";
      if (all || mode_word == "gemm") list_section(Mode::gemm, gemm_impls<T>(), c.list_all);
      if (all || mode_word == "spgemm")
        list_section(Mode::spgemm, spgemm_impls<I, T>(), c.list_all);
      if (all || mode_word == "spmm") list_section(Mode::spmm, spmm_impls<I, T>(), c.list_all);
      if (all || mode_word == "dsmm") list_section(Mode::dsmm, dsmm_impls<I, T>(), c.list_all);
    };
    if (c.precision == "single")
      list.operator()<float>();
    else
      list.operator()<double>();
    return 0;
  }
  const GemmTuning gemm_tuning = GemmTuning::from(cli.tune());  // a bad value: exit 2 now
  const auto files = cli.positionals("files");
  if (files.size() != 2) throw UsageError("give two matrices A and B (see mmmul --help)");
  if (files[0] == "-" && files[1] == "-")
    throw UsageError("only one of A and B can be standard input");
  // Without a GPU, cuda throws here (exit 4); on one, a product with no CUDA implementation
  // refuses --device cuda (pick_impl) and runs on the CPU under auto.
  const Device device = resolve_device(c.device, c.verbose, "mmmul");
  set_openblas_threads(c.threads);  // OpenMP: set by Cli::parse

  TimingRecord rec("mmmul");
  rec.precision(c.precision);
  ToolPlan plan;
  std::optional<PlanInput> pa;  // A's header, for the plan made at B's
  const Input a =
      load_input(files[0], c, "mmmul", plan, [&](const PlanInput& in, ToolPlan&) { pa = in; });
  record_input(rec, a);
  const Input b = load_input(files[1], c, "mmmul", plan, [&](const PlanInput& pb, ToolPlan& p) {
    plan_mul(*pa, pb, pick_mode(mode_word, pa->h, pb.h), c, device, p);
  });
  record_input(rec, b);
  const MtxHeader &ha = a.m.header, &hb = b.m.header;
  if (ha.cols != hb.rows)
    throw InputError("inner dimensions differ: A (" + a.path + ") is " + std::to_string(ha.rows) +
                     "x" + std::to_string(ha.cols) + ", B (" + b.path + ") is " +
                     std::to_string(hb.rows) + "x" + std::to_string(hb.cols));
  const Mode mode = pick_mode(mode_word, ha, hb);
  if (c.verbose) std::cerr << "mmmul: " << mode_title(mode) << "\n";
  rec.extra("mode", mode_name(mode));
  const bool complex = ha.field == Field::complex || hb.field == Field::complex;
  const double alpha = cli.get<double>("alpha");
  Context x{c, cli.tune(), gemm_tuning, device, rec, {}};
  return with_value_type(c.precision, complex, [&]<class T>() {
    if (mode == Mode::gemm) return run_gemm<T>(x, a, b, T(alpha));
    return with_index_type(std::max(ha.rows, hb.rows), std::max(ha.cols, hb.cols),
                           std::max(entry_bound(ha), entry_bound(hb)),
                           [&]<class I>() { return run_sparse<I, T>(x, mode, a, b, T(alpha)); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return mm::run_tool("mmmul", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmmul", "A B [--alpha a] [--mode auto|gemm|spgemm|spmm|dsmm] [options]",
        "Matrix product C = alpha*A*B. By default array files are dense operands and coordinate\n"
        "files sparse ones: dense x dense is GEMM (C dense), sparse x sparse SpGEMM (C sparse,\n"
        "general coordinate, entries sorted by row then column), sparse x dense SpMM and dense x\n"
        "sparse DSMM (C dense). --mode converts the operands to force one of them. Symmetric\n"
        "kinds are expanded; integer and pattern values are promoted to real. A's columns must\n"
        "equal B's rows (exit 3 otherwise).\n"
        "\n"
        "Work (8 instead of 2 flops per product for complex; csr = nnz*(value+index) + "
        "(rows+1)*index):\n"
        "  gemm    flops = 2*m*n*k;  bytes = (m*k + k*n + m*n)*value\n"
        "  spgemm  flops = 2*sum over a_ik of nnz(B row k);  bytes = csr(A) + csr(B) + csr(C)\n"
        "  spmm    flops = 2*nnz(A)*n;  bytes = csr(A) + (k*n + m*n)*value\n"
        "  dsmm    flops = 2*m*nnz(B);  bytes = csr(B) + (m*k + m*n)*value",
        "mmmul A.mtx B.mtx -o C.mtx\n"
        "mmgen dense --rows 500 --cols 300 | mmmul - W.mtx --alpha 0.5 > C.mtx\n"
        "mmmul datasets/corpus/west0479.mtx datasets/corpus/west0479.mtx -o W2.mtx\n"
        "mmmul S.mtx X.mtx --impl ref          # sparse x dense (X an array file)\n"
        "mmmul X.mtx S.mtx --precision single  # dense x sparse\n"
        "mmmul A.mtx B.mtx --mode gemm --impl openblas --repeat 5 --warmup 1 -q --timing -\n"
        "mmmul A.mtx B.mtx --mode gemm --impl cpu-blocked --tune microkernel=avx2 -q --timing -\n"
        "mmmul A.mtx B.mtx --device cuda --impl cuda-regblock -q --timing -  # GEMM on the GPU\n"
        "mmmul --list-impls --mode gemm");
    cli.compute().tuning({mm::GemmTuning::keys()}).positional("files", -1);
    cli.options()("alpha", mm::po::value<double>()->default_value(1.0), "scale of A*B")(
        "mode", mm::po::value<std::string>()->default_value("auto"),
        "auto (from the files' formats), gemm, spgemm, spmm (sparse A, dense B) or dsmm (dense A, "
        "sparse B)");
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
