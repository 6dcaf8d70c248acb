// mmtranspose: B = A^T (or A^H with --conjugate), dense out of place or in place, or sparse.
#include <omp.h>

#include <algorithm>
#include <iostream>
#include <numeric>

#include "device_memory.hpp"
#include "mm/cli.hpp"
#include "mm/dispatch.hpp"
#include "mm/error.hpp"
#include "mm/tool.hpp"
#include "mm/tool_io.hpp"
#include "transpose.hpp"

namespace {

using namespace mm;

// The kernel's value type for a file: int64 for integer files (a transpose only moves
// values, so they come back exact), else float/double (complex) by --precision.
template <class F>
decltype(auto) with_transpose_type(const std::string& precision, Field field, F&& f) {
  if (field == Field::integer) return f.template operator()<std::int64_t>();
  return with_value_type(precision, field == Field::complex, std::forward<F>(f));
}

template <class T>
T stored_value(const MtxMatrix& m, std::int64_t k) {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return m.integer[k];
  else
    return value_cast<T>(m.value(k));
}

// Appends V to M's value arrays in M's field (pattern: nothing).
template <class T>
void push_value(MtxMatrix& m, const T& v) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    m.integer.push_back(v);
  } else if constexpr (is_complex_v<T>) {
    m.real.push_back(static_cast<double>(v.real()));
    m.imag.push_back(static_cast<double>(v.imag()));
  } else if (m.header.field != Field::pattern) {
    m.real.push_back(static_cast<double>(v));
  }
}

// The output file's header: A's field and comments, general, ROWS x COLS.
MtxHeader out_header(const MtxHeader& a, std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  MtxHeader h = a;
  h.symmetry = Symmetry::general;
  h.rows = rows;
  h.cols = cols;
  h.nnz = nnz;
  return h;
}

std::string op_name(bool sparse, bool in_place) {
  return sparse     ? "sparse transpose"
         : in_place ? "in-place transpose"
                    : "dense transpose (add --in-place for cpu-inplace)";
}

// Symmetric kinds need no data movement: A^T is A (symmetric), -A (skew-symmetric) or
// conj(A) (hermitian), all of the same kind, so the stored triangle is returned with its
// values mapped (and conjugated once more for --conjugate). Coordinate entries are sorted
// by row then column. Values stay the file's own doubles: no --precision rounding.
class StoredRunner final : public Runner {
 public:
  StoredRunner(const MtxMatrix& a, MtxMatrix& out, bool conjugate) : a_(a), out_(out) {
    const Symmetry s = a.header.symmetry;
    negate_ = s == Symmetry::skew_symmetric;
    conj_ = (s == Symmetry::hermitian) != conjugate;
    order_.resize(static_cast<std::size_t>(a.header.nnz));
    std::iota(order_.begin(), order_.end(), std::int64_t{0});
    if (a.header.format == Format::coordinate)
      std::stable_sort(order_.begin(), order_.end(), [&](std::int64_t x, std::int64_t y) {
        return a.row[x] != a.row[y] ? a.row[x] < a.row[y] : a.col[x] < a.col[y];
      });
    out_.header = a.header;
    const auto n = order_.size();
    const bool coo = a.header.format == Format::coordinate;
    out_.row.resize(coo ? n : 0);
    out_.col.resize(coo ? n : 0);
    out_.real.resize(a.real.size());
    out_.imag.resize(a.imag.size());
    out_.integer.resize(a.integer.size());
  }
  void run() override {
    const double sign = negate_ ? -1.0 : 1.0, isign = conj_ ? -sign : sign;
    const auto n = static_cast<std::int64_t>(order_.size());
#pragma omp parallel for schedule(static) if (n >= (1 << 15))
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t s = order_[k];
      if (!out_.row.empty()) {
        out_.row[k] = a_.row[s];
        out_.col[k] = a_.col[s];
      }
      if (!a_.real.empty()) out_.real[k] = sign * a_.real[s];
      if (!a_.imag.empty()) out_.imag[k] = isign * a_.imag[s];
      if (!a_.integer.empty()) out_.integer[k] = negate_ ? -a_.integer[s] : a_.integer[s];
    }
  }
  double bytes() const {
    const MtxHeader& h = a_.header;
    const int index = h.format == Format::coordinate ? 16 : 0;
    return 2.0 * static_cast<double>(h.nnz) * (index + 8 * h.values_per_entry());
  }

 private:
  const MtxMatrix& a_;
  MtxMatrix& out_;
  bool negate_ = false, conj_ = false;
  std::vector<std::int64_t> order_;
};

struct Job {
  const CommonOptions& c;
  const Input& in;
  Device device;
  bool conjugate, in_place;
  TimingRecord& rec;
};

void report(const Job& j, const std::string& impl, const Measured& m, double bytes) {
  record_measured(j.rec, m);
  j.rec.impl(impl).work(0, bytes);
  if (j.c.verbose)
    std::cerr << "mmtranspose: " << impl << " on " << m.device << ": median " << m.compute.median
              << " s over " << m.compute.repeats << " runs\n";
}

// A general array file: A read into row-major form, transposed by a dense kernel, written
// back as an array of A's field.
template <class T>
MtxMatrix dense(const Job& j) {
  const MtxMatrix& f = j.in.m;
  const std::int64_t rows = f.header.rows, cols = f.header.cols;
  const auto& impl =
      j.in_place ? pick_impl(transpose_inplace_impls<T>(), op_name(false, true), j.c.impl, j.device)
                 : pick_impl(transpose_dense_impls<T>(), op_name(false, false), j.c.impl, j.device);
  Stopwatch w;
  Dense<T> a(rows, cols);
  array_to_row_major(f, a.data.data(), j.c.threads);
  Dense<T> b;
  DenseTransposeProblem<T> p{rows, cols, a.data.data(), nullptr, j.conjugate};
  if (j.in_place) {
    b = std::move(a);  // transposed where it lies
    p.in = p.out = b.data.data();
  } else {
    b = Dense<T>(cols, rows);
    p.out = b.data.data();
  }
  b.rows = cols;
  b.cols = rows;
  j.rec.phase("convert", w.seconds());

  auto runner = impl.make(p);
  report(j, impl.name, measure(*runner, j.c.warmup, j.c.repeat),
         transpose_dense_bytes(rows, cols, sizeof(T)));
  MtxMatrix out;
  out.header = out_header(f.header, cols, rows, rows * cols);
  if (j.c.quiet) return out;  // -q writes nothing: no values to gather
  for (std::int64_t jj = 0; jj < b.cols; ++jj)
    for (std::int64_t i = 0; i < b.rows; ++i) push_value(out, b(i, jj));
  return out;
}

// A general coordinate file: CSR (duplicates summed), CSR of the transpose, written as
// coordinate entries sorted by row then column, in A's field.
template <class T>
MtxMatrix sparse(const Job& j) {
  const MtxMatrix& f = j.in.m;
  const MtxHeader& h = f.header;
  return with_index_type(h.rows, h.cols, h.nnz, [&]<class I>() {
    const auto& impl =
        pick_impl(transpose_csr_impls<I, T>(), op_name(true, false), j.c.impl, j.device);
    Stopwatch w;
    Coo<I, T> coo;
    coo.rows = h.rows;
    coo.cols = h.cols;
    coo.row.assign(f.row.begin(), f.row.end());
    coo.col.assign(f.col.begin(), f.col.end());
    coo.val.resize(static_cast<std::size_t>(h.nnz));
    for (std::int64_t k = 0; k < h.nnz; ++k) coo.val[k] = stored_value<T>(f, k);
    const Csr<I, T> a = coo_to_csr(coo);
    Csr<I, T> t;
    j.rec.phase("convert", w.seconds());

    auto runner = impl.make(CsrTransposeProblem<I, T>{&a, &t, j.conjugate});
    report(j, impl.name, measure(*runner, j.c.warmup, j.c.repeat), transpose_csr_bytes(a));
    MtxMatrix out;
    out.header = out_header(h, t.rows, t.cols, t.nnz());
    out.row.resize(t.idx.size());
    out.col.assign(t.idx.begin(), t.idx.end());
    for (std::int64_t i = 0; i < t.rows; ++i)
      std::fill(out.row.begin() + t.ptr[i], out.row.begin() + t.ptr[i + 1], i);
    for (const T& v : t.val) push_value(out, v);
    return out;
  });
}

// What the transpose of A (its header IN) holds: symmetric kinds a sorted copy of the stored
// entries; coordinate files A and A^T as CSR and A^T's entries to write; array files A and
// A^T dense (one matrix in place). On the GPU, the kernel's input and output.
void plan_transpose(const PlanInput& in, const CommonOptions& c, Device device, bool in_place,
                    ToolPlan& p) {
  const MtxHeader& h = in.h;
  const bool coo = h.format == Format::coordinate, complex = h.field == Field::complex;
  const int threads = thread_count(c.threads);
  if (h.symmetry != Symmetry::general) {
    const double file_value = h.field == Field::pattern ? 0 : complex ? 16 : 8;
    p.host.add("A's entries sorted", in.entries * (8 + (coo ? 16 : 0) + file_value));
    if (!c.quiet) plan_output(p.host, "A^T", 0, coo, complex, threads);
    return;
  }
  const double v = h.field == Field::integer ? 8 : value_size(c.precision, complex);
  if (coo) {
    const double ix = index_size(h.rows, h.cols, in.entries);
    plan_csr(p.host, in, ix, v);
    p.host.add("A^T as CSR", csr_bytes(h.cols, in.entries, ix, v));
    plan_output(p.host, "A^T", in.entries, true, complex, threads);  // built even with -q
    p.device.add("A and A^T as CSR",
                 csr_bytes(h.rows, in.entries, ix, v) + csr_bytes(h.cols, in.entries, ix, v));
    p.device_budget = device_budget(
        runs_on_cuda(transpose_csr_impls<std::int32_t, double>(), c.impl, device) ? device
                                                                                  : Device::cpu,
        c.device_cap());
    return;
  }
  const double dense = dense_bytes(h.rows, h.cols, v);
  p.host.add(in_place ? "A dense" : "A and A^T dense", in_place ? dense : 2 * dense);
  if (!c.quiet)
    plan_output(p.host, "A^T", static_cast<double>(h.rows) * static_cast<double>(h.cols), false,
                complex, threads);
  p.device.add(in_place ? "A dense" : "A and A^T dense", in_place ? dense : 2 * dense);
  const bool gpu = in_place ? runs_on_cuda(transpose_inplace_impls<double>(), c.impl, device)
                            : runs_on_cuda(transpose_dense_impls<double>(), c.impl, device);
  p.device_budget = device_budget(gpu ? device : Device::cpu, c.device_cap());
}

// The lists of --precision (the dense kernels differ by value type).
template <class T>
void list_impls(bool all) {
  std::cout << "dense, out of place (array files):\n"
            << format_impls(transpose_dense_impls<T>(), all)
            << "\ndense, in place (--in-place, square array files):\n"
            << format_impls(transpose_inplace_impls<T>(), all) << "\nsparse (coordinate files):\n"
            << format_impls(transpose_csr_impls<std::int32_t, T>(), all);
}

int run(const Cli& cli) {
  const CommonOptions& c = cli.common();
  if (c.list_impls) {
    if (c.precision == "single")
      list_impls<float>(c.list_all);
    else
      list_impls<double>(c.list_all);
    return 0;
  }
  const auto files = cli.positionals("A");
  if (files.size() != 1) throw UsageError("give one matrix A (see mmtranspose --help)");
  const bool conjugate = cli.get<bool>("conjugate"), in_place = cli.get<bool>("in-place");
  const Device device = resolve_device(c.device, c.verbose, "mmtranspose");

  TimingRecord rec("mmtranspose");
  rec.precision(c.precision);
  ToolPlan plan;
  const Input in = load_input(
      files[0], c, "mmtranspose", plan,
      [&](const PlanInput& a, ToolPlan& p) { plan_transpose(a, c, device, in_place, p); });
  record_input(rec, in);
  const MtxHeader& h = in.m.header;
  const bool coo = h.format == Format::coordinate;
  if (in_place && coo)
    throw InputError(in.path, 0, "--in-place needs a dense (array) file; this one is coordinate");
  if (in_place && !h.is_square())
    throw InputError(in.path, 0,
                     "--in-place needs a square matrix, not " + std::to_string(h.rows) + " x " +
                         std::to_string(h.cols));
  if (h.field == Field::integer) rec.extra("value_type", "int64");

  MtxMatrix out;
  if (h.symmetry != Symmetry::general) {
    // Checked all the same, so that a wrong --impl or device fails as it would elsewhere.
    if (coo)
      pick_impl(transpose_csr_impls<std::int32_t, double>(), op_name(true, false), c.impl, device);
    else if (in_place)
      pick_impl(transpose_inplace_impls<double>(), op_name(false, true), c.impl, device);
    else
      pick_impl(transpose_dense_impls<double>(), op_name(false, false), c.impl, device);
    if (c.verbose)
      std::cerr << "mmtranspose: " << to_string(h.symmetry)
                << " file: the stored triangle is returned"
                << (h.symmetry == Symmetry::skew_symmetric ? ", negated" : "")
                << (c.impl.empty() ? "" : "; --impl " + c.impl + " not used") << "\n";
    Stopwatch w;
    StoredRunner r(in.m, out, conjugate);
    rec.phase("convert", w.seconds());
    report(Job{c, in, device, conjugate, in_place, rec}, "stored-triangle",
           measure(r, c.warmup, c.repeat), r.bytes());
  } else {
    const Job job{c, in, device, conjugate, in_place, rec};
    out = with_transpose_type(c.precision, h.field,
                              [&]<class T>() { return coo ? sparse<T>(job) : dense<T>(job); });
  }
  rec.phase("write", save_output(out, c));
  rec.emit(c.timing);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mm::run_tool("mmtranspose", argc, argv, [](int argc, char** argv) {
    mm::Cli cli(
        "mmtranspose", "A [--conjugate] [--in-place] [options]",
        "Transpose B = A^T, or the conjugate transpose A^H with --conjugate. The output keeps\n"
        "A's format and field: an array file gives an array, a coordinate file gives coordinate\n"
        "entries sorted by row then column (duplicates summed); integer and pattern files stay so\n"
        "(integer values are moved as 64-bit integers, exact whatever --precision says).\n"
        "Modes: array files use a dense out-of-place kernel (cpu-blocked, ref), or with "
        "--in-place\n"
        "(square only) an in-place one (cpu-inplace, ref); coordinate files use a CSR -> CSC "
        "kernel\n"
        "(cpu-csr2csc, ref). Symmetric input is returned as it is stored (its transpose is\n"
        "itself), skew-symmetric negated, hermitian conjugated (as is with --conjugate); the\n"
        "record's impl is then 'stored-triangle'.\n"
        "Work: flops = 0; dense bytes = 2*rows*cols*sizeof(value) (read once, written once);\n"
        "sparse bytes = 2*nnz*(sizeof(index)+sizeof(value)) + (rows+cols+2)*sizeof(index).",
        "mmtranspose A.mtx -o At.mtx\n"
        "mmtranspose young1c.mtx --conjugate -o AH.mtx\n"
        "mmgen dense --rows 3 --cols 5 | mmtranspose - | mmcheck info -\n"
        "mmtranspose square_array.mtx --in-place --impl cpu-inplace -o At.mtx\n"
        "mmtranspose A.mtx --impl ref --repeat 10 --warmup 2 -q --timing -\n"
        "mmtranspose --list-impls");
    cli.compute().positional("A", -1);
    cli.options()("conjugate", mm::po::bool_switch(),
                  "conjugate transpose A^H (no effect on real values)")(
        "in-place", mm::po::bool_switch(), "transpose a square array file where it lies");
    if (!cli.parse(argc, argv)) return 0;
    return run(cli);
  });
}
