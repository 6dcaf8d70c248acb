// LU benchmark: ref, cpu-blocked (several block widths) and LAPACK getrf, with the
// trailing-update product against OpenBLAS dgemm and the copy-bandwidth ceiling; with
// --device cuda: cuda-blocked (several panel widths and tunings: LuTuning, mmlu's --tune keys),
// cuSOLVER getrf and cuda-hybrid against a device-to-device copy measured in the same run.
//
// Formula: LU flops = 2/3 n^3 (the record's); the update C -= A B with A m x k, B k x n
// counts 2 m n k. Each timed LU run copies A into the work matrix first (every variant
// the same plain copy; LAPACK's is column-major, prepared once outside the timing), so
// the ratio compares factorizations. Median of --repeat runs after --warmup runs.
// On the GPU each timed run is the implementation's whole device work, timed by events:
// the copy of A (cusolver: its two transposes, row-major in and out) and the factorization.
// Each cuda-blocked row records the tuning values it used (and with --profile, its profile).
// The "gemm bound" row: the LU's flops at the rate cuBLAS's DGEMM sustains at the shape of
// cuda-blocked's first trailing update (gemm_bound_rate below), the least time any LU made of
// such products takes on this GPU as it is clocked under that load.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "bench_common.hpp"
#include "device.hpp"
#include "gemm.hpp"
#include "lu.hpp"
#include "mm/cli.hpp"
#include "vendor/openblas.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/lu/lu_cuda.hpp"
#endif

#define LAPACK_DISABLE_NAN_CHECK
#include <lapacke.h>

namespace po = boost::program_options;

namespace {

using namespace mm;

// The operands: uniform in [-1, 1) (bench::random_dense), square unless said.
Dense<double> random_matrix(std::int64_t n, std::uint64_t seed) {
  return bench::random_dense(n, n, seed);
}

struct Row {
  std::string name;
  std::int64_t n;
  double seconds, gflops;
};

// A variant of cuda-blocked: its name in the table and its tuning.
struct Variant {
  std::string name;
  LuTuning tuning;
};

#ifdef MM_HAVE_CUDA
std::vector<std::int64_t> parse_list(const std::string& s) {
  std::vector<std::int64_t> v;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::stoll(x));
  return v;
}

// cuBLAS's DGEMM rate (flop/s) at the shape of cuda-blocked's first trailing update at N
// (C = A B, m = n - nb rows and columns, rank NB; random inputs: zeros
// draw less power). It runs back to back for about a second before the timed runs: the rate
// a long factorization's products get, not a cold GPU's (an H200 reaches its 700 W cap within
// a second of DGEMM and clocks down, 45-53 TFLOP/s at n = 32768 against 61 on zeros).
double gemm_bound_rate(std::int64_t n, std::int64_t nb, int repeat) {
  const std::int64_t m = std::max<std::int64_t>(n - nb, 1);
  const Dense<double> a = bench::random_dense(m, nb, 7), b = bench::random_dense(nb, m, 8);
  Dense<double> c(m, m);
  GemmProblem<double> p;
  p.a = &a, p.b = &b, p.c = &c;
  auto r = pick_impl(gemm_impls<double>(), "gemm", "cublas", Device::cuda).make(p);
  const double flops = gemm_flops(m, m, nb, false);
  const double once = measure(*r, 3, 3).compute.median;
  const int warm = static_cast<int>(std::min(20000.0, std::ceil(1.0 / std::max(once, 1e-6))));
  return flops / measure(*r, warm, std::max(repeat, 10)).compute.median;
}

// At each size: cuSOLVER's getrf alone (a device copy of A and Xgetrf: the reference of
// the ratios, the same work as cuda-blocked's copy and factorization), cusolver as mmlu runs
// it (row-major in and out: two transposes; the reference of the factors and pivots), then
// cuda-blocked's variants at each panel width (0: the variant's nb, by default its default for
// n) and cuda-hybrid up to HYBRID_MAX; PROFILE: cuda-blocked's --profile level.
// "copy-bound s": reading A and writing LU once at the device copy bandwidth.
int run_cuda(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& nbs,
             const std::vector<Variant>& variants, std::int64_t hybrid_max, int warmup, int repeat,
             int profile) {
  const double copy = cuda_copy_gbps(std::size_t{1} << 30);
  bench::emit({{"bench", "lu_bench"}, {"device", cuda_devices().name}, {"copy_gbps", copy}});
  std::ostringstream md;
  md << "# lu_bench --device cuda on " << cuda_devices().name << ": double, median of " << repeat
     << " after " << warmup << " warm-up, event-timed\n\ncopy bandwidth: " << copy
     << " GB/s (read + write)\n\n| impl | n | median s | GFLOP/s | x cusolver getrf | max rel "
        "diff vs cusolver | pivots = cusolver | copy-bound s |\n"
        "|---|---:|---:|---:|---:|---:|---|---:|\n";
  for (const std::int64_t n : sizes) {
    const Dense<double> a = random_matrix(n, 42);
    Dense<double> ref_lu;
    std::vector<std::int64_t> ref_piv;
    double getrf_t = 0;
    const double floor_s = 2.0 * static_cast<double>(n * n) * 8 / (copy * 1e9);
    // The Markdown row (and its echo on standard error): DIFF and SAME as printed.
    auto table_row = [&](const std::string& name, double t, double gf, const std::string& diff,
                         const std::string& same) {
      char line[256];
      std::snprintf(line, sizeof line, "| %s | %lld | %.5f | %.1f | %.2f | %s | %s | %.5f |\n",
                    name.c_str(), static_cast<long long>(n), t, gf, getrf_t / t, diff.c_str(),
                    same.c_str(), floor_s);
      md << line;
      std::cerr << line;
    };
    // FACTORS: the run's LU and pivots are A's (compared with cusolver's, the first such).
    auto bench_impl = [&](const std::string& name, const LuMake<double>& make, bool factors) {
      Dense<double> lu(n, n);
      std::vector<std::int64_t> piv(static_cast<std::size_t>(n));
      auto r = make(LuProblem<double>{&a, &lu, &piv});
      const Measured m = measure(*r, warmup, repeat);
      r.reset();  // its device memory, before the next one allocates
      const double t = m.compute.median, gf = lu_flops<double>(n) / t * 1e-9;
      if (getrf_t == 0) getrf_t = t;
      double diff = NAN, scale = 0;
      std::string same = "-";
      if (factors && ref_lu.data.empty()) {
        ref_lu = std::move(lu), ref_piv = std::move(piv);
        diff = 0, same = "yes";
      } else if (factors) {
        diff = 0;
        for (std::size_t i = 0; i < lu.data.size(); ++i) {
          diff = std::max(diff, std::abs(lu.data[i] - ref_lu.data[i]));
          scale = std::max(scale, std::abs(ref_lu.data[i]));
        }
        diff /= std::max(scale, 1e-300);
        same = piv == ref_piv ? "yes" : "NO";
      }
      nlohmann::json row{{"impl", name},
                         {"n", n},
                         {"median_s", t},
                         {"gflops", gf},
                         {"vs_cusolver_getrf", getrf_t / t},
                         {"max_rel_diff_vs_cusolver", factors ? nlohmann::json(diff) : nullptr},
                         {"pivots_equal", same},
                         {"tuning", m.tuning}};
      if (!m.profile.is_null()) row["profile"] = m.profile;
      bench::emit(row);
      char d[32];
      std::snprintf(d, sizeof d, "%.1e", diff);
      table_row(name, t, gf, d, same);
    };
    bench_impl(
        "cusolver getrf", [](const LuProblem<double>& p) { return make_lu_cusolver_getrf_only(p); },
        false);
    bench_impl(
        "cusolver", [](const LuProblem<double>& p) { return make_lu_cusolver(p); }, true);
    for (const Variant& variant : variants)
      for (const std::int64_t nb : nbs) {
        LuTuning t = variant.tuning;
        if (nb > 0) t.nb = static_cast<int>(nb);
        bench_impl(
            std::string("cuda-blocked") + (variant.name.empty() ? "" : " " + variant.name) +
                (nb > 0 ? " nb=" + std::to_string(nb) : ""),
            [t, profile](const LuProblem<double>& p) {
              LuProblem<double> q = p;
              q.tuning = t;
              q.profile = profile;
              return make_lu_cuda_blocked(q);
            },
            true);
      }
    if (n <= hybrid_max)
      bench_impl(
          "cuda-hybrid", [](const LuProblem<double>& p) { return make_lu_cuda_hybrid(p); }, true);
    const std::int64_t gemm_nb = std::min(lu_cuda_default_nb(n), n);
    const double rate = gemm_bound_rate(n, gemm_nb, repeat), bound_t = lu_flops<double>(n) / rate;
    bench::emit({{"impl", "gemm bound"},
                 {"n", n},
                 {"median_s", bound_t},
                 {"gflops", rate * 1e-9},
                 {"vs_cusolver_getrf", getrf_t / bound_t},
                 {"gemm_nb", gemm_nb}});
    table_row("gemm bound", bound_t, rate * 1e-9, "-", "-");
  }
  std::cout << "\n" << md.str();
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 2048, n_ref = 512;
  int repeat = 5, warmup = 1, threads = 0;
  std::string blocks = "64,96,128,192,256", device = "cpu", sizes = "1024,2048,4096,8192,16384",
              nbs = "0";
  std::int64_t hybrid_max = 4096;
  std::string leaves = "cluster", variants;
  std::vector<std::string> tune;
  int profile = 0;
  po::options_description o("lu_bench options");
  o.add_options()("help,h", "this help")("n", po::value(&n)->default_value(2048), "matrix size")(
      "device", po::value(&device)->default_value(device),
      "cpu or cuda (cuda: warmup 2, repeat 5 unless given)")(
      "sizes", po::value(&sizes)->default_value(sizes), "cuda: matrix sizes, comma-separated")(
      "nb", po::value(&nbs)->default_value(nbs),
      "cuda: cuda-blocked panel widths, comma-separated (0: the variant's nb, by default its "
      "default for n)")("leaf", po::value(&leaves)->default_value(leaves),
                        "cuda: cuda-blocked leaf modes (--tune leaf=), comma-separated: cluster, "
                        "grid")(
      "variants", po::value(&variants),
      "cuda: cuda-blocked variants instead of --leaf, ';'-separated, each K=V,K=V tuning keys "
      "over --tune's (mmlu's keys: --tune help), e.g. 'leaf=grid;reg_rows=0;exchange=sync'; '' "
      "for none")("tune", po::value(&tune),
                  "cuda: KEY=VALUE, repeatable: tune every cuda-blocked run as mmlu's --tune does "
                  "(--tune help: the keys)")(
      "profile", po::value(&profile)->default_value(0),
      "cuda: cuda-blocked's --profile level (1 or 2), to stderr and each row's record")(
      "hybrid-max-n", po::value(&hybrid_max)->default_value(hybrid_max),
      "cuda: the largest n cuda-hybrid runs at")("n-ref", po::value(&n_ref)->default_value(512),
                                                 "size for the serial ref")(
      "repeat", po::value(&repeat)->default_value(5), "timed runs (median)")(
      "warmup", po::value(&warmup)->default_value(1), "untimed runs first")(
      "threads", po::value(&threads)->default_value(0), "threads (0: all cores)")(
      "blocks", po::value(&blocks)->default_value(blocks),
      "cpu-blocked block widths, comma-separated");
  po::variables_map vm;
  if (!mm::bench::parse_options(argc, argv, o, vm, "lu_bench")) return 2;
  if (vm.count("help")) {
    std::cout << o << "\n";
    return 0;
  }
  // cuda-blocked's variants, by mmlu's tuning keys, parsers and checks: a bad one exits 2 now.
  std::vector<Variant> list;
  try {
    const TuneArgs args(tune);
    if (args.help()) {
      std::cout << tune_help("lu_bench", {LuTuning::keys()});
      return 0;
    }
    args.check_known("lu_bench", {LuTuning::keys()});
    LuTuning::from(args);  // --tune's values checked, whatever the variants set over them
    if (profile < 0 || profile > 2) throw UsageError("--profile takes 0, 1 or 2");
    std::vector<std::string> names;
    if (vm.count("variants")) {
      names = bench::split_variants(variants);
    } else {
      std::stringstream ls(leaves);
      for (std::string x; std::getline(ls, x, ',');) names.push_back("leaf=" + x);
    }
    for (const std::string& name : names)
      list.push_back({name, bench::variant_tuning<LuTuning>("lu_bench", tune, name)});
  } catch (const UsageError& e) {
    std::cerr << "lu_bench: " << e.what() << "\n";
    return 2;
  }
  if (device != "cuda" && (!tune.empty() || vm.count("variants") || profile > 0))
    std::cerr << "lu_bench: warning: --tune, --variants and --profile tune cuda-blocked, not the "
                 "CPU's LU\n";
  if (device == "cuda") {
    if (vm["warmup"].defaulted()) warmup = 2;
#ifdef MM_HAVE_CUDA
    try {
      return run_cuda(parse_list(sizes), parse_list(nbs), list, hybrid_max, warmup, repeat,
                      profile);
    } catch (const mm::Error& e) {
      std::cerr << "lu_bench: --device cuda: " << e.what() << "\n";
      return 4;
    }
#else
    std::cerr << "lu_bench: built without CUDA\n";
    return 4;
#endif
  }
  if (device != "cpu") {
    std::cerr << "lu_bench: --device must be cpu or cuda, not '" << device << "'\n";
    return 2;
  }
  threads = thread_count(threads);
  omp_set_num_threads(threads);
  set_openblas_threads(threads);
  bench::emit(bench::context("lu_bench", threads));

  const double copy = bench::copy_gbps(std::size_t{256} << 20, threads);
  std::vector<Row> rows;
  auto lu_row = [&](const std::string& name, std::int64_t size, const std::function<void()>& f) {
    const double t = bench::median_seconds(warmup, repeat, f);
    rows.push_back({name, size, t, lu_flops<double>(size) / t * 1e-9});
    bench::emit({{"impl", name}, {"n", size}, {"median_s", t}, {"gflops", rows.back().gflops}});
  };

  const Dense<double> a = random_matrix(n, 42);
  Dense<double> w(n, n);
  std::vector<std::int64_t> ipiv(static_cast<std::size_t>(n));
  // LAPACK: the same matrix, column-major (its transpose in row-major terms).
  std::vector<double> acol(a.data.size()), wcol(a.data.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) acol[j * n + i] = a(i, j);
  std::vector<lapack_int> lpiv(static_cast<std::size_t>(n));
  lu_row("lapack dgetrf", n, [&] {
    std::copy(acol.begin(), acol.end(), wcol.begin());
    LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, static_cast<lapack_int>(n), static_cast<lapack_int>(n),
                        wcol.data(), static_cast<lapack_int>(n), lpiv.data());
  });
  std::stringstream bs(blocks);
  for (std::string b; std::getline(bs, b, ',');) {
    const std::int64_t nb = std::stoll(b);
    lu_row("cpu-blocked nb=" + b, n, [&] {
      std::copy(a.data.begin(), a.data.end(), w.data.begin());
      lu_cpu_blocked(w, ipiv.data(), nb);
    });
  }
  {
    const Dense<double> r = random_matrix(n_ref, 7);
    Dense<double> rw(n_ref, n_ref);
    // Pivots of n_ref rows (which may be more than n's).
    std::vector<std::int64_t> rpiv(static_cast<std::size_t>(n_ref));
    std::vector<lapack_int> rlpiv(static_cast<std::size_t>(n_ref));
    lu_row("ref", n_ref, [&] {
      rw = r;
      lu_ref(rw, rpiv.data());
    });
    lu_row("cpu-blocked nb=128", n_ref, [&] {
      rw = r;
      lu_cpu_blocked(rw, rpiv.data(), 128);
    });
    std::vector<double> rcol(r.data.size());
    lu_row("lapack dgetrf", n_ref, [&] {
      for (std::int64_t i = 0; i < n_ref; ++i)
        for (std::int64_t j = 0; j < n_ref; ++j) rcol[j * n_ref + i] = r(i, j);
      LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, static_cast<lapack_int>(n_ref),
                          static_cast<lapack_int>(n_ref), rcol.data(),
                          static_cast<lapack_int>(n_ref), rlpiv.data());
    });
  }
  // The trailing update alone: C (n x n) -= A (n x 128) B (128 x n), ours and dgemm's.
  const std::int64_t k = 128;
  const Dense<double> ua = random_matrix(n, 1), ub = random_matrix(n, 2);
  Dense<double> c = random_matrix(n, 3);
  const double gemm_flops = 2.0 * n * n * k;
  const double t_ours = bench::median_seconds(warmup, repeat, [&] {
    gemm_sub_cpu(n, n, k, ua.data.data(), n, ub.data.data(), n, c.data.data(), n);
  });
  const double t_blas = bench::median_seconds(warmup, repeat, [&] {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(n),
                static_cast<int>(k), -1.0, ua.data.data(), static_cast<int>(n), ub.data.data(),
                static_cast<int>(n), 1.0, c.data.data(), static_cast<int>(n));
  });
  bench::emit({{"update", "gemm_sub_cpu"}, {"gflops", gemm_flops / t_ours * 1e-9}});
  bench::emit({{"update", "cblas_dgemm"}, {"gflops", gemm_flops / t_blas * 1e-9}});

  // The table for the results file. Ratio: against LAPACK at the same n. "copy-bound s":
  // the time to read A and write LU once at the copy bandwidth (the floor any LU meets).
  std::cout << "\ncopy bandwidth: " << copy << " GB/s (read + write, " << threads
            << " threads)\n\n";
  std::cout << "| variant | n | median s | GFLOP/s | vs LAPACK | copy-bound s "
               "|\n|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    double lapack = 0;
    for (const Row& l : rows)
      if (l.name == "lapack dgetrf" && l.n == r.n) lapack = l.gflops;
    const double floor_s = 2.0 * static_cast<double>(r.n * r.n) * 8 / (copy * 1e9);
    std::printf("| %s | %lld | %.4f | %.2f | %.2f | %.5f |\n", r.name.c_str(),
                static_cast<long long>(r.n), r.seconds, r.gflops, r.gflops / lapack, floor_s);
  }
  std::printf("| update C -= A B, ours (k=128) | %lld | %.4f | %.2f | %.2f vs dgemm | |\n",
              static_cast<long long>(n), t_ours, gemm_flops / t_ours * 1e-9, t_blas / t_ours);
  std::printf("| update C -= A B, cblas_dgemm | %lld | %.4f | %.2f | 1.00 | |\n",
              static_cast<long long>(n), t_blas, gemm_flops / t_blas * 1e-9);
  return 0;
}
