// Matrix addition benchmark: dense C = alpha*A + beta*B against OpenBLAS (--device cuda:
// cuBLAS and cuSPARSE) and the copy bandwidth measured in the same run, plus the sparse and
// mixed kernels beside their references.
//
//   add_bench [--device cpu|cuda] [--sizes N...] [--repeat R] [--warmup W]
//
// Formulas: dense bytes = 3*rows*cols*sizeof(T) (read A, read B, write C), flops =
// 3*rows*cols; sparse bytes = CSR arrays of A, B and C, each once (kernels/add.hpp); mixed
// bytes = 2*rows*cols*sizeof(T) + CSR of S. GB/s = bytes / median seconds / 1e9. Each
// figure is the median over --repeat runs after --warmup runs; operand sets are rotated so
// that one round touches at least --working-set-gib (far beyond L2, and beyond the LLC).
// --device cuda: every CUDA implementation through its runner (median of CUDA-event-timed
// runs, transfers excluded) on n x n double and float (default n = 1024 and 8192: 8192^2
// doubles are 512 MiB a matrix, far beyond the 50 MB L2; 1024 is there for cuda-seq, which
// takes at most 2^20 elements), beside cuda_copy_gbps of the same total bytes (a device-to-
// device copy of half of them: read + write), with cuBLAS (dense) or cuSPARSE (sparse) as the
// vendor ratio.
// Output: one JSON line per measurement, then a Markdown table, on standard output.
#include <omp.h>

#include <algorithm>
#include <iostream>
#include <random>

#include <boost/program_options.hpp>

#include "add.hpp"
#include "bench_common.hpp"
#include "device.hpp"

namespace po = boost::program_options;
using namespace mm;

namespace {

struct Options {
  std::vector<std::int64_t> sizes{1000, 2000, 4096, 8192};
  double working_set_gib = 1.0;
  int warmup = 2, repeat = 15, threads = 0;
  std::int64_t sparse_rows = 1'000'000, sparse_per_row = 8;
  std::string device = "cpu";
};

struct Row {
  std::string what, impl;
  int threads;
  double seconds, gbps, gflops, vs_blas, vs_copy;
};

using bench::fixed;

// PER_ROW distinct random columns in every row, sorted.
Csr<std::int32_t, double> random_csr(std::int64_t rows, std::int64_t cols, std::int64_t per_row,
                                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Csr<std::int32_t, double> a;
  a.rows = rows;
  a.cols = cols;
  a.ptr.push_back(0);
  std::vector<std::int32_t> row;
  for (std::int64_t i = 0; i < rows; ++i) {
    row.clear();
    for (std::int64_t k = 0; k < per_row; ++k)
      row.push_back(static_cast<std::int32_t>(rng() % cols));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (auto j : row) {
      a.idx.push_back(j);
      a.val.push_back(static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0);
    }
    a.ptr.push_back(static_cast<std::int32_t>(a.idx.size()));
  }
  return a;
}

double max_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double m = x.size() == y.size() ? 0 : 1e300;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
    m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

class Bench {
 public:
  Bench(const Options& o, int nt) : o_(o), nt_(nt) {}

  void dense(std::int64_t n) {
    const std::size_t set_bytes = 3 * static_cast<std::size_t>(n * n) * sizeof(double);
    const auto sets = static_cast<int>(
        std::max<double>(1, o_.working_set_gib * (1 << 30) / static_cast<double>(set_bytes)));
    std::vector<Dense<double>> a, b, c;
    for (int s = 0; s < sets; ++s) {
      a.push_back(bench::random_dense(n, n, 2 * s + 1));
      b.push_back(bench::random_dense(n, n, 2 * s + 2));
      c.emplace_back(n, n);
    }
    const double alpha = 1.5, beta = -0.75;
    const double bytes = add_dense_bytes<double>(n, n), flops = add_dense_flops<double>(n, n);
    // The copy ceiling over the same working set, at 1 thread and at all.
    const double copy1 = bench::copy_gbps(set_bytes * static_cast<std::size_t>(sets), 1);
    const double copyn = bench::copy_gbps(set_bytes * static_cast<std::size_t>(sets), nt_);
    Dense<double> want(n, n);
    add_dense_ref(a[0], b[0], want, alpha, beta);
    auto time = [&](const std::function<void(int)>& f) {
      int s = 0;
      return bench::median_seconds(o_.warmup, std::max(o_.repeat, sets), [&] { f(s++ % sets); });
    };
    const std::string what = "dense " + std::to_string(n) + "x" + std::to_string(n) + " (" +
                             std::to_string(sets) + " sets)";
    struct R {
      std::string impl;
      int threads;
      double t;
    };
    std::vector<R> rs;
    auto checked = [&](const std::string& impl, int threads, const std::function<void(int)>& f) {
      f(0);
      if (max_diff(c[0].data, want.data) > 1e-15) {
        std::cerr << "add_bench: " << impl << " disagrees with ref\n";
        std::exit(1);
      }
      rs.push_back({impl, threads, time(f)});
    };
    checked("openblas", 1, [&](int s) { add_dense_openblas(a[s], b[s], c[s], alpha, beta); });
    checked("ref", 1, [&](int s) { add_dense_ref(a[s], b[s], c[s], alpha, beta); });
    checked("cpu", 1, [&](int s) { add_dense_cpu(a[s], b[s], c[s], alpha, beta, 1); });
    if (nt_ > 1)
      checked("cpu", nt_, [&](int s) { add_dense_cpu(a[s], b[s], c[s], alpha, beta, nt_); });
    const double blas_t = rs[0].t;
    for (const auto& r : rs) {
      const double gbps = bytes / r.t * 1e-9;
      add({what, r.impl, r.threads, r.t, gbps, flops / r.t * 1e-9, blas_t / r.t,
           gbps / (r.threads == 1 ? copy1 : copyn)});
    }
    add({what, "copy (memcpy)", 1, 0, copy1, 0, 0, 1});
    if (nt_ > 1) add({what, "copy (memcpy)", nt_, 0, copyn, 0, 0, 1});
  }

  void sparse() {
    const std::int64_t n = o_.sparse_rows;
    const auto a = random_csr(n, n, o_.sparse_per_row, 11),
               b = random_csr(n, n, o_.sparse_per_row, 12);
    Csr<std::int32_t, double> want, c;
    add_sparse_ref(a, b, want, 1.5, -0.75);
    const double bytes = add_sparse_bytes(a, b, want), flops = add_sparse_flops(a, b, want);
    const double copy1 = bench::copy_gbps(static_cast<std::size_t>(bytes), 1);
    const double copyn = bench::copy_gbps(static_cast<std::size_t>(bytes), nt_);
    const std::string what =
        "sparse " + std::to_string(n) + "^2, " + std::to_string(o_.sparse_per_row) + "/row each";
    auto one = [&](const std::string& impl, int threads, const std::function<void()>& f) {
      f();
      if (c.idx != want.idx || max_diff(c.val, want.val) > 0) {
        std::cerr << "add_bench: " << impl << " disagrees with ref-sparse\n";
        std::exit(1);
      }
      const double t = bench::median_seconds(o_.warmup, o_.repeat, f), gbps = bytes / t * 1e-9;
      add({what, impl, threads, t, gbps, flops / t * 1e-9, 0,
           gbps / (threads == 1 ? copy1 : copyn)});
    };
    one("ref-sparse", 1, [&] { add_sparse_ref(a, b, c, 1.5, -0.75); });
    one("cpu-sparse", 1, [&] { add_sparse_cpu(a, b, c, 1.5, -0.75, 1); });
    if (nt_ > 1) one("cpu-sparse", nt_, [&] { add_sparse_cpu(a, b, c, 1.5, -0.75, nt_); });

    // Mixed: a 4096 x 4096 dense matrix plus a sparse one of 8 entries a row.
    const std::int64_t m = 4096;
    const auto d = bench::random_dense(m, m, 13);
    const auto s = random_csr(m, m, o_.sparse_per_row, 14);
    Dense<double> dw(m, m), dc(m, m);
    add_mixed_ref(d, 1.5, s, -0.75, dw);
    const double mb = add_mixed_bytes(s), mf = add_mixed_flops(s);
    const double mcopy1 = bench::copy_gbps(static_cast<std::size_t>(mb), 1);
    const double mcopyn = bench::copy_gbps(static_cast<std::size_t>(mb), nt_);
    auto mixed = [&](const std::string& impl, int threads, const std::function<void()>& f) {
      f();
      if (max_diff(dc.data, dw.data) > 1e-15) {
        std::cerr << "add_bench: " << impl << " mixed disagrees with ref\n";
        std::exit(1);
      }
      const double t = bench::median_seconds(o_.warmup, o_.repeat, f), gbps = mb / t * 1e-9;
      add({"mixed 4096^2 dense + 8/row sparse", impl, threads, t, gbps, mf / t * 1e-9, 0,
           gbps / (threads == 1 ? mcopy1 : mcopyn)});
    };
    mixed("ref", 1, [&] { add_mixed_ref(d, 1.5, s, -0.75, dc); });
    mixed("cpu", 1, [&] { add_mixed_cpu(d, 1.5, s, -0.75, dc, 1); });
    if (nt_ > 1) mixed("cpu", nt_, [&] { add_mixed_cpu(d, 1.5, s, -0.75, dc, nt_); });
  }

  void table(std::ostream& os) const {
    os << "| case | impl | threads | median s | GB/s | GFLOP/s | vendor time / this | GB/s / "
          "copy GB/s |\n"
       << "|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& r : rows_)
      os << "| " << r.what << " | " << r.impl << " | "
         << (r.threads > 0 ? std::to_string(r.threads) : std::string("gpu")) << " | "
         << (r.seconds > 0 ? fixed(r.seconds, 5) : "") << " | " << fixed(r.gbps, 2) << " | "
         << (r.gflops > 0 ? fixed(r.gflops, 2) : "") << " | "
         << (r.vs_blas > 0 ? fixed(r.vs_blas, 2) : "") << " | " << fixed(r.vs_copy, 2) << " |\n";
  }

  // --device cuda: every CUDA implementation of the problem's kind through its runner, checked
  // against WANT, with the vendor's time and the copy bandwidth of the same bytes beside it.
  template <class I, class T>
  void gpu(const std::string& what, unsigned kind, const AddProblem<I, T>& p, double bytes,
           double flops, const std::function<double()>& error) {
    const double copy = cuda_copy_gbps(static_cast<std::size_t>(bytes / 2));
    struct R {
      std::string impl;
      double t;
    };
    std::vector<R> rs;
    double vendor = 0;
    for (const auto& impl : add_impls<I, T>()) {
      if (impl.device != Device::cuda || !(impl.make.kinds & kind)) continue;
      const bool seq = impl.name == "cuda-seq";
      if (seq && bytes / (3.0 * sizeof(T)) > static_cast<double>(1 << 20)) continue;
      std::cerr << "add_bench: " << what << " " << impl.name << std::endl;
      auto r = impl.make(p);
      const Measured m = measure(*r, seq ? 1 : o_.warmup, seq ? 3 : o_.repeat);
      if (error() > 0) {
        std::cerr << "add_bench: " << impl.name << " disagrees with ref on " << what << "\n";
        std::exit(1);
      }
      rs.push_back({impl.name, m.compute.median});
      if (impl.name == "cublas" || impl.name == "cusparse") vendor = m.compute.median;
    }
    for (const auto& r : rs) {
      const double gbps = bytes / r.t * 1e-9;
      add({what, r.impl, 0, r.t, gbps, flops / r.t * 1e-9, vendor > 0 ? vendor / r.t : 0,
           gbps / copy});
    }
    add({what, "copy (cudaMemcpy d2d)", 0, 0, copy, 0, 0, 1});
  }

 private:
  void add(const Row& r) {
    rows_.push_back(r);
    nlohmann::json j = bench::context("add", r.threads);
    j.update({{"case", r.what},
              {"impl", r.impl},
              {"median_s", r.seconds},
              {"gbps", r.gbps},
              {"gflops", r.gflops},
              {"blas_time_over_this", r.vs_blas},
              {"gbps_over_copy", r.vs_copy}});
    bench::emit(j);
  }
  const Options& o_;
  int nt_;
  std::vector<Row> rows_;
};

template <class T>
void gpu_dense(Bench& b, std::int64_t n) {
  using I = std::int32_t;
  const auto a = bench::random_dense<T>(n, n, 1), bb = bench::random_dense<T>(n, n, 2);
  Dense<T> want(n, n), c(n, n);
  const T alpha(1.5), beta(-0.75);
  add_dense_ref(a, bb, want, alpha, beta);
  AddProblem<I, T> p;
  p.a.dense = &a;
  p.b.dense = &bb;
  p.alpha = alpha;
  p.beta = beta;
  p.dense_out = &c;
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-15;
  b.gpu<I, T>("gpu dense " + std::to_string(n) + "^2 " + (sizeof(T) == 4 ? "float" : "double"),
              add_dense, p, add_dense_bytes<T>(n, n), add_dense_flops<T>(n, n), [&] {
                double m = 0;
                for (std::size_t k = 0; k < c.data.size(); ++k)
                  m = std::max<double>(m, std::abs(c.data[k] - want.data[k]));
                return m > tol ? m : 0.0;
              });
}

void gpu_all(Bench& b, const Options& o) {
  const GpuInfo g = cuda_devices();
  if (g.count == 0) throw DeviceError("--device cuda needs a GPU: " + g.reason);
  std::cout << "# " << g.name << "\n";
  for (auto n : o.sizes) {
    gpu_dense<double>(b, n);
    gpu_dense<float>(b, n);
  }
  using I = std::int32_t;
  using T = double;
  if (o.sparse_rows > 0) {
    const std::int64_t n = o.sparse_rows;
    const auto a = random_csr(n, n, o.sparse_per_row, 11),
               s = random_csr(n, n, o.sparse_per_row, 12);
    Csr<I, T> want, c;
    add_sparse_ref(a, s, want, 1.5, -0.75);
    AddProblem<I, T> p;
    p.a.sparse = &a;
    p.b.sparse = &s;
    p.alpha = 1.5;
    p.beta = -0.75;
    p.sparse_out = &c;
    b.gpu<I, T>(
        "gpu sparse " + std::to_string(n) + "^2, " + std::to_string(o.sparse_per_row) + "/row each",
        add_sparse, p, add_sparse_bytes(a, s, want), add_sparse_flops(a, s, want), [&] {
          if (c.ptr != want.ptr || c.idx != want.idx) return 1.0;
          const double m = max_diff(c.val, want.val);
          return m > 1e-15 ? m : 0.0;
        });
  }
  // Mixed: a 8192 x 8192 dense matrix plus a sparse one of 8 entries a row.
  const std::int64_t m = 8192;
  const auto d = bench::random_dense(m, m, 13);
  const auto s = random_csr(m, m, o.sparse_per_row, 14);
  Dense<T> want(m, m), c(m, m);
  add_mixed_ref(d, 1.5, s, -0.75, want);
  AddProblem<I, T> p;
  p.a.dense = &d;
  p.b.sparse = &s;
  p.alpha = 1.5;
  p.beta = -0.75;
  p.dense_out = &c;
  b.gpu<I, T>("gpu mixed 8192^2 dense + 8/row sparse", add_mixed, p, add_mixed_bytes(s),
              add_mixed_flops(s), [&] {
                const double e = max_diff(c.data, want.data);
                return e > 1e-15 ? e : 0.0;
              });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  po::options_description desc("add_bench: dense, sparse and mixed matrix addition\nOptions");
  desc.add_options()("help,h", "this help")("sizes", po::value(&o.sizes)->multitoken(),
                                            "dense n x n sizes (default 1000 2000 4096 8192)")(
      "working-set-gib", po::value(&o.working_set_gib)->default_value(o.working_set_gib),
      "operand sets rotated until one round touches this much")(
      "warmup", po::value(&o.warmup)->default_value(o.warmup), "untimed runs")(
      "repeat", po::value(&o.repeat)->default_value(o.repeat), "timed runs (at least one per set)")(
      "threads", po::value(&o.threads)->default_value(0), "the 'all threads' count (0: all cores)")(
      "sparse-rows", po::value(&o.sparse_rows)->default_value(o.sparse_rows), "sparse rows = cols")(
      "sparse-per-row", po::value(&o.sparse_per_row)->default_value(o.sparse_per_row),
      "entries a row")("device", po::value(&o.device)->default_value(o.device),
                       "cpu, or cuda: the CUDA implementations against cuBLAS / cuSPARSE");
  po::variables_map vm;
  if (!mm::bench::parse_options(argc, argv, desc, vm, "add_bench")) return 2;
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  const int nt = o.threads > 0 ? o.threads : omp_get_num_procs();
  Bench b(o, nt);
  if (o.device == "cuda") {
    if (!vm.count("sizes")) o.sizes = {1024, 8192};
    try {
      gpu_all(b, o);
    } catch (const std::exception& e) {
      std::cerr << "add_bench: " << e.what() << "\n";
      return 4;
    }
    std::cout << "\n";
    b.table(std::cout);
    return 0;
  }
  for (auto n : o.sizes) b.dense(n);
  if (o.sparse_rows > 0) b.sparse();
  std::cout << "\n";
  b.table(std::cout);
  return 0;
}
