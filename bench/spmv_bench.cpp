// SpMV benchmark: every implementation of one device on generated matrices larger than
// the caches, against the copy bandwidth (and on the GPU cuSPARSE) measured in the same run.
//
//   spmv_bench [--device cpu|cuda] [--scale S] [--sweep]
//
// Formula (kernels/spmv.hpp): bytes = nnz*(sizeof(T)+sizeof(I)) + (rows+1)*sizeof(I)
// + cols*sizeof(T) + rows*sizeof(T); GB/s = bytes / median seconds (GPU: CUDA events
// around the kernels, transfers excluded). This counts every array once: with random
// columns the real traffic for x is higher (on the GPU x, 16 MB, fits L2 and can be served
// from there). "vs vendor" is cuSPARSE's median time over this one's, in the same run;
// "default" is the implementation mmspmv runs when none is named (spmv_default_impl, from
// the row statistics). Irregular: random, power-law rows (Pareto, alpha 1.5 / 2 / 2.5 / 3,
// mean 8) and long rows. --sweep also runs the GPU kernels' tuning keys (lanes, items, l2).
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "analysis/generate.hpp"
#include "bench_common.hpp"
#include "spmv.hpp"

namespace {

using namespace mm;

struct Case {
  std::string name;
  GenOptions opt;
  bool regular;
  std::int64_t long_rows = 0;  // rows made full after generation ("a few very long rows")
};

GenOptions gen(const std::string& kind, std::int64_t n, double per_row = 0,
               std::int64_t bandwidth = 0, double alpha = 0) {
  GenOptions o;
  if (alpha > 0) o.alpha = alpha;
  o.kind = kind;
  o.seed = 1;
  if (kind == "poisson2d" || kind == "poisson3d" || kind == "banded")
    o.n = n;
  else
    o.rows = o.cols = n;
  if (per_row > 0) o.nnz_per_row = per_row;
  if (bandwidth > 0) o.bandwidth = bandwidth;
  return o;
}

// Makes the first K rows of A full (every column): a few rows far longer than the rest.
template <class I, class T>
void add_long_rows(Csr<I, T>& a, std::int64_t k) {
  Csr<I, T> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.ptr.push_back(0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    if (i < k) {
      for (std::int64_t j = 0; j < a.cols; ++j) {
        b.idx.push_back(static_cast<I>(j));
        b.val.push_back(T(1.0 / static_cast<double>(j + 1)));
      }
    } else {
      b.idx.insert(b.idx.end(), a.idx.begin() + a.ptr[i], a.idx.begin() + a.ptr[i + 1]);
      b.val.insert(b.val.end(), a.val.begin() + a.ptr[i], a.val.begin() + a.ptr[i + 1]);
    }
    b.ptr.push_back(static_cast<I>(b.idx.size()));
  }
  a = std::move(b);
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "cpu";
  double scale = 1.0;
  bool sweep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc)
      device = argv[++i];
    else if (!std::strcmp(argv[i], "--scale") && i + 1 < argc)
      scale = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--sweep"))
      sweep = true;
  }
  const Device dev = device == "cuda" ? Device::cuda : Device::cpu;
  const auto sz = [&](double v, double lo) {
    return static_cast<std::int64_t>(std::max(lo, v * scale));
  };
  // CPU sizes about 5M nonzeros; GPU sizes 10M+ nonzeros (issue 16's matrices).
  const double f = dev == Device::cuda ? 1.0 : 0.4;
  const std::int64_t n2m = sz(2000000 * f, 1000);
  const std::vector<Case> cases = {
      {"poisson2d", gen("poisson2d", sz(1500 * std::sqrt(f), 50)), true},
      {"poisson3d", gen("poisson3d", sz(130 * std::cbrt(f), 10)), true},
      {"banded-bw3", gen("banded", n2m, 0, 3), true},
      {"random-8", gen("sparse", n2m, 8), false},
      {"powerlaw-a1.5", gen("powerlaw", n2m, 8, 0, 1.5), false},
      {"powerlaw-a2", gen("powerlaw", n2m, 8, 0, 2.0), false},
      {"powerlaw-8", gen("powerlaw", n2m, 8), false},  // alpha 2.5 (mmgen's default)
      {"powerlaw-a3", gen("powerlaw", n2m, 8, 0, 3.0), false},
      {"long-rows", gen("sparse", sz(1000000 * f, 1000), 10), false, 4},
  };
  // The GPU kernels' tuning values run under --sweep, as "impl[key=value]".
  std::vector<std::pair<std::string, SpmvTuning>> sweeps;
  if (sweep && dev == Device::cuda) {
    for (const int lanes : {1, 2, 4, 8, 16})
      sweeps.push_back({"cuda-vector-k", SpmvTuning{.lanes = lanes}});
    for (const int l2 : {1, 2}) {
      sweeps.push_back({"cuda-vector-k", SpmvTuning{.lanes = 2, .l2 = l2}});
      sweeps.push_back({"cuda-adaptive", SpmvTuning{.l2 = l2}});
      sweeps.push_back({"cuda-csr-stream", SpmvTuning{.l2 = l2}});
    }
    sweeps.push_back({"cuda-merge", SpmvTuning{.items = 8}});
  }
  const int threads = omp_get_max_threads();
  const double copy = dev == Device::cuda ? cuda_copy_gbps(std::size_t{1} << 30)
                                          : bench::copy_gbps(std::size_t{256} << 20, threads);
  auto ctx = bench::context("spmv", threads);
  ctx["device_kind"] = device;
  if (dev == Device::cuda) ctx["device"] = cuda_devices().name;
  ctx["copy_gbps"] = copy;
  ctx["formula"] =
      "bytes = nnz*(val+idx) + (rows+1)*idx + cols*val + rows*val; double values, int32 indices";
  bench::emit(ctx);
  std::printf("# %s: copy bandwidth %.1f GB/s (read+write)\n",
              ctx["device"].get<std::string>().c_str(), copy);
  std::printf("%-14s %-28s %10s %10s %9s %8s %9s\n", "matrix", "impl", "nnz", "median_us", "GB/s",
              "of copy", "vs vendor");
  // Per implementation: the sums of log(vs vendor) over every matrix and over the irregular
  // ones, and the least ratio; the same for "default" (what mmspmv runs).
  std::map<std::string, double> log_all, log_irregular, least;
  std::map<std::string, int> n_all, n_irregular;
  for (const auto& c : cases) {
    using I = std::int32_t;
    using T = double;
    const MtxMatrix m = generate(c.opt);
    auto a = coo_to_csr(to_coo<I, T>(m));
    if (c.long_rows) add_long_rows(a, c.long_rows);
    std::vector<T> x(static_cast<std::size_t>(a.cols)), y(static_cast<std::size_t>(a.rows));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + static_cast<double>(i % 7) * 0.25;
    const double bytes = spmv_bytes(a, false);
    std::map<std::string, double> gbps;
    std::map<std::string, nlohmann::json> used;  // the tuning each ran with
    const auto time_one = [&](const Impl<SpmvMake<I, T>>& impl, const std::string& name,
                              const SpmvTuning& t) {
      SpmvProblem<I, T> p{&a, nullptr, Symmetry::general, x.data(), nullptr, y.data(), 1.0, 0.0};
      auto r = impl.make(p, t);
      const int reps = impl.name == "ref" ? 3 : (dev == Device::cuda ? 50 : 9);
      const Measured ms = measure(*r, 2, reps);
      gbps[name] = bytes / ms.compute.median * 1e-9;
      used[name] = ms.tuning;
    };
    // cuSPARSE first, before any kernel has marked lines of its own x to be kept in L2.
    std::vector<const Impl<SpmvMake<I, T>>*> order;
    for (const auto& impl : spmv_impls<I, T>())
      if (impl.device == dev && impl.make.input == SpmvInput::full)  // general A
        order.insert(impl.name == "cusparse" ? order.begin() : order.end(), &impl);
    for (const auto* ip : order) {
      const auto& impl = *ip;
      time_one(impl, impl.name, {});
      for (const auto& [name, t] : sweeps)
        if (name == impl.name) {
          std::string tag;
          const nlohmann::json keys = t.to_json();
          for (const auto& [k, v] : keys.items())
            tag += (tag.empty() ? "" : ",") + k + "=" +
                   (v.is_string() ? v.get<std::string>() : v.dump());
          time_one(impl, name + "[" + tag + "]", t);
        }
    }
    const auto& chosen = spmv_default_impl(a, dev);
    gbps["default"] = gbps[chosen.name];
    used["default"] = used[chosen.name];
    const SpmvRowStats st = spmv_row_stats(a);
    std::printf("# %s: rows %lld, nnz %lld, row length mean %.2f max %lld cv %.2f -> default %s\n",
                c.name.c_str(), static_cast<long long>(st.rows), static_cast<long long>(st.nnz),
                st.mean, static_cast<long long>(st.max), st.cv, chosen.name.c_str());
    const double vendor = gbps.count("cusparse") ? gbps["cusparse"] : 0;
    for (const auto& [name, g] : gbps) {
      const double vs = vendor > 0 ? g / vendor : 0;
      if (vendor > 0) {
        log_all[name] += std::log(vs);
        ++n_all[name];
        if (!c.regular) {
          log_irregular[name] += std::log(vs);
          ++n_irregular[name];
        }
        least[name] = least.count(name) ? std::min(least[name], vs) : vs;
      }
      bench::emit({{"matrix", c.name},
                   {"impl", name},
                   {"rows", a.rows},
                   {"nnz", a.nnz()},
                   {"bytes", bytes},
                   {"gbps", g},
                   {"median_s", bytes / g * 1e-9},
                   {"of_copy", g / copy},
                   {"vs_vendor", vs},
                   {"regular", c.regular},
                   {"tuning", used[name]},
                   {"row_mean", st.mean},
                   {"row_max", st.max},
                   {"row_cv", st.cv},
                   {"default_impl", chosen.name}});
      std::printf("%-14s %-28s %10lld %10.1f %9.1f %7.0f%% %9.2f\n", c.name.c_str(),
                  name == "default" ? ("default=" + chosen.name).c_str() : name.c_str(),
                  static_cast<long long>(a.nnz()), bytes / g * 1e-3, g, 100 * g / copy, vs);
    }
  }
  std::printf("%-28s %9s %9s %9s\n", "vs cusparse", "geomean", "irregular", "least");
  for (const auto& [name, s] : log_all) {
    const double geo = std::exp(s / n_all[name]);
    const double irr = n_irregular[name] ? std::exp(log_irregular[name] / n_irregular[name]) : 0;
    bench::emit({{"summary", "geomean_vs_vendor"}, {"impl", name}, {"value", geo}});
    bench::emit({{"summary", "geomean_vs_vendor_irregular"}, {"impl", name}, {"value", irr}});
    bench::emit({{"summary", "least_vs_vendor"}, {"impl", name}, {"value", least[name]}});
    std::printf("%-28s %9.2f %9.2f %9.2f\n", name.c_str(), geo, irr, least[name]);
  }
  return 0;
}
