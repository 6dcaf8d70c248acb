// mmadd: C = alpha*A + beta*B for dense (array) and sparse (coordinate) matrices in any mix.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "add.hpp"
#include "device_memory.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"

namespace {

using namespace mm;

// --alpha / --beta: a real number, or a complex one written "re,im".
std::complex<double> parse_scalar(const std::string& text, const char* option) {
  auto number = [&](const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
      throw UsageError(std::string(option) + " must be a number or re,im, not '" + text + "'");
    return v;
  };
  const auto comma = text.find(',');
  if (comma == std::string::npos) return {number(text), 0.0};
  return {number(text.substr(0, comma)), number(text.substr(comma + 1))};
}

std::string shape(const MtxHeader& h) {
  return std::to_string(h.rows) + " x " + std::to_string(h.cols);
}

// Integer inputs with integral scales give an integer file, as long as every value is an
// exact integer in a double (|v| <= 2^53); otherwise the result stays real.
void keep_integer_field(MtxMatrix& m) {
  std::vector<std::int64_t> ints(m.real.size());
  for (std::size_t k = 0; k < m.real.size(); ++k) {
    const double v = m.real[k];
    if (!(std::abs(v) <= 0x1p53) || v != std::trunc(v)) return;
    ints[k] = static_cast<std::int64_t>(v);
  }
  m.header.field = Field::integer;
  m.integer = std::move(ints);
  m.real.clear();
}

bool integral(std::complex<double> s) {
  return s.imag() == 0 && s.real() == std::trunc(s.real());
}

// What C = alpha A + beta B holds: each operand dense (array) or as CSR, C dense or as CSR (at
// most the two operands' entries), C to write; on the GPU the operands and C.
void plan_add(const PlanInput& a, const PlanInput& b, const CommonOptions& c, bool complex_scale,
              ToolPlan& p) {
  const bool complex = complex_scale || a.h.field == Field::complex || b.h.field == Field::complex;
  const double v = value_size(c.precision, complex),
               ix = index_size(a.h.rows, a.h.cols, 2 * (a.entries + b.entries));
  const bool sparse = a.h.format == Format::coordinate && b.h.format == Format::coordinate;
  double device = 0;
  for (const PlanInput* in : {&a, &b}) {
    if (in->h.format == Format::array) {
      plan_dense(p.host, *in, v);
      device += dense_bytes(in->h.rows, in->h.cols, v);
    } else {
      plan_csr(p.host, *in, ix, v);
      device += csr_bytes(in->h.rows, in->expanded, ix, v);
    }
  }
  const double out = sparse ? a.expanded + b.expanded
                            : static_cast<double>(a.h.rows) * static_cast<double>(a.h.cols);
  const double result = sparse ? csr_bytes(a.h.rows, out, ix, v) : out * v;
  p.host.add("C", result);
  // to_mtx of a CSR goes through a COO copy; integer results a copy of the values as integers.
  p.host.add("C converted", sparse ? coo_bytes(out, ix, v) : 0);
  p.host.add("C as integers", a.h.field == Field::integer ? out * 8 : 0);
  plan_output(p.host, "C", out, sparse, complex, thread_count(c.threads));
  p.device.add("A, B and C", device + result);
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  if (c.list_impls) {
    std::cout << format_impls(add_impls<std::int32_t, double>(), c.list_all);
    return 0;
  }
  const auto files = cli.positionals("files");
  if (files.size() != 2) throw UsageError("give two matrices A and B (see mmadd --help)");
  const auto alpha = parse_scalar(cli.get<std::string>("alpha"), "--alpha");
  const auto beta = parse_scalar(cli.get<std::string>("beta"), "--beta");
  const Device device = resolve_device(c.device, c.verbose, "mmadd");

  TimingRecord rec("mmadd");
  rec.precision(c.precision);
  ToolPlan plan;
  plan.device_budget = device_budget(
      runs_on_cuda(add_impls<std::int32_t, double>(), c.impl, device) ? device : Device::cpu,
      c.device_cap());
  std::optional<PlanInput> pa;  // A's header, for the plan made at B's
  const Input a =
      load_input(files[0], c, "mmadd", plan, [&](const PlanInput& in, ToolPlan&) { pa = in; });
  record_input(rec, a);
  const Input b = load_input(files[1], c, "mmadd", plan, [&](const PlanInput& pb, ToolPlan& p) {
    plan_add(*pa, pb, c, alpha.imag() != 0 || beta.imag() != 0, p);
  });
  record_input(rec, b);
  const MtxHeader &ha = a.m.header, &hb = b.m.header;
  if (ha.rows != hb.rows || ha.cols != hb.cols)
    throw InputError("shapes differ: A (" + a.path + ") is " + shape(ha) + " but B (" + b.path +
                     ") is " + shape(hb));
  const bool dense_a = ha.format == Format::array, dense_b = hb.format == Format::array;
  const unsigned kind = dense_a && dense_b     ? add_dense
                        : !dense_a && !dense_b ? add_sparse
                                               : add_mixed;
  const bool complex = ha.field == Field::complex || hb.field == Field::complex ||
                       alpha.imag() != 0 || beta.imag() != 0;
  const bool integer_out = ha.field == Field::integer && hb.field == Field::integer &&
                           integral(alpha) && integral(beta) && c.precision == "double";

  return with_value_type(c.precision, complex, [&]<class T>() {
    return with_index_type(ha.rows, ha.cols, 2 * (a.m.size() + b.m.size()), [&]<class I>() {
      // Elements (dense or mixed) or stored entries (sparse) decide whether threads pay.
      const std::int64_t size = kind == add_sparse ? a.m.size() + b.m.size() : ha.rows * ha.cols;
      const auto& impl = pick_add_impl<I, T>(kind, size, thread_count(c.threads), c.impl, device);
      Stopwatch w;
      Dense<T> da, db, dc;
      Csr<I, T> sa, sb, sc;
      AddProblem<I, T> p;
      if (dense_a)
        p.a.dense = &(da = to_dense<T>(a.m));
      else
        p.a.sparse = &(sa = coo_to_csr(to_coo<I, T>(a.m)));
      if (dense_b)
        p.b.dense = &(db = to_dense<T>(b.m));
      else
        p.b.sparse = &(sb = coo_to_csr(to_coo<I, T>(b.m)));
      p.alpha = value_cast<T>(alpha);
      p.beta = value_cast<T>(beta);
      if (kind == add_sparse)
        p.sparse_out = &sc;
      else
        p.dense_out = &(dc = Dense<T>(ha.rows, ha.cols));
      p.threads = thread_count(c.threads);
      rec.phase("convert", w.seconds());

      auto runner = impl.make(p);
      const Measured m = measure(*runner, c.warmup, c.repeat);
      record_measured(rec, m);
      rec.impl(impl.name);
      if (kind == add_dense)
        rec.work(add_dense_flops<T>(ha.rows, ha.cols), add_dense_bytes<T>(ha.rows, ha.cols));
      else if (kind == add_mixed)
        rec.work(add_mixed_flops(dense_a ? sb : sa), add_mixed_bytes(dense_a ? sb : sa));
      else
        rec.work(add_sparse_flops(sa, sb, sc), add_sparse_bytes(sa, sb, sc));
      if (c.verbose)
        std::cerr << "mmadd: " << add_kinds_text(kind) << " by " << impl.name << " on " << m.device
                  << ": median " << m.compute.median << " s over " << m.compute.repeats
                  << " runs\n";
      MtxMatrix out = kind == add_sparse ? to_mtx(sc) : to_mtx(dc);
      if constexpr (!is_complex_v<T>) {
        if (integer_out) keep_integer_field(out);
      }
      rec.phase("write", save_output(out, c));
      rec.emit(c.timing);
      return 0;
    });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return mm::run_tool("mmadd", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmadd", "A B [--alpha a] [--beta b] [options]",
        "Matrix sum C = alpha*A + beta*B of two matrices of the same shape.\n"
        "Array files are dense, coordinate files sparse (symmetric kinds expanded, duplicates\n"
        "summed). dense+dense and dense+sparse give a dense array; sparse+sparse gives a general\n"
        "coordinate file on the union of the two patterns (columns sorted; an entry that cancels\n"
        "to zero is kept). Complex when either input or a scale is complex; integer when both\n"
        "inputs are integer and the scales integral.\n"
        "Work: dense+dense flops = 3*rows*cols (2 products + 1 sum; 14 per element complex),\n"
        "bytes = 3*rows*cols*value (read A, read B, write C). dense+sparse flops =\n"
        "rows*cols + 2*nnz(S), bytes = 2*rows*cols*value + CSR of S. sparse+sparse flops =\n"
        "nnz(A)+nnz(B) products + (nnz(A)+nnz(B)-nnz(C)) sums, bytes = the CSR arrays of A, B\n"
        "and C, each once (complex: 6 flops a product, 2 a sum).",
        "mmadd A.mtx B.mtx -o C.mtx\n"
        "mmgen dense --rows 500 --cols 300 | mmadd - B.mtx --alpha 2 --beta -1\n"
        "mmadd A.mtx B.mtx --alpha 0.5,1 --beta 1      (complex alpha = 0.5 + i)\n"
        "mmadd sparse.mtx dense.mtx --impl ref -o C.mtx\n"
        "mmadd A.mtx B.mtx --impl openblas --repeat 10 --warmup 2 -q --timing -\n"
        "mmadd --list-impls");
    cli.compute().positional("files", -1);
    cli.options()("alpha", mm::po::value<std::string>()->default_value("1"),
                  "scale of A: a real number, or re,im")(
        "beta", mm::po::value<std::string>()->default_value("1"),
        "scale of B: a real number, or re,im");
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
