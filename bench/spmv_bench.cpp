// SpMV benchmark: every CPU implementation on generated matrices larger than the caches,
// against the copy bandwidth measured in the same run.
//
// Formula (kernels/spmv.hpp): bytes = nnz*(sizeof(T)+sizeof(I)) + (rows+1)*sizeof(I)
// + cols*sizeof(T) + rows*sizeof(T); GB/s = bytes / median seconds. This counts every
// array once: on random columns the real traffic for x is higher, so those matrices are
// reported but the 70%-of-copy target is judged on the regular ones.
#include <omp.h>

#include <cstdio>
#include <iostream>

#include "bench_common.hpp"
#include "mm/generate.hpp"
#include "spmv.hpp"

namespace {

using namespace mm;

struct Case {
  std::string name;
  GenOptions opt;
  bool regular;  // x accessed near the diagonal: the copy-bandwidth target applies
};

GenOptions gen(const std::string& kind, std::int64_t n, double per_row = 0) {
  GenOptions o;
  o.kind = kind;
  o.seed = 1;
  if (kind == "poisson2d" || kind == "poisson3d") {
    o.n = n;
    o.symmetry = Symmetry::symmetric;  // so cpu-sym runs on the stored triangle too
  } else {
    o.rows = n;
    o.cols = n;
  }
  if (per_row > 0) o.nnz_per_row = per_row;
  if (kind == "banded") {
    o.rows.reset();
    o.cols.reset();
    o.n = n;
    o.bandwidth = 4;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;  // 0.1 for a quick run
  const int threads = omp_get_max_threads();
  const int repeat = 9;
  const auto n = [&](double v) { return static_cast<std::int64_t>(v * scale); };
  const std::vector<Case> cases = {
      {"poisson2d-1000", gen("poisson2d", std::max<std::int64_t>(n(1000), 100)), true},
      {"poisson3d-100", gen("poisson3d", std::max<std::int64_t>(n(100), 20)), true},
      {"banded-2M-bw4", gen("banded", n(2000000)), true},
      {"sparse-1M-10", gen("sparse", n(1000000), 10), false},
      {"powerlaw-1M-10", gen("powerlaw", n(1000000), 10), false},
  };
  const double copy = bench::copy_gbps(std::size_t{256} << 20, threads);
  auto ctx = bench::context("spmv", threads);
  ctx["copy_gbps"] = copy;
  ctx["formula"] = "bytes = nnz*(val+idx) + (rows+1)*idx + cols*val + rows*val";
  bench::emit(ctx);
  std::printf("# copy bandwidth %.2f GB/s (%d threads, 256 MiB, read+write)\n", copy, threads);
  std::printf("%-16s %-8s %10s %10s %10s %8s\n", "matrix", "impl", "nnz", "median_ms", "GB/s",
              "of copy");
  for (const auto& c : cases) {
    const MtxMatrix m = generate(c.opt);
    using I = std::int32_t;
    using T = double;
    const auto full = coo_to_csr(to_coo<I, T>(m));
    const auto stored = coo_to_csr(to_coo<I, T>(m, false));
    std::vector<T> x(static_cast<std::size_t>(full.cols), 1.0),
        y(static_cast<std::size_t>(full.rows));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + static_cast<double>(i % 7) * 0.25;
    for (const auto& impl : spmv_impls<I, T>()) {
      const bool sym = impl.name == "cpu-sym";
      if (sym && m.header.symmetry == Symmetry::general) continue;
      SpmvProblem<I, T> p{
          sym ? &stored : &full, &stored, m.header.symmetry, x.data(), nullptr, y.data(), 1.0, 0.0};
      auto r = impl.make(p);
      const int reps = impl.name == "ref" ? 3 : repeat;
      const double t = bench::median_seconds(1, reps, [&] { r->run(); });
      const double bytes = spmv_bytes(*p.full, false);
      const double gbps = bytes / t * 1e-9;
      bench::emit({{"matrix", c.name},
                   {"impl", impl.name},
                   {"rows", full.rows},
                   {"nnz", full.nnz()},
                   {"stored_nnz", p.full->nnz()},
                   {"median_s", t},
                   {"repeats", reps},
                   {"bytes", bytes},
                   {"gbps", gbps},
                   {"of_copy", gbps / copy},
                   {"regular", c.regular}});
      std::printf("%-16s %-8s %10lld %10.3f %10.2f %7.0f%%\n", c.name.c_str(), impl.name.c_str(),
                  static_cast<long long>(full.nnz()), t * 1e3, gbps, 100 * gbps / copy);
    }
  }
  return 0;
}
