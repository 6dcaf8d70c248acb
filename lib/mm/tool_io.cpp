// The read and write steps every compute tool shares.
#include "mm/tool_io.hpp"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <complex>
#include <iostream>

#include "mm/error.hpp"
#include "mm/matrix.hpp"

namespace mm {

Input load_input(const std::string& path, const CommonOptions& c, const char* tool, ToolPlan& plan,
                 const PlanFn& plan_fn) {
  Input in;
  in.path = path;
  Stopwatch w;
  ReadOptions opt{c.threads, ReadOptions{}.chunk_bytes};
  opt.on_header = [&](const MtxHeader& h, long long bytes) {
    const PlanInput pi = plan_read(plan.host, h, path == "-" ? "<stdin>" : path, bytes, opt);
    if (plan_fn) plan_fn(pi, plan);
    check_plan(plan, c);
  };
  in.m = read_mtx(path, opt);
  in.seconds = w.seconds();
  struct stat st {};
  if (path != "-" && stat(path.c_str(), &st) == 0) in.bytes = static_cast<std::int64_t>(st.st_size);
  warn_read(tool, path, in.m);
  if (c.verbose) {
    const MtxHeader& h = in.m.header;
    std::cerr << tool << ": read " << path << ": " << h.banner().substr(15) << ", " << h.rows
              << " x " << h.cols << ", " << h.nnz << " stored entries, " << in.seconds << " s\n";
  }
  return in;
}

Input load_input(const std::string& path, const CommonOptions& c, const char* tool) {
  ToolPlan plan;
  return load_input(path, c, tool, plan);
}

PlanInput plan_read(MemoryPlan& plan, const MtxHeader& h, const std::string& name, long long bytes,
                    const ReadOptions& opt) {
  const bool coo = h.format == Format::coordinate;
  // The reader stores no more entries than the input holds lines: a size line that claims
  // more is refused as malformed (exit 3) once the body runs out, not as too large here.
  const double min_line = std::max(2, (coo ? 4 : 0) + 2 * h.values_per_entry());
  double entries = static_cast<double>(h.nnz);
  if (bytes >= 0) entries = std::min(entries, static_cast<double>(bytes) / min_line + 1);
  const double value = h.field == Field::pattern ? 0 : h.field == Field::complex ? 16 : 8;
  plan.add(name + " as read", entries * ((coo ? 16 : 0) + value));
  // The window the body is parsed in (mtx_read.cpp: 4 chunks a thread, 64 KB to 64 MB).
  const int threads = opt.threads > 0 ? opt.threads : omp_get_num_procs();
  double window =
      std::clamp(static_cast<double>(opt.chunk_bytes) * threads * 4, 65536.0, 64.0 * 1024 * 1024);
  if (bytes >= 0) window = std::min(window, static_cast<double>(bytes) + 1);
  plan.add(name + " read window", window);
  double expanded = entries;
  if (h.symmetry != Symmetry::general)
    expanded = coo ? 2 * entries : static_cast<double>(h.rows) * static_cast<double>(h.cols);
  PlanInput in{h, name, entries, expanded};
  in.h.comments.clear();
  return in;
}

void check_plan(const ToolPlan& plan, const CommonOptions& c) {
  check_memory(plan.host, c.max_memory, c.verbose);
  if (plan.device_budget >= 0 && !plan.device.empty())
    check_memory(plan.device, plan.device_budget, c.verbose);
}

double value_size(const std::string& precision, bool complex) {
  return (precision == "single" ? 4.0 : 8.0) * (complex ? 2 : 1);
}

double index_size(std::int64_t rows, std::int64_t cols, double entries) {
  const double lim = 2147483647.0;
  return static_cast<double>(rows) <= lim && static_cast<double>(cols) <= lim && entries <= lim
             ? 4.0
             : 8.0;
}

void plan_csr(MemoryPlan& plan, const PlanInput& in, double index, double value) {
  const double n = in.expanded;
  // coo_to_csr holds the COO, its row starts and a cursor (int64, rows + 1 each) and the
  // entries' order (int64) beside the CSR it builds.
  const double sort = (static_cast<double>(in.h.rows) + 1) * 16 + n * 8;
  plan.add(in.name + " as CSR",
           coo_bytes(n, index, value) + sort + csr_bytes(in.h.rows, n, index, value));
}

void plan_dense(MemoryPlan& plan, const PlanInput& in, double value) {
  double bytes = dense_bytes(in.h.rows, in.h.cols, value);
  if (in.h.symmetry != Symmetry::general)  // expand_symmetry's copy, as read but both triangles
    bytes += in.expanded * ((in.h.format == Format::coordinate ? 16 : 0) +
                            (in.h.field == Field::complex ? 16 : 8));
  plan.add(in.name + " as dense", bytes);
}

void plan_output(MemoryPlan& plan, const std::string& name, double entries, bool coordinate,
                 bool complex, int threads) {
  plan.add(name + " to write", entries * ((coordinate ? 16 : 0) + (complex ? 16 : 8)));
  // write_mtx formats 2 blocks of 32768 entries a thread, up to 96 bytes an entry.
  plan.add(name + " write buffers", std::min(entries, 65536.0 * std::max(threads, 1)) * 96);
}

void warn_read(const char* tool, const std::string& path, const MtxMatrix& m) {
  for (const ReadWarning& w : m.read_warnings)
    std::cerr << tool << ": warning: "
              << InputError::format(path == "-" ? "<stdin>" : path, w.first_line, w.message)
              << "\n";
}

void record_input(TimingRecord& rec, const Input& in) {
  const MtxHeader& h = in.m.header;
  rec.input(in.path, h.rows, h.cols, h.nnz, in.bytes);
  rec.add_phase("read", in.seconds);
}

double save_output(const MtxMatrix& m, const CommonOptions& c) {
  if (c.quiet) return 0;
  Stopwatch w;
  write_mtx(c.output, m, WriteOptions{c.threads});
  return w.seconds();
}

template <class T>
std::vector<T> vector_values(const Input& in, std::int64_t n, const std::string& what) {
  const MtxHeader& h = in.m.header;
  if (h.cols != 1 || (n >= 0 && h.rows != n)) {
    throw InputError(in.path, 0,
                     what + " must be a vector of length " + (n >= 0 ? std::to_string(n) : "n") +
                         " (an n x 1 matrix), found " + std::to_string(h.rows) + " x " +
                         std::to_string(h.cols));
  }
  if constexpr (!is_complex_v<T>) {
    if (h.field == Field::complex)
      throw InputError(in.path, 0, what + " is complex but the matrix is real");
  }
  const Dense<T> d = to_dense<T>(in.m);
  return d.data;
}

template std::vector<float> vector_values<float>(const Input&, std::int64_t, const std::string&);
template std::vector<double> vector_values<double>(const Input&, std::int64_t, const std::string&);
template std::vector<std::complex<float>> vector_values<std::complex<float>>(const Input&,
                                                                             std::int64_t,
                                                                             const std::string&);
template std::vector<std::complex<double>> vector_values<std::complex<double>>(const Input&,
                                                                               std::int64_t,
                                                                               const std::string&);

void check_system_shapes(const std::string& a_path, const MtxHeader& a, const std::string& b_path,
                         const MtxHeader& b) {
  if (!a.is_square())
    throw InputError(
        a_path, 0,
        "A must be square, this one is " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
  if (b.rows != a.rows)
    throw InputError(b_path, 0,
                     "b has " + std::to_string(b.rows) + " rows, A has " + std::to_string(a.rows));
}

}  // namespace mm
