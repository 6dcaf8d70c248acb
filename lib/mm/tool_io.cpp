// The read and write steps every compute tool shares.
#include "mm/tool_io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <complex>
#include <iostream>

#include "mm/error.hpp"
#include "mm/matrix.hpp"

namespace mm {

Input load_input(const std::string& path, const CommonOptions& c, const char* tool) {
  Input in;
  in.path = path;
  Stopwatch w;
  in.m = read_mtx(path, ReadOptions{c.threads, ReadOptions{}.chunk_bytes});
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

std::int64_t max_dense_bytes(const Cli& cli) {
  if (cli.has("max-dense-bytes")) return cli.get<std::int64_t>("max-dense-bytes");
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::int64_t{8} << 30;
  return static_cast<std::int64_t>(pages) * page / 2;
}

void check_dense_fits(const std::string& path, const std::string& what, std::int64_t n,
                      std::size_t value_size, std::int64_t max_bytes) {
  const double need =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(value_size);
  if (need > static_cast<double>(max_bytes))
    throw DeviceError(
        path + ": " + what + " needs " + std::to_string(static_cast<std::int64_t>(need)) +
        " bytes for the dense " + std::to_string(n) + " x " + std::to_string(n) +
        " matrix and its factors, over --max-dense-bytes " + std::to_string(max_bytes));
}

}  // namespace mm
