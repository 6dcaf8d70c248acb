// Transpose benchmark: dense out of place and in place (double) and sparse CSR -> CSC, each
// implementation beside OpenBLAS / UMFPACK and the copy bandwidth measured in the same run.
//
// Formula: GB/s = bytes / median seconds / 1e9 with the kernels' own byte counts:
// dense 2*n*n*sizeof(T) (every value read once, written once); sparse
// 2*nnz*(4+8) + (rows+cols+2)*4 (int32 indices, double values). The copy ceiling counts
// bytes read plus bytes written of a parallel copy of one dense matrix.
//
// --device cpu, dense out of place (double, then float): rounds of copy / cpu-blocked pairs
// on the same thread count (all cores, then one), the copy the faster of glibc memcpy and a
// streamed SSE2 copy in that round; "of copy" is the ratio within each round (min / median /
// max), so that load from other processes hits both sides alike. Every timed run reads the
// next of several inputs in turn, so that the inputs read between two uses of one exceed
// twice the last-level cache (the VM here reports 480 MiB) and none is read from cache.
//
// --device cuda: every CUDA implementation through its runner (median of CUDA-event-timed
// runs after warm-up, transfers excluded) on n x n double and float (8192^2 doubles: 512 MiB,
// far beyond the 50 MB L2) out of place and in place, and on the sparse matrix; beside
// cuda_copy_gbps (a device-to-device copy of one matrix: read + write) and cuBLAS ?geam /
// cuSPARSE Csr2cscEx2 as the vendor ratios. Every result is checked against the CPU kernels.
#include <cblas.h>
#include <omp.h>
#include <umfpack.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "analysis/generate.hpp"
#include "bench_common.hpp"
#include "copy_ceiling.hpp"
#include "cpu/transpose_cpu.hpp"
#include "device.hpp"
#include "transpose.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace {

struct Options {
  std::int64_t n = 8192;            // dense: n x n doubles
  std::int64_t sparse_n = 4000000;  // sparse: rows = cols
  int nnz_per_row = 8;
  int repeat = 5, warmup = 1, threads = 0;
  std::string commit, device = "cpu";
  std::int64_t block = 0;    // cpu-blocked block edge in values (0: the kernel's default)
  std::string isa = "best";  // cpu-blocked instruction set
  int rotate = 0;            // dense inputs taken in turn (0: enough to defeat the L3)
  bool pairs_only = false;   // only the dense copy / cpu-blocked pairs
};

struct Row {
  std::string op, impl;
  int threads;
  double seconds, gbps;
};

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// First touch by the threads that later work on each part, as the kernels do.
template <class T>
void fill(std::vector<T>& v, std::uint64_t seed, int threads) {
  const auto n = static_cast<std::int64_t>(v.size());
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    std::uint64_t s = seed + static_cast<std::uint64_t>(k);
    v[k] = static_cast<T>(static_cast<double>(splitmix(s) >> 11) * 0x1p-53);
  }
}

// K distinct random columns a row (sorted), values uniform: the shape a CSR kernel expects.
mm::Csr<std::int32_t, double> random_csr(std::int64_t n, int k) {
  mm::Csr<std::int32_t, double> a;
  a.rows = a.cols = n;
  a.ptr.reserve(static_cast<std::size_t>(n) + 1);
  a.ptr.push_back(0);
  std::uint64_t s = 42;
  std::vector<std::int32_t> row;
  for (std::int64_t i = 0; i < n; ++i) {
    row.clear();
    for (int q = 0; q < k; ++q)
      row.push_back(static_cast<std::int32_t>(splitmix(s) % static_cast<std::uint64_t>(n)));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    a.idx.insert(a.idx.end(), row.begin(), row.end());
    a.ptr.push_back(static_cast<std::int32_t>(a.idx.size()));
  }
  a.val.resize(a.idx.size());
  for (auto& v : a.val) v = static_cast<double>(splitmix(s) >> 11) * 0x1p-53;
  return a;
}

// N x N with power-law row lengths (mmgen's powerlaw, K a row on average): a few long rows.
mm::Csr<std::int32_t, double> powerlaw_csr(std::int64_t n, int k) {
  mm::GenOptions g;
  g.kind = "powerlaw";
  g.rows = g.cols = n;
  g.nnz_per_row = k;
  return mm::coo_to_csr(mm::to_coo<std::int32_t, double>(mm::generate(g)));
}

class Bench {
 public:
  Bench(const Options& o) : o_(o) {}
  void time(const std::string& op, const std::string& impl, int threads, double bytes, int repeat,
            const std::function<void()>& f) {
    std::cerr << "transpose_bench: " << op << " " << impl << " (" << threads << " threads)"
              << std::endl;
    const mm::PhaseStats s = mm::time_repeated(o_.warmup, repeat, f);
    const double gbps = bytes / s.median * 1e-9;
    mm::bench::emit({{"bench", "transpose"},
                     {"op", op},
                     {"impl", impl},
                     {"threads", threads},
                     {"bytes", bytes},
                     {"repeats", s.repeats},
                     {"warmup", o_.warmup},
                     {"seconds", {{"min", s.min}, {"median", s.median}, {"max", s.max}}},
                     {"gbps", gbps},
                     {"device", mm::cpu_model()},
                     {"commit", o_.commit}});
    rows_.push_back({op, impl, threads, s.median, gbps});
  }
  // A GPU measurement (CUDA events, transfers excluded).
  void record(const std::string& op, const std::string& impl, double bytes, const mm::Measured& m) {
    const double gbps = bytes / m.compute.median * 1e-9;
    mm::bench::emit(
        {{"bench", "transpose"},
         {"op", op},
         {"impl", impl},
         {"bytes", bytes},
         {"repeats", m.compute.repeats},
         {"warmup", o_.warmup},
         {"seconds",
          {{"min", m.compute.min}, {"median", m.compute.median}, {"max", m.compute.max}}},
         {"h2d_s", m.h2d},
         {"d2h_s", m.d2h},
         {"gbps", gbps},
         {"device", m.device},
         {"commit", o_.commit}});
    rows_.push_back({op, impl, 0, m.compute.median, gbps});
  }
  void gpu_ceiling(const std::string& op, double gbps) {
    mm::bench::emit({{"bench", "transpose"},
                     {"op", op},
                     {"impl", "copy (memcpy)"},
                     {"gbps", gbps},
                     {"formula", "cudaMemcpy device to device: bytes read + bytes written"},
                     {"device", mm::cuda_devices().name},
                     {"commit", o_.commit}});
    rows_.push_back({op, "copy (memcpy)", 0, 0, gbps});
  }
  void ceiling(const std::string& op, double gbps) {
    mm::bench::emit({{"bench", "transpose"},
                     {"op", op},
                     {"impl", "copy (memcpy)"},
                     {"threads", threads()},
                     {"gbps", gbps},
                     {"formula", "bytes read + bytes written / median seconds"},
                     {"device", mm::cpu_model()},
                     {"commit", o_.commit}});
    rows_.push_back({op, "copy (memcpy)", threads(), 0, gbps});
  }
  // A CPU row measured in rounds paired with the copy ceiling (see dense_paired): the copy's
  // row when IMPL is the copy, EXTRA merged into its record.
  void paired(const std::string& op, const std::string& impl, int threads, double bytes,
              const mm::PhaseStats& s, const json& extra) {
    const double gbps = bytes / s.median * 1e-9;
    json j = {
        {"bench", "transpose"}, {"op", op},
        {"impl", impl},         {"threads", threads},
        {"bytes", bytes},       {"repeats", s.repeats},
        {"warmup", o_.warmup},  {"seconds", {{"min", s.min}, {"median", s.median}, {"max", s.max}}},
        {"gbps", gbps},         {"device", mm::cpu_model()},
        {"commit", o_.commit}};
    j.update(extra);
    mm::bench::emit(j);
    rows_.push_back({op, impl, threads, impl == "copy (memcpy)" ? 0 : s.median, gbps});
  }
  double gbps(const std::string& op, const std::string& impl) const {
    for (const auto& r : rows_)
      if (r.op == op && r.impl == impl) return r.gbps;
    return 0;
  }
  int threads() const { return o_.threads; }
  void table() const {
    std::printf(
        "\n| op | impl | threads | median s | GB/s | / copy | / vendor "
        "|\n|---|---|---:|---:|---:|---:|---:|\n");
    for (const auto& r : rows_) {
      const double copy = gbps(r.op, "copy (memcpy)");
      const bool gpu = r.op.rfind("gpu", 0) == 0;
      const std::string vendor_impl =
          gpu                        ? (r.op.find("sparse") != std::string::npos     ? "cusparse"
                                        : r.op.find("in place") != std::string::npos ? "-"
                                                                                     : "cublas")
          : r.op == "sparse"         ? "umfpack_di_transpose"
          : r.op == "dense in place" ? "cblas_dimatcopy"
                                     : "cblas_domatcopy";
      const double vendor = gbps(r.op, vendor_impl);
      std::printf("| %s | %s | %s | %s | %.2f | %.3f | %s |\n", r.op.c_str(), r.impl.c_str(),
                  r.threads > 0 ? std::to_string(r.threads).c_str() : "gpu",
                  r.seconds > 0 ? std::to_string(r.seconds).c_str() : "-", r.gbps,
                  copy > 0 ? r.gbps / copy : 0.0,
                  vendor > 0 && r.seconds > 0 ? std::to_string(r.gbps / vendor).c_str() : "-");
    }
  }

 private:
  const Options& o_;
  std::vector<Row> rows_;
};

// Inputs taken in turn: those read between two uses of one exceed twice the LLC.
std::size_t rotation(const Options& o, std::size_t matrix_bytes) {
  if (o.rotate > 0) return static_cast<std::size_t>(o.rotate);
  const std::size_t llc = std::max<std::size_t>(mm::bench::llc_bytes(), std::size_t{64} << 20);
  return 1 + (2 * llc + matrix_bytes - 1) / matrix_bytes;
}

mm::TransposeIsa parse_isa(const std::string& name) {
  for (const auto isa : {mm::TransposeIsa::best, mm::TransposeIsa::avx512, mm::TransposeIsa::sse2,
                         mm::TransposeIsa::portable})
    if (name == mm::transpose_isa_name(isa))
      return isa == mm::TransposeIsa::best ? mm::transpose_best_isa() : isa;
  throw std::runtime_error("--isa: best, avx512, sse2 or portable, not " + name);
}

// Rounds of (memcpy, streamed copy, cpu-blocked) on THREADS, each run reading the next of
// IN; the ratio to the faster copy taken within each round (see the top of the file).
template <class T>
void dense_paired(Bench& b, const Options& o, const std::string& op, int threads,
                  const std::vector<std::vector<T>>& in, std::vector<T>& out) {
  const std::int64_t n = o.n;
  const mm::TransposeIsa isa = parse_isa(o.isa);
  const std::size_t matrix = out.size() * sizeof(T);
  const double bytes = mm::transpose_dense_bytes(n, n, sizeof(T));
  std::cerr << "transpose_bench: " << op << " copy / cpu-blocked pairs (" << threads << " threads, "
            << mm::transpose_isa_name(isa) << ", " << in.size() << " inputs in turn)" << std::endl;
  std::size_t turn = 0;
  const auto timed = [&](const std::function<void(const T*)>& f) {
    const T* src = in[turn++ % in.size()].data();
    const mm::Stopwatch w;
    f(src);
    return w.seconds();
  };
  std::vector<double> t_mem, t_stream, t_copy, t_blocked, ratio;
  for (int r = -o.warmup; r < o.repeat; ++r) {
    const double m =
        timed([&](const T* src) { mm::bench::memcpy_copy(src, out.data(), matrix, threads); });
    const double s =
        timed([&](const T* src) { mm::bench::stream_copy(src, out.data(), matrix, threads); });
    const double t = timed([&](const T* src) {
      mm::transpose_cpu_blocked_isa(n, n, src, out.data(), false, threads, o.block, isa);
    });
    if (r < 0) continue;
    t_mem.push_back(m);
    t_stream.push_back(s);
    t_copy.push_back(std::min(m, s));
    t_blocked.push_back(t);
    ratio.push_back(std::min(m, s) / t);
  }
  const auto gbps = [&](const std::vector<double>& t) {
    return bytes / mm::summarize(t).median * 1e-9;
  };
  const mm::PhaseStats r = mm::summarize(ratio);
  const json common = {
      {"type", sizeof(T) == 4 ? "float" : "double"}, {"n", n}, {"inputs_in_turn", in.size()}};
  json copy = common, blocked = common;
  copy.update({{"formula",
                "faster of glibc memcpy and a streamed SSE2 copy in each round: "
                "bytes read + bytes written / seconds"},
               {"memcpy_gbps", gbps(t_mem)},
               {"stream_copy_gbps", gbps(t_stream)}});
  blocked.update({{"isa", mm::transpose_isa_name(isa)},
                  {"block", o.block},
                  {"of_copy", {{"min", r.min}, {"median", r.median}, {"max", r.max}}}});
  b.paired(op, "copy (memcpy)", threads, bytes, mm::summarize(t_copy), copy);
  b.paired(op, "cpu-blocked", threads, bytes, mm::summarize(t_blocked), blocked);
  std::fprintf(stderr,
               "transpose_bench: %s: cpu-blocked at %.3f of copy (min %.3f, max %.3f; memcpy "
               "%.1f, streamed copy %.1f, cpu-blocked %.1f GB/s)\n",
               op.c_str(), r.median, r.min, r.max, gbps(t_mem), gbps(t_stream), gbps(t_blocked));
}

// Copy / cpu-blocked pairs for T on all threads, then on one (ops OP and OP + " 1 thread").
template <class T>
void dense_pairs_of(Bench& b, const Options& o, const std::string& op) {
  const auto count = static_cast<std::size_t>(o.n * o.n);
  std::vector<std::vector<T>> in(rotation(o, count * sizeof(T)));
  for (std::size_t k = 0; k < in.size(); ++k) {
    in[k].resize(count);
    fill(in[k], 10 + k, o.threads);
  }
  std::vector<T> out(count);
  fill(out, 3, o.threads);
  dense_paired(b, o, op, o.threads, in, out);
  if (o.threads > 1) dense_paired(b, o, op + " 1 thread", 1, in, out);
}

void dense(Bench& b, const Options& o) {
  const std::int64_t n = o.n;
  const int t = o.threads;
  const auto count = static_cast<std::size_t>(n * n);
  const double bytes = mm::transpose_dense_bytes(n, n, sizeof(double));
  std::cerr << "transpose_bench: dense " << n << " x " << n << " double, " << bytes / 2e6
            << " MB a matrix" << std::endl;
  dense_pairs_of<double>(b, o, "dense");
  dense_pairs_of<float>(b, o, "dense float");
  if (o.pairs_only) return;
  b.ceiling("dense in place", b.gbps("dense", "copy (memcpy)"));
  std::vector<double> a(count), c(count);
  fill(a, 1, t);
  fill(c, 2, t);
  b.time("dense", "ref (naive)", 1, bytes, std::min(o.repeat, 3),
         [&] { mm::transpose_ref(n, n, a.data(), c.data(), false); });
  b.time("dense", "cblas_domatcopy", 1, bytes, o.repeat, [&] {
    cblas_domatcopy(CblasRowMajor, CblasTrans, static_cast<blasint>(n), static_cast<blasint>(n),
                    1.0, a.data(), static_cast<blasint>(n), c.data(), static_cast<blasint>(n));
  });
  // In place: two matrices taken in turn so that the working set (1 GiB) exceeds the caches.
  std::vector<double>* bufs[2] = {&a, &c};
  int turn = 0;
  auto next = [&] { return bufs[turn++ % 2]->data(); };
  b.time("dense in place", "cpu-inplace", t, bytes, o.repeat,
         [&] { mm::transpose_cpu_inplace(n, next(), false, t); });
  b.time("dense in place", "ref (naive)", 1, bytes, std::min(o.repeat, 3),
         [&] { mm::transpose_inplace_ref(n, next(), false); });
  b.time("dense in place", "cblas_dimatcopy", 1, bytes, std::min(o.repeat, 3), [&] {
    cblas_dimatcopy(CblasRowMajor, CblasTrans, static_cast<blasint>(n), static_cast<blasint>(n),
                    1.0, next(), static_cast<blasint>(n), static_cast<blasint>(n));
  });
}

void sparse(Bench& b, const Options& o) {
  const int t = o.threads;
  std::cerr << "transpose_bench: generating sparse " << o.sparse_n << " x " << o.sparse_n
            << std::endl;
  const auto a = random_csr(o.sparse_n, o.nnz_per_row);
  const double bytes = mm::transpose_csr_bytes(a);
  std::cerr << "transpose_bench: sparse nnz " << a.nnz() << ", " << bytes / 1e6 << " MB moved"
            << std::endl;
  b.ceiling("sparse", mm::bench::copy_gbps(static_cast<std::size_t>(bytes / 2), t));
  mm::Csr<std::int32_t, double> out;
  mm::transpose_shape(a, out);
  std::vector<std::int32_t> scratch;
  b.time("sparse", "cpu-csr2csc", t, bytes, o.repeat,
         [&] { mm::transpose_cpu_csr2csc(a, out, false, t, scratch); });
  if (t > 1)
    b.time("sparse", "cpu-csr2csc", 1, bytes, o.repeat,
           [&] { mm::transpose_cpu_csr2csc(a, out, false, 1, scratch); });
  b.time("sparse", "ref (serial counting)", 1, bytes, o.repeat,
         [&] { mm::transpose_csr_ref(a, out, false); });
  // UMFPACK reads CSC: our CSR of A is the CSC of A^T, and its transpose the CSC of A = CSR of A^T.
  b.time("sparse", "umfpack_di_transpose", 1, bytes, o.repeat, [&] {
    const int rc = umfpack_di_transpose(static_cast<int>(a.cols), static_cast<int>(a.rows),
                                        a.ptr.data(), a.idx.data(), a.val.data(), nullptr, nullptr,
                                        out.ptr.data(), out.idx.data(), out.val.data());
    if (rc != UMFPACK_OK)
      throw std::runtime_error("umfpack_di_transpose failed: " + std::to_string(rc));
  });
}

// --device cuda: every CUDA implementation of LIST on P, checked by CHECK after its runs.
template <class List, class P>
void gpu_impls(Bench& b, const std::string& op, const List& list, const P& p, double bytes,
               const Options& o, const std::function<bool()>& check) {
  for (const auto& impl : list) {
    if (impl.device != mm::Device::cuda) continue;
    std::cerr << "transpose_bench: " << op << " " << impl.name << std::endl;
    auto r = impl.make(p);
    const mm::Measured m = mm::measure(*r, o.warmup, o.repeat);
    if (!check()) throw std::runtime_error(impl.name + " disagrees with the CPU on " + op);
    b.record(op, impl.name, bytes, m);
  }
}

template <class T>
void gpu_dense(Bench& b, const Options& o, const char* type) {
  const std::int64_t n = o.n;
  const auto count = static_cast<std::size_t>(n * n);
  const double bytes = mm::transpose_dense_bytes(n, n, sizeof(T));
  std::vector<double> seed(count);
  fill(seed, 1, o.threads);
  std::vector<T> a(seed.begin(), seed.end()), want(count), c(count);
  mm::transpose_cpu_blocked(n, n, a.data(), want.data(), false, o.threads);
  const std::string op = std::string("gpu dense ") + type,
                    ip = std::string("gpu dense in place ") + type;
  const double copy = mm::cuda_copy_gbps(count * sizeof(T));
  b.gpu_ceiling(op, copy);
  gpu_impls(b, op, mm::transpose_dense_impls<T>(),
            mm::DenseTransposeProblem<T>{n, n, a.data(), c.data(), false}, bytes, o,
            [&] { return c == want; });
  b.gpu_ceiling(ip, copy);
  gpu_impls(b, ip, mm::transpose_inplace_impls<T>(),
            mm::DenseTransposeProblem<T>{n, n, a.data(), c.data(), false}, bytes, o,
            [&] { return c == want; });
}

// CSR -> CSC of A by every GPU implementation, each checked against the CPU's.
void gpu_sparse(Bench& b, const Options& o, const std::string& op,
                const mm::Csr<std::int32_t, double>& a) {
  std::cerr << "transpose_bench: " << op << " nnz " << a.nnz() << std::endl;
  const double bytes = mm::transpose_csr_bytes(a);
  mm::Csr<std::int32_t, double> want, out;
  mm::transpose_shape(a, want);
  std::vector<std::int32_t> scratch;
  mm::transpose_cpu_csr2csc(a, want, false, o.threads, scratch);
  b.gpu_ceiling(op, mm::cuda_copy_gbps(static_cast<std::size_t>(bytes / 2)));
  gpu_impls(b, op, mm::transpose_csr_impls<std::int32_t, double>(),
            mm::CsrTransposeProblem<std::int32_t, double>{&a, &out, false}, bytes, o,
            [&] { return out.ptr == want.ptr && out.idx == want.idx && out.val == want.val; });
}

void gpu(Bench& b, const Options& o) {
  const mm::GpuInfo g = mm::cuda_devices();
  if (g.count == 0) throw std::runtime_error("--device cuda needs a GPU: " + g.reason);
  std::cerr << "transpose_bench: " << g.name << ", dense " << o.n << " x " << o.n << std::endl;
  gpu_dense<double>(b, o, "double");
  gpu_dense<float>(b, o, "float");
  gpu_sparse(b, o, "gpu sparse", random_csr(o.sparse_n, o.nnz_per_row));
  gpu_sparse(b, o, "gpu sparse powerlaw", powerlaw_csr(o.sparse_n, o.nnz_per_row));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  po::options_description desc(
      "transpose_bench: dense and sparse transpose GB/s against memcpy and vendors\nOptions");
  desc.add_options()("help,h", "this help")("n", po::value(&o.n)->default_value(o.n),
                                            "dense: n x n doubles")(
      "sparse-n", po::value(&o.sparse_n)->default_value(o.sparse_n), "sparse: rows = cols")(
      "nnz-per-row", po::value(&o.nnz_per_row)->default_value(o.nnz_per_row),
      "sparse: entries per row")("repeat", po::value(&o.repeat)->default_value(o.repeat),
                                 "timed runs (median reported)")(
      "warmup", po::value(&o.warmup)->default_value(o.warmup), "untimed runs first")(
      "threads", po::value(&o.threads)->default_value(0), "threads (0: all cores)")(
      "commit", po::value(&o.commit), "commit id stored in each record")(
      "block", po::value(&o.block)->default_value(o.block),
      "cpu-blocked block edge in values (0: the kernel's default)")(
      "isa", po::value(&o.isa)->default_value(o.isa),
      "cpu-blocked instruction set: best, avx512, sse2, portable")(
      "rotate", po::value(&o.rotate)->default_value(o.rotate),
      "dense inputs taken in turn (0: enough that two uses of one are 2 x L3 apart)")(
      "pairs-only", po::bool_switch(&o.pairs_only),
      "--device cpu: only the dense copy / cpu-blocked pairs (double, float)")(
      "device", po::value(&o.device)->default_value(o.device),
      "cpu, or cuda: the CUDA implementations against cuBLAS / cuSPARSE (use --repeat 20)");
  po::variables_map vm;
  if (!mm::bench::parse_options(argc, argv, desc, vm, "transpose_bench")) return 2;
  try {
    if (vm.count("help")) {
      std::cout << desc << "\n";
      return 0;
    }
    if (o.threads <= 0) o.threads = omp_get_num_procs();
    Bench b(o);
    if (o.device == "cuda") {
      gpu(b, o);
    } else {
      dense(b, o);
      if (!o.pairs_only) sparse(b, o);
    }
    b.table();
  } catch (const std::exception& e) {
    std::cerr << "transpose_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
