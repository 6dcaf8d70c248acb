// SpGEMM and SpMM benchmark: C = A*A (and A times a dense block) on generated matrices of a
// few million nonzeros, every implementation of one device, ratios to the vendor library.
//
//   spgemm_bench [--device cpu|cuda] [--scale S] [--warmup W] [--repeat R] [--spmm-cols N]
//
// Matrices (mmgen's generators, seed 1, double values, int32 indices): poisson2d (5-point,
// n = 1000: 1M rows, 5M nonzeros), poisson3d (7-point, n = 100: 1M rows, 6.9M nonzeros) and
// powerlaw (500k rows, Pareto row lengths of mean 8, uniform columns: 4M nonzeros); --scale
// multiplies the rows (the CPU run takes 0.3 of them).
// Formulas (kernels/spgemm.hpp): SpGEMM C = A*A: flops = 2 * products (sum over a_ik of
// nnz(A row k)); bytes = csr_bytes(A) + csr_bytes(B) + csr_bytes(C), csr_bytes = nnz*(8+4) +
// (rows+1)*4. SpMM C = A*X, X dense rows x N (row-major): flops = 2*nnz(A)*N; bytes =
// csr_bytes(A) + (rows*N + rows*N)*8. GFLOP/s and GB/s from the median of R timed runs after W
// warm-up runs; on the GPU each run is timed by CUDA events, transfers excluded, and an
// SpGEMM run is the whole product (symbolic pass, sizing C, numeric pass). Every result is
// checked against cpu-spgemm / the CPU SpMM: "check" is the largest difference relative to
// the largest value, or "STRUCTURE" when C's pattern differs.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "bench_common.hpp"
#include "analysis/generate.hpp"
#include "spgemm.hpp"

namespace {

using namespace mm;
using I = std::int32_t;
using T = double;

GenOptions gen(const std::string& kind, std::int64_t n) {
  GenOptions o;
  o.kind = kind;
  o.seed = 1;
  if (kind == "powerlaw") {
    o.rows = o.cols = n;
    o.nnz_per_row = 8;
  } else {
    o.n = n;
  }
  return o;
}

double max_rel_diff(const std::vector<T>& x, const std::vector<T>& y) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    err = std::max(err, std::abs(x[i] - y[i]));
    scale = std::max(scale, std::abs(y[i]));
  }
  return scale > 0 ? err / scale : err;
}

struct Row {
  std::string op, matrix, impl;
  double seconds, flops, bytes;
  std::string check;
};

void report(const Row& r, double vendor_seconds) {
  const double vs = vendor_seconds > 0 ? vendor_seconds / r.seconds : 0;
  bench::emit({{"op", r.op},
               {"matrix", r.matrix},
               {"impl", r.impl},
               {"median_s", r.seconds},
               {"flops", r.flops},
               {"bytes", r.bytes},
               {"gflops", r.flops / r.seconds * 1e-9},
               {"gbps", r.bytes / r.seconds * 1e-9},
               {"vs_vendor", vs},
               {"check", r.check}});
  std::printf("%-7s %-10s %-15s %11.1f %9.2f %8.1f %9.2f  %s\n", r.op.c_str(), r.matrix.c_str(),
              r.impl.c_str(), r.seconds * 1e6, r.flops / r.seconds * 1e-9,
              r.bytes / r.seconds * 1e-9, vs, r.check.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "cpu";
  double scale = 1.0;
  int warmup = 2, repeat = 10;
  std::int64_t spmm_cols = 32;
  for (int i = 1; i < argc; ++i) {
    const auto is = [&](const char* o) { return !std::strcmp(argv[i], o) && i + 1 < argc; };
    if (is("--device"))
      device = argv[++i];
    else if (is("--scale"))
      scale = std::atof(argv[++i]);
    else if (is("--warmup"))
      warmup = std::atoi(argv[++i]);
    else if (is("--repeat"))
      repeat = std::atoi(argv[++i]);
    else if (is("--spmm-cols"))
      spmm_cols = std::atoll(argv[++i]);
  }
  const Device dev = device == "cuda" ? Device::cuda : Device::cpu;
  const double f = scale * (dev == Device::cuda ? 1.0 : 0.3);
  const auto sz = [&](double v, double lo) { return static_cast<std::int64_t>(std::max(lo, v)); };
  const std::vector<std::pair<std::string, GenOptions>> cases = {
      {"poisson2d", gen("poisson2d", sz(1000 * std::sqrt(f), 20))},
      {"poisson3d", gen("poisson3d", sz(100 * std::cbrt(f), 8))},
      {"powerlaw", gen("powerlaw", sz(500000 * f, 1000))},
  };
  const int threads = omp_get_max_threads();
  auto ctx = bench::context("spgemm", threads);
  ctx["device_kind"] = device;
  if (dev == Device::cuda) ctx["device"] = cuda_devices().name;
  ctx["warmup"] = warmup;
  ctx["repeat"] = repeat;
  ctx["formula"] =
      "spgemm C=A*A: flops = 2*products, bytes = csr(A)+csr(A)+csr(C); spmm C=A*X (X rows x " +
      std::to_string(spmm_cols) +
      "): flops = 2*nnz*N, bytes = csr(A) + 2*rows*N*8; "
      "csr = nnz*12 + (rows+1)*4; double values, int32 indices; median seconds";
  bench::emit(ctx);
  std::printf("# %s, %d threads, warm-up %d, median of %d\n",
              ctx["device"].get<std::string>().c_str(), threads, warmup, repeat);
  std::printf("%-7s %-10s %-15s %11s %9s %8s %9s  %s\n", "op", "matrix", "impl", "median_us",
              "GFLOP/s", "GB/s", "vs vendor", "check");
  std::map<std::string, double> log_sum;
  std::map<std::string, int> log_n;
  for (const auto& [name, opt] : cases) {
    const Csr<I, T> a = coo_to_csr(to_coo<I, T>(generate(opt)));
    // The reference result: the OpenMP kernel, itself checked against ref in the unit tests.
    const Csr<I, T> want = spgemm_cpu(a, a, T(1));
    const double flops = product_flops<T>(spgemm_products(a, a));
    const double bytes = 2 * csr_bytes(a) + csr_bytes(want);
    std::fprintf(stderr, "%s: %lld rows, nnz %lld, products %.3g, nnz(C) %lld\n", name.c_str(),
                 static_cast<long long>(a.rows), static_cast<long long>(a.nnz()), flops / 2,
                 static_cast<long long>(want.nnz()));
    std::vector<Row> rows;
    for (const auto& impl : spgemm_impls<I, T>()) {
      if (impl.device != dev) continue;
      Csr<I, T> c;
      auto r = impl.make({&a, &a, &c, T(1)});
      const int reps = impl.name == "ref" ? std::min(repeat, 3) : repeat;
      const Measured ms = measure(*r, impl.name == "ref" ? 0 : warmup, reps);
      const bool same = c.ptr == want.ptr && c.idx == want.idx;
      char check[32];
      std::snprintf(check, sizeof check, "%.1e", same ? max_rel_diff(c.val, want.val) : 0.0);
      rows.push_back(
          {"spgemm", name, impl.name, ms.compute.median, flops, bytes, same ? check : "STRUCTURE"});
    }
    // SpMM: A times a dense block of spmm_cols columns.
    Dense<T> x(a.cols, spmm_cols);
    for (std::size_t k = 0; k < x.data.size(); ++k)
      x.data[k] = 1.0 + static_cast<T>(k % 13) * 0.125;
    Dense<T> want_mm(a.rows, spmm_cols);
    spmm_cpu(a, x, want_mm, T(1));
    const double mm_flops = product_flops<T>(static_cast<double>(a.nnz()) * spmm_cols);
    const double mm_bytes =
        csr_bytes(a) + 2.0 * static_cast<double>(a.rows * spmm_cols) * sizeof(T);
    for (const auto& impl : spmm_impls<I, T>()) {
      if (impl.device != dev) continue;
      Dense<T> c(a.rows, spmm_cols);
      auto r = impl.make({&a, &x, &c, T(1)});
      const int reps = impl.name == "ref" ? std::min(repeat, 3) : repeat;
      const Measured ms = measure(*r, impl.name == "ref" ? 0 : warmup, reps);
      char check[32];
      std::snprintf(check, sizeof check, "%.1e", max_rel_diff(c.data, want_mm.data));
      rows.push_back({"spmm", name, impl.name, ms.compute.median, mm_flops, mm_bytes, check});
    }
    // Ratios: to cuSPARSE on the GPU, to ref on the CPU.
    const std::string vendor = dev == Device::cuda ? "cusparse" : "ref";
    std::map<std::string, double> vendor_s;
    for (const auto& r : rows)
      if (r.impl == vendor) vendor_s[r.op] = r.seconds;
    for (const auto& r : rows) {
      const double v = vendor_s.count(r.op) ? vendor_s[r.op] : 0;
      report(r, v);
      if (v > 0) {
        log_sum[r.op + " " + r.impl] += std::log(v / r.seconds);
        ++log_n[r.op + " " + r.impl];
      }
    }
  }
  for (const auto& [key, s] : log_sum) {
    const double geo = std::exp(s / log_n[key]);
    bench::emit({{"summary", "geomean_vs_vendor"}, {"impl", key}, {"value", geo}});
    std::printf("geomean speed vs %s  %-22s %.2f\n", dev == Device::cuda ? "cusparse" : "ref",
                key.c_str(), geo);
  }
  return 0;
}
