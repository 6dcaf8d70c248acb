// GEMM benchmark: every implementation of one device, GFLOP/s beside the vendor library
// (OpenBLAS, or cuBLAS with --device cuda) and the copy bandwidth measured in the same run.
//
// Formula: flops = 2*n^3 (C = A*B, all n x n); bytes = 3*n^2*sizeof(T) (A, B read, C written).
// --device cuda: kernel time by CUDA events (transfers excluded), WARMUP untimed runs then
// the median of REPEAT; n = 8192 (256 MiB per float matrix, far above the 50 MB L2) for
// cuBLAS, the register-blocked and tensor-core kernels, and --slow-n (4096, 64 MiB per float
// matrix) for the naive and tiled kernels with cuBLAS again for their ratio. Single precision
// also times cuBLAS with TF32 tensor-op math (cublas-tf32): the TF32 kernel cuda-tf32 rounds
// its inputs as it does, so its ratio is taken against cublas-tf32, never against SGEMM.
// Each measurement: WARMUP untimed runs, then the median of REPEAT timed runs, the
// implementations taking turns run by run. Square
// inputs of uniform values in [-1, 1); n = 2048 is 32 MiB per double matrix (L2 is a few
// MiB), so every run streams its panels from memory or L3. The naive `ref` is measured at
// --ref-n (it is too slow for 2048) together with OpenBLAS at that size for its ratio.
#include <omp.h>

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "bench_common.hpp"
#include "device.hpp"
#include "gemm.hpp"
#include "vendor/openblas.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace {

struct Row {
  std::string precision, impl;
  std::int64_t n;
  double seconds, gflops, gbps, vs_openblas, vs_copy, max_rel_diff;
};

// Largest |x - y| / max|y| between two results: a sanity check that what was timed is right.
template <class T>
double rel_diff(const mm::Dense<T>& x, const mm::Dense<T>& y) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    err = std::max(err, std::abs(static_cast<double>(x.data[i]) - static_cast<double>(y.data[i])));
    scale = std::max(scale, std::abs(static_cast<double>(y.data[i])));
  }
  return scale > 0 ? err / scale : err;
}

template <class T>
void run_size(const std::string& prec, std::int64_t n, const std::vector<std::string>& names,
              int warmup, int repeat, double copy, int threads, std::vector<Row>& rows) {
  const auto a = mm::bench::random_dense<T>(n, n, 1), b = mm::bench::random_dense<T>(n, n, 2);
  const double flops = mm::gemm_flops(n, n, n, false), bytes = mm::gemm_bytes(n, n, n, sizeof(T));
  struct Entry {
    std::string name;
    mm::Dense<T> c;
    std::unique_ptr<mm::Runner> r;
    std::vector<double> t;
  };
  std::vector<Entry> es;
  // NAME is an implementation, optionally followed by its tuning ("cpu-blocked microkernel=avx2").
  const auto make = [&](const std::string& name, mm::Dense<T>& c) {
    const auto sp = name.find(' ');
    const mm::GemmTuning tuning = mm::GemmTuning::from(
        mm::TuneArgs(sp == std::string::npos ? std::vector<std::string>{}
                                             : std::vector<std::string>{name.substr(sp + 1)}));
    return mm::pick_impl(mm::gemm_impls<T>(), "gemm", name.substr(0, sp), mm::Device::cpu)
        .make(mm::GemmProblem<T>{&a, &b, &c, T(1), tuning});
  };
  for (const auto& name : names) {
    Entry e{name, mm::Dense<T>(n, n), nullptr, {}};
    try {
      e.r = make(name, e.c);
    } catch (const mm::DeviceError& err) {
      std::cerr << "gemm_bench: skipping " << name << ": " << err.what() << "\n";
      continue;
    }
    es.push_back(std::move(e));
  }
  for (auto& e : es) e.r = make(e.name, e.c);  // runners bind e.c by address: es is stable now
  // Round robin: the machine is shared, so every implementation sees the same spells of
  // contention rather than one of them catching a busy minute.
  for (int k = 0; k < warmup + repeat; ++k)
    for (auto& e : es) {
      mm::Stopwatch w;
      e.r->run();
      if (k >= warmup) e.t.push_back(w.seconds());
    }
  const Entry* blas = nullptr;
  for (const auto& e : es)
    if (e.name == "openblas") blas = &e;
  const double blas_t = blas ? mm::summarize(blas->t).median : NAN;
  for (const auto& e : es) {
    const double t = mm::summarize(e.t).median;
    Row row{prec,
            e.name,
            n,
            t,
            flops / t * 1e-9,
            bytes / t * 1e-9,
            blas_t / t,
            0,
            blas ? rel_diff(e.c, blas->c) : NAN};
    row.vs_copy = row.gbps / copy;
    json j = mm::bench::context("gemm_bench", threads);
    j.update({{"precision", prec},
              {"impl", e.name},
              {"n", n},
              {"seconds", t},
              {"gflops", row.gflops},
              {"gbps", row.gbps},
              {"copy_gbps", copy},
              {"vs_openblas", row.vs_openblas},
              {"max_rel_diff_vs_openblas", row.max_rel_diff}});
    mm::bench::emit(j);
    rows.push_back(row);
  }
}

// The vendor run a CUDA implementation's ratio is taken against: the TF32 ones (named so)
// against cuBLAS with TF32 tensor-op math, which rounds its inputs alike; the others against
// cuBLAS's default math.
std::string vendor_peer(const std::string& impl) {
  const std::string tf32 = "-tf32";
  const bool is_tf32 =
      impl.size() > tf32.size() && impl.compare(impl.size() - tf32.size(), tf32.size(), tf32) == 0;
  return is_tf32 ? "cublas-tf32" : "cublas";
}

// Every CUDA implementation named, one at a time (each holds A, B and C on the GPU), timed by
// measure(); NAMES starts with cublas, the reference of the differences, and lists each
// vendor peer (vendor_peer) before the kernels compared with it.
template <class T>
void run_cuda_size(const std::string& prec, std::int64_t n, const std::vector<std::string>& names,
                   int warmup, int repeat, double copy, std::vector<Row>& rows) {
  const auto a = mm::bench::random_dense<T>(n, n, 1), b = mm::bench::random_dense<T>(n, n, 2);
  const double flops = mm::gemm_flops(n, n, n, false), bytes = mm::gemm_bytes(n, n, n, sizeof(T));
  mm::Dense<T> blas_c;
  std::map<std::string, double> vendor_t;  // seconds of each vendor peer at this size
  for (const auto& name : names) {
    const mm::Impl<mm::GemmMake<T>>* impl = nullptr;
    for (const auto& i : mm::gemm_impls<T>())
      if (i.name == name && i.device == mm::Device::cuda) impl = &i;
    if (!impl) {
      std::cerr << "gemm_bench: no CUDA implementation " << name << " for " << prec << "\n";
      continue;
    }
    mm::Dense<T> c(n, n);
    auto r = impl->make(mm::GemmProblem<T>{&a, &b, &c, T(1), {}});
    const mm::Measured ms = mm::measure(*r, warmup, repeat);
    r.reset();  // frees its device memory before the next one allocates
    const double t = ms.compute.median;
    const std::string peer = vendor_peer(name);
    if (name == peer) vendor_t[name] = t;
    Row row{prec,
            name,
            n,
            t,
            flops / t * 1e-9,
            bytes / t * 1e-9,
            vendor_t.count(peer) ? vendor_t[peer] / t : NAN,
            0,
            name == "cublas" ? 0.0 : (blas_c.data.empty() ? NAN : rel_diff(c, blas_c))};
    row.vs_copy = row.gbps / copy;
    if (name == "cublas") blas_c = std::move(c);
    json j = mm::bench::context("gemm_bench", 0);
    j.update({{"device_kind", "cuda"},
              {"device", ms.device},
              {"precision", prec},
              {"impl", name},
              {"n", n},
              {"seconds", t},
              {"gflops", row.gflops},
              {"gbps", row.gbps},
              {"copy_gbps", copy},
              {"vendor_peer", peer},
              {"vs_vendor_peer", row.vs_openblas},
              {"max_rel_diff_vs_cublas", row.max_rel_diff}});
    mm::bench::emit(j);
    std::cerr << "gemm_bench: " << prec << " n=" << n << " " << name << ": " << row.gflops
              << " GFLOP/s\n";
    rows.push_back(row);
  }
}

// Median seconds of IMPL at N from the rows (NAN when absent).
double seconds_of(const std::vector<Row>& rows, const std::string& prec, std::int64_t n,
                  const std::string& impl) {
  for (const auto& r : rows)
    if (r.precision == prec && r.n == n && r.impl == impl) return r.seconds;
  return NAN;
}

std::string markdown(const std::vector<Row>& rows, double copy, const std::string& vendor) {
  std::ostringstream s;
  s << "| precision | n | impl | median s | GFLOP/s | x " << vendor
    << " | GB/s (formula) | x copy | max "
       "rel diff |\n"
    << "|---|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows)
    s << "| " << r.precision << " | " << r.n << " | " << r.impl << " | " << std::setprecision(4)
      << r.seconds << " | " << std::fixed << std::setprecision(1) << r.gflops << " | "
      << std::setprecision(2) << r.vs_openblas << " | " << std::setprecision(2) << r.gbps << " | "
      << std::setprecision(3) << r.vs_copy << " | " << std::scientific << std::setprecision(1)
      << r.max_rel_diff << std::defaultfloat << " |\n";
  s << "\nCopy bandwidth (read + write, same run): " << std::fixed << std::setprecision(1) << copy
    << " GB/s\n";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  // OpenMP's and OpenBLAS's idle threads spin-wait after each call; on two cores the spinning
  // pool of one library steals the cores of the next, and the implementations take turns
  // here. Both pools must sleep when idle, set before either library starts: run again so.
  if (!std::getenv("OMP_WAIT_POLICY") || !std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OMP_WAIT_POLICY", "passive", 0);
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    execv("/proc/self/exe", argv);
    std::cerr << "gemm_bench: cannot run again with passive thread pools; idle threads will spin\n";
  }
  std::int64_t n = 2048, ref_n = 512, slow_n = 4096;
  int warmup = 1, repeat = 5, threads = 0;
  std::string md, device = "cpu";
  std::vector<std::string> precisions{"double", "single"}, double_impls, single_impls;
  po::options_description opts("gemm_bench options");
  opts.add_options()("help,h", "this help")(
      "device", po::value(&device)->default_value(device),
      "cpu or cuda (cuda: n defaults to 8192, warmup 2, repeat 10)")(
      "n", po::value(&n)->default_value(n), "size of the main run")(
      "slow-n", po::value(&slow_n)->default_value(slow_n),
      "cuda: size of the run with the naive and tiled kernels (0: none)")(
      "ref-n", po::value(&ref_n)->default_value(ref_n),
      "size of the run with the naive ref (0: none)")(
      "warmup", po::value(&warmup)->default_value(warmup), "untimed runs first")(
      "repeat", po::value(&repeat)->default_value(repeat), "timed runs (median reported)")(
      "threads", po::value(&threads)->default_value(threads),
      "OpenMP and OpenBLAS threads (0: all cores)")(
      "precision", po::value(&precisions)->multitoken(), "double and/or single")(
      "double-impls", po::value(&double_impls)->multitoken(),
      "cuda: the double implementations of the main run (cublas is always measured first)")(
      "single-impls", po::value(&single_impls)->multitoken(),
      "cuda: the single implementations of the main run (cublas first; a -tf32 kernel after "
      "cublas-tf32)")("markdown", po::value(&md), "also write the table as Markdown to this path");
  po::variables_map vm;
  if (!mm::bench::parse_options(argc, argv, opts, vm, "gemm_bench")) return 2;
  if (vm.count("help")) {
    std::cout << "gemm_bench: C = A*B on n x n inputs; flops = 2*n^3, bytes = 3*n^2*sizeof(T).\n"
              << opts;
    return 0;
  }
  if (device == "cuda") {
    if (vm["n"].defaulted()) n = 8192;
    if (vm["warmup"].defaulted()) warmup = 2;
    if (vm["repeat"].defaulted()) repeat = 10;
    double copy = 0;
    try {
      copy = mm::cuda_copy_gbps(std::size_t{1} << 30);
    } catch (const mm::DeviceError& e) {
      std::cerr << "gemm_bench: --device cuda: " << e.what() << "\n";
      return 4;
    }
    std::vector<Row> rows;
    // Every FP64 tensor-core variant beside cuBLAS (the first of the list: the ratios' base),
    // and cuBLAS's own FP64 emulation on the integer tensor cores.
    std::vector<std::string> dimpls{
        "cublas",    "cuda-dmma",     "cuda-dmma-bk16",      "cuda-dmma-884",
        "cuda-wmma", "cuda-regblock", "cublas-fp64-emulated"};
    if (!double_impls.empty()) {
      dimpls = {"cublas"};
      for (const auto& i : double_impls)
        if (i != "cublas") dimpls.push_back(i);
    }
    // The register-blocked and tensor-core kernels beside the naive and tiled ones, each
    // after its vendor peer.
    const std::vector<std::string> dslow{"cublas",       "cuda-regblock", "cuda-dmma",
                                         "cuda-tiled32", "cuda-tiled16",  "cuda-naive"};
    // Single: the FP32 SIMT kernels after cuBLAS SGEMM (cuda-sgemm, cuda-regblock), the TF32
    // ones after cublas-tf32 (cuda-tf32 and its experimental shapes).
    std::vector<std::string> simpls{"cublas",    "cuda-sgemm",     "cuda-regblock", "cublas-tf32",
                                    "cuda-tf32", "cuda-n128-tf32", "cuda-wmma-tf32"};
    if (!single_impls.empty()) {
      simpls = {"cublas"};
      for (const auto& i : single_impls)
        if (i != "cublas") simpls.push_back(i);
    }
    const std::vector<std::string> sslow{"cublas",        "cublas-tf32", "cuda-sgemm",
                                         "cuda-regblock", "cuda-tf32",   "cuda-tiled32",
                                         "cuda-tiled16",  "cuda-naive"};
    for (const auto& p : precisions) {
      if (p == "double") {
        run_cuda_size<double>(p, n, dimpls, warmup, repeat, copy, rows);
        if (slow_n > 0) run_cuda_size<double>(p, slow_n, dslow, warmup, repeat, copy, rows);
      } else {
        run_cuda_size<float>(p, n, simpls, warmup, repeat, copy, rows);
        if (slow_n > 0) run_cuda_size<float>(p, slow_n, sslow, warmup, repeat, copy, rows);
      }
    }
    std::ostringstream s;
    s << "# " << mm::cuda_devices().name << ", n = " << n << " (naive and tiled at n = " << slow_n
      << "); kernel time by CUDA events, median of " << repeat << " after " << warmup
      << " warm-up\n\n"
      << markdown(rows, copy, "vendor (cublas; -tf32 rows: cublas-tf32)") << std::fixed
      << std::setprecision(3) << "\nAims at n = " << n
      << ": cuda-sgemm / cublas (FP32 SIMT vs FP32) = "
      << seconds_of(rows, "single", n, "cublas") / seconds_of(rows, "single", n, "cuda-sgemm")
      << " (aim 0.9); cuda-tf32 / cublas-tf32 (both TF32) = "
      << seconds_of(rows, "single", n, "cublas-tf32") / seconds_of(rows, "single", n, "cuda-tf32")
      << "; double cuda-dmma / cublas (DMMA vs DGEMM) = "
      << seconds_of(rows, "double", n, "cublas") / seconds_of(rows, "double", n, "cuda-dmma")
      << " (aim 0.6)\n";
    std::cerr << s.str();
    if (!md.empty()) std::ofstream(md) << s.str();
    return 0;
  }
  if (device != "cpu") {
    std::cerr << "gemm_bench: --device must be cpu or cuda, not '" << device << "'\n";
    return 2;
  }
  if (threads <= 0) threads = omp_get_num_procs();
  omp_set_num_threads(threads);
  mm::set_openblas_threads(threads);
  const double copy = mm::bench::copy_gbps(std::size_t{256} << 20, threads);
  std::vector<Row> rows;
  const std::vector<std::string> fast{"openblas", "cpu-blocked", "cpu-blocked microkernel=avx2",
                                      "cpu-blocked microkernel=portable", "cpu-rows"};
  for (const auto& p : precisions) {
    if (p == "double") {
      run_size<double>(p, n, fast, warmup, repeat, copy, threads, rows);
      if (ref_n > 0)
        run_size<double>(p, ref_n, {"openblas", "cpu-blocked", "ref"}, warmup, repeat, copy,
                         threads, rows);
    } else {
      run_size<float>(p, n, fast, warmup, repeat, copy, threads, rows);
      if (ref_n > 0)
        run_size<float>(p, ref_n, {"openblas", "cpu-blocked", "ref"}, warmup, repeat, copy, threads,
                        rows);
    }
  }
  const std::string table = markdown(rows, copy, "OpenBLAS");
  std::cerr << table;
  if (!md.empty()) std::ofstream(md) << table;
  return 0;
}
