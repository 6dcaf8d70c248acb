// Benchmark of the heated-room Jacobi stencil: MLUP/s and GB/s of every implementation of one
// device against the copy bandwidth measured in the same run (GPU: and cuSPARSE).
//
//   jacobi_bench [--device cpu|cuda] [--sizes N...] [--updates U] [--jsonl FILE]
//                [--tune KEY=VALUE ...] [--variants 'K=V,...;K=V,...']
//
// Each row (table line, JSON line) is written as soon as it is measured: a run cut short by a
// timeout keeps the rows it finished.
//
// Formulas: one run = ITERS = max(1, --updates / (N-2)^3) sweeps of the N^3 grid (two buffers
// swapped, initialised outside the timing), the change ||u_new - u_old||_2 computed in every sweep
// (as --check-every 1) unless the row says "no norm". MLUP/s = (N-2)^3 * ITERS / median seconds /
// 1e6; GB/s = 16 B (8 for float) per point update * (N-2)^3 * ITERS / median seconds / 1e9, the
// least traffic a sweep can make (u_old read once, u_new written once, neighbours from
// cache); "of copy" = GB/s / copy GB/s, where copy GB/s counts read plus written bytes of a
// parallel memcpy of 1 GiB (bench_common.hpp). No vendor library does this stencil: the copy
// bandwidth is the ceiling compared with. flops = 8 per point update.
//
// --device cuda: the implementations through their runners (kernel
// time by CUDA events, transfers excluded; each run also rewrites x_0, one write pass), 3D
// N = 256, 384, 512 and 2D N = 8192, double and single, the change every sweep or only at
// the last; the same 16 B (8 B) per point update over cuda_copy_gbps (a 1 GiB device copy,
// read + write); "vs naive" = MLUP/s / cuda-naive's. Then the 7-point system of a 128^3
// grid: one cuSPARSE SpMV, one sweep of the system Jacobi (cuda) and one sweep of cuda-norm
// on the same unknowns, per-sweep time and "vs cusparse" = SpMV time / sweep time.
// --tune KEY=VALUE (repeatable; --tune help lists the keys) tunes the marching sweeps
// (cuda-norm*) as mmjacobi's --tune does; each row says the values its sweep used. --variants
// 'A;B' runs cuda-norm's and cuda-timetile's rows under each variant (K=V,K=V over --tune's),
// one after the other at each size, so that they compare in one run.
// The time-tiled sweep (cuda-timetile, mmjacobi --time-tile K) at each K of --time-tiles (default
// 1 2 3 4 in double, 2 3 4 6 8 in single), 3D only, the change every K sweeps (fused), and for
// some K only at the last or by a plain sweep (norm=plain); its sweeps a run rounded to a
// multiple of K. For every row "of copy" is the effective rate: point updates a second times 16 B
// (8 B) over the copy bandwidth, i.e. over the single-sweep copy bound; GB/s is what the row's
// passes move (a time-tiled pass reads and writes u once for K sweeps), so it stays below copy
// while "of copy" can exceed 1. --set timetile: only the 3D rows of cuda-norm and cuda-timetile
// (no 2D grid, no system comparison); --set plain: only cuda-norm's 3D rows (issue 16's plain
// sweep target: double with the change every sweep and at the last, single every sweep).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "analysis/generate.hpp"
#include "bench_common.hpp"
#include "jacobi.hpp"
#include "spmv.hpp"

namespace po = boost::program_options;

namespace {

struct Row {
  std::int64_t n;
  std::string impl;
  std::string precision;
  bool norm;
  std::int64_t iters;
  mm::PhaseStats t;
  double mlups, gbps;
};

template <class T>
Row measure_one(std::int64_t n, const std::string& impl, bool norm, double updates, int warmup,
                int repeat) {
  const mm::HeatedRoom room = mm::heated_room(3, n);
  std::vector<T> a(static_cast<std::size_t>(room.points())), b(a.size());
  mm::heated_room_init(room, a.data());
  mm::heated_room_init(room, b.data());
  const auto sweep = impl == "ref" ? &mm::stencil_sweep_ref<T> : &mm::stencil_sweep_cpu<T>;
  // A fixed amount of work a run, the same for every impl (a probe sweep is no guide on a
  // shared machine): about UPDATES point updates, at least one sweep.
  const auto iters = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(updates / static_cast<double>(room.interior())));
  double sink = 0;
  T* cur = a.data();
  T* next = b.data();
  const mm::PhaseStats t = mm::time_repeated(warmup, repeat, [&] {
    for (std::int64_t k = 0; k < iters; ++k) {
      sink = sink + sweep(room, cur, next, norm);
      std::swap(cur, next);
    }
  });
  if (std::isnan(sink)) std::cerr << "jacobi_bench: NaN change\n";  // keeps the sums alive
  const double done = static_cast<double>(room.interior()) * static_cast<double>(iters);
  return {n,
          impl,
          sizeof(T) == 8 ? "double" : "single",
          norm,
          iters,
          t,
          done / t.median * 1e-6,
          mm::stencil_bytes<T>(room, iters) / t.median * 1e-9};
}

using mm::bench::fixed;

}  // namespace

// ---- --device cuda ------------------------------------------------------------------------------

namespace jacobi_bench {

using namespace mm;

struct CudaOptions {
  std::vector<std::int64_t> sizes3{256, 384, 512}, sizes2{8192};
  std::vector<int> time_tiles;  // empty: 1 2 3 4 in double, 2 3 4 6 8 in single
  bool only_timetile = false;   // --set timetile (or plain)
  bool only_plain = false;      // --set plain: cuda-norm's 3D rows alone
  double updates = 1e10;        // point updates a run (the naive variant: a tenth)
  int warmup = 1, repeat = 5;
  std::string jsonl;
  JacobiTuning tuning;  // --tune: the marching sweeps'
  // --variants: cuda-norm's and cuda-timetile's rows once each, one after the other at each
  // size (the other rows under TUNING); empty: TUNING alone.
  std::vector<JacobiTuning> variants;
};

struct GpuRow {
  int dim;
  std::int64_t n;
  std::string impl, precision;
  std::int64_t check;  // the change every CHECK sweeps (and at the last)
  std::int64_t sweeps;
  PhaseStats t;
  double mlups, gbps;     // GB/s: the bytes the run moved (time-tiled: its passes)
  double effective;       // point updates * 16 B (8 B) / s / 1e9: over copy, the copy-bound ratio
  nlohmann::json tuning;  // what the sweep used
  int time_tile = 0;
};

// "every sweep", "last sweep", "every 4 (fused)".
std::string change_text(const GpuRow& r) {
  if (r.check == r.sweeps && r.sweeps > 1) return "last sweep";
  if (r.check == 1 && r.time_tile == 0) return "every sweep";
  return "every " + std::to_string(r.check) +
         (r.time_tile ? " (" + r.tuning.value("norm", std::string("fused")) + ")" : "");
}

// "warps=8 chunks=3", or "-" when the sweep takes no keys.
std::string tuning_text(const nlohmann::json& t) {
  std::string s;
  for (const auto& [k, v] : t.items()) s += (s.empty() ? "" : " ") + k + "=" + v.dump();
  return s.empty() ? "-" : s;
}

// The rows of the CUDA runs, each written (its table line and JSON line) as soon as it is
// measured, so that a run cut short (a timeout over a long --variants list) keeps every row it
// finished. "vs naive" is against the naive row of the same grid and precision, measured first.
class GpuRows {
 public:
  GpuRows(double copy, std::ofstream& js) : copy_(copy), js_(js) {}
  void start_grid() { naive_.clear(); }
  void push_back(const GpuRow& r) {
    if (r.impl == "cuda-naive") naive_[r.precision] = r.mlups;
    const auto it = naive_.find(r.precision);
    const double naive = it == naive_.end() ? 0 : it->second;
    std::cout << "| " << r.dim << " | " << r.n << " | " << r.impl << " | "
              << (r.time_tile ? std::to_string(r.time_tile) : "-") << " | " << r.precision << " | "
              << change_text(r) << " | " << r.sweeps << " | " << fixed(r.t.median * 1e3, 3) << " | "
              << fixed(r.t.min * 1e3, 3) << " | " << fixed(r.mlups, 0) << " | " << fixed(r.gbps, 1)
              << " | " << fixed(r.effective / copy_, 3) << " | "
              << (naive > 0 ? fixed(r.mlups / naive, 2) : "-") << " | " << tuning_text(r.tuning)
              << " |" << std::endl;
    if (!js_) return;
    js_ << nlohmann::json{{"dim", r.dim},
                          {"n", r.n},
                          {"impl", r.impl},
                          {"precision", r.precision},
                          {"norm_every_sweep", r.check == 1},
                          {"check_every", r.check},
                          {"time_tile", r.time_tile},
                          {"sweeps", r.sweeps},
                          {"median_s", r.t.median},
                          {"min_s", r.t.min},
                          {"max_s", r.t.max},
                          {"repeats", r.t.repeats},
                          {"mlups", r.mlups},
                          {"gbps", r.gbps},
                          {"of_copy", r.effective / copy_},
                          {"vs_naive", naive > 0 ? r.mlups / naive : 0.0},
                          {"tuning", r.tuning},
                          {"copy_gbps", copy_}}
               .dump()
        << std::endl;
  }

 private:
  double copy_;
  std::ofstream& js_;
  std::map<std::string, double> naive_;  // by precision
};

template <class Make>
const Impl<Make>& find(const ImplList<Make>& list, const std::string& name) {
  for (const auto& i : list)
    if (i.name == name) return i;
  throw std::runtime_error("jacobi_bench: no implementation " + name + " (built without CUDA?)");
}

// One implementation through its runner: about UPDATES point updates a run (a multiple of K
// sweeps for the time-tiled one), tol < 0 (a fixed count), the change every EVERY sweeps (0:
// only at the last; time-tiled: every K when 1), K = TIME_TILE sweeps a pass (cuda-timetile).
template <class T>
GpuRow stencil_row(int dim, std::int64_t n, const std::string& name, std::int64_t every,
                   double updates, const CudaOptions& o, int time_tile = 0, int norm = 0) {
  const HeatedRoom room = heated_room(dim, n);
  const std::int64_t k = std::max(time_tile, 1);
  const auto sweeps = std::max<std::int64_t>(
      k, static_cast<std::int64_t>(updates / static_cast<double>(room.interior())) / k * k);
  const std::int64_t check = every == 0 ? sweeps : std::max(every, k);
  std::vector<T> u(static_cast<std::size_t>(room.points()));
  JacobiResult res;
  JacobiTuning tuning = o.tuning;
  if (norm) tuning.norm = norm;
  const JacobiStop stop{sweeps, -1, check};
  StencilProblem<T> p{room, u.data(), stop, &res, tuning, time_tile};
  auto r = find(stencil_impls<T>(), name).make(p);
  const Measured m = measure(*r, o.warmup, o.repeat);
  if (res.iterations != sweeps) throw std::runtime_error("jacobi_bench: wrong iteration count");
  const double done = static_cast<double>(room.interior()) * static_cast<double>(sweeps);
  const double bytes =
      time_tile > 0 ? stencil_time_tile_bytes<T>(
                          room, stencil_time_tile_passes(stop, sweeps, time_tile,
                                                         m.tuning.value("norm", "") == "plain"))
                    : stencil_bytes<T>(room, sweeps);
  return {dim,
          n,
          name,
          sizeof(T) == 8 ? "double" : "single",
          check,
          sweeps,
          m.compute,
          done / m.compute.median * 1e-6,
          bytes / m.compute.median * 1e-9,
          stencil_bytes<T>(room, sweeps) / m.compute.median * 1e-9,
          m.tuning,
          time_tile};
}

// The time-tiled rows of one 3D room in precision T: K of O.time_tiles (or the precision's
// defaults) with the change every K (fused), and at the largest two K the change only at the
// last sweep and every K by a plain sweep.
template <class T>
void time_tile_rows(std::int64_t n, const CudaOptions& o, GpuRows& rows) {
  std::vector<int> ks = o.time_tiles;
  if (ks.empty())
    ks = sizeof(T) == 8 ? std::vector<int>{1, 2, 3, 4} : std::vector<int>{2, 3, 4, 6, 8};
  std::erase_if(ks, [](int k) { return k < 1 || k > stencil_time_tile_max(sizeof(T)); });
  for (const int k : ks) rows.push_back(stencil_row<T>(3, n, "cuda-timetile", 1, o.updates, o, k));
  for (std::size_t i = ks.size() >= 2 ? ks.size() - 2 : 0; i < ks.size(); ++i) {
    rows.push_back(stencil_row<T>(3, n, "cuda-timetile", 0, o.updates, o, ks[i]));
    rows.push_back(stencil_row<T>(3, n, "cuda-timetile", 1, o.updates, o, ks[i], 2));
  }
}

int run_cuda(const CudaOptions& o) {
  const double copy = cuda_copy_gbps(std::size_t{1} << 30);
  std::ofstream js;
  if (!o.jsonl.empty()) js.open(o.jsonl);
  auto ctx = bench::context("jacobi_bench", omp_get_max_threads());
  ctx["device"] = cuda_devices().name;
  ctx["device_kind"] = "cuda";
  ctx["copy_gbps"] = copy;
  if (js) js << ctx.dump() << std::endl;
  std::cout << "# " << ctx["device"].get<std::string>()
            << ": copy bandwidth (cudaMemcpy device to device, 1 GiB, read + write) "
            << fixed(copy, 1) << " GB/s\n\n"
            << "| dim | N | impl | K | precision | change | sweeps/run | median ms | min ms | "
               "MLUP/s | GB/s | of copy | vs naive | tuning |\n"
               "|---:|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  std::vector<std::pair<int, std::int64_t>> grids;
  for (const auto n : o.sizes3) grids.push_back({3, n});
  if (!o.only_timetile)
    for (const auto n : o.sizes2) grids.push_back({2, n});
  std::vector<CudaOptions> vs;  // O under each variant's tuning
  for (const JacobiTuning& t : o.variants) vs.push_back(o), vs.back().tuning = t;
  if (vs.empty()) vs.push_back(o);
  GpuRows rows(copy, js);
  for (const auto& [dim, n] : grids) {
    rows.start_grid();
    if (!o.only_timetile) {
      rows.push_back(stencil_row<double>(dim, n, "cuda-naive", 1, o.updates / 10, o));
      rows.push_back(stencil_row<double>(dim, n, "cuda-coalesced", 1, o.updates, o));
      rows.push_back(stencil_row<double>(dim, n, "cuda-partials", 1, o.updates, o));
      rows.push_back(stencil_row<double>(dim, n, "cuda-partials", 0, o.updates, o));
    }
    for (const CudaOptions& v : vs) {
      rows.push_back(stencil_row<double>(dim, n, "cuda-norm", 1, o.updates, v));
      rows.push_back(stencil_row<double>(dim, n, "cuda-norm", 0, o.updates, v));
    }
    if (dim == 3 && !o.only_timetile) {  // the rows of y a thread holds (2D: one row a thread)
      rows.push_back(stencil_row<double>(dim, n, "cuda-norm-ry2", 1, o.updates, o));
      rows.push_back(stencil_row<double>(dim, n, "cuda-norm-ry4", 1, o.updates, o));
      rows.push_back(stencil_row<double>(dim, n, "cuda-norm-col", 1, o.updates, o));
    }
    if (dim == 3 && !o.only_plain)
      for (const CudaOptions& v : vs) time_tile_rows<double>(n, v, rows);
    if (!o.only_timetile) {
      rows.push_back(stencil_row<float>(dim, n, "cuda-naive", 1, o.updates / 10, o));
      rows.push_back(stencil_row<float>(dim, n, "cuda-partials", 1, o.updates, o));
    }
    for (const CudaOptions& v : vs)
      rows.push_back(stencil_row<float>(dim, n, "cuda-norm", 1, o.updates, v));
    if (dim == 3 && !o.only_plain)
      for (const CudaOptions& v : vs) time_tile_rows<float>(n, v, rows);
  }

  if (o.only_timetile) return 0;
  // The same unknowns as a stored matrix: the 7-point system of a 128^3 grid (walls outside).
  using I = std::int32_t;
  GenOptions g;
  g.kind = "poisson3d";
  g.n = 128;
  const Csr<I, double> a = coo_to_csr(to_coo<I, double>(generate(g)));
  std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0), x(b.size()), y(b.size());
  const std::int64_t sweeps = 20;
  JacobiResult res;
  JacobiProblem<I, double> jp{&a, b.data(), x.data(), JacobiStop{sweeps, -1, 1}, &res};
  auto jr = find(jacobi_impls<I, double>(), "cuda").make(jp);
  const double t_jacobi = measure(*jr, o.warmup, o.repeat).compute.median / sweeps;
  SpmvProblem<I, double> sp{&a, nullptr, Symmetry::general, b.data(), nullptr, y.data(), 1.0, 0.0};
  auto sr = find(spmv_impls<I, double>(), "cusparse").make(sp);
  const double t_spmv = measure(*sr, o.warmup, 5 * o.repeat).compute.median;
  const GpuRow st = stencil_row<double>(3, 130, "cuda-norm", 1, 130.0 * 130 * 130 * 50, o);
  const double t_stencil = st.t.median / static_cast<double>(st.sweeps);
  std::cout << "\n7-point system, 128^3 unknowns, " << a.nnz()
            << " nonzeros, double, int32 indices; per sweep (SpMV: per call), the change every "
               "sweep\n\n| impl | per sweep us | GB/s | of copy | vs cusparse |\n"
               "|---|---:|---:|---:|---:|\n";
  const struct {
    const char* name;
    double t, bytes;
  } sys[] = {
      {"cusparse SpMV (A x only)", t_spmv, spmv_bytes(a, false)},
      {"cuda (system Jacobi)", t_jacobi, jacobi_bytes(a, 1)},
      {"cuda-norm (stencil, N=130)", t_stencil, stencil_bytes<double>(heated_room(3, 130), 1)}};
  for (const auto& r : sys) {
    std::cout << "| " << r.name << " | " << fixed(r.t * 1e6, 1) << " | "
              << fixed(r.bytes / r.t * 1e-9, 1) << " | " << fixed(r.bytes / r.t * 1e-9 / copy, 3)
              << " | " << fixed(t_spmv / r.t, 2) << " |" << std::endl;
    if (js)
      js << nlohmann::json{{"system", r.name},
                           {"per_sweep_s", r.t},
                           {"bytes", r.bytes},
                           {"gbps", r.bytes / r.t * 1e-9},
                           {"vs_cusparse", t_spmv / r.t}}
                .dump()
         << "\n";
  }
  return 0;
}

}  // namespace jacobi_bench

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes{64, 128, 256, 384, 512};
  int threads = 0, repeat = 5, warmup = 1;
  double updates = 2e8;
  std::int64_t ref_max = 512;
  std::string jsonl, device = "cpu", set = "all";
  std::vector<std::string> tune;
  std::string variants;
  std::vector<int> time_tiles;
  po::options_description o("jacobi_bench options");
  o.add_options()("help,h", "this help")("device", po::value(&device), "cpu or cuda")(
      "sizes", po::value(&sizes)->multitoken(), "grid points a side")(
      "threads", po::value(&threads), "OpenMP threads (0: all cores)")(
      "repeat", po::value(&repeat), "timed runs")("warmup", po::value(&warmup), "untimed runs")(
      "updates", po::value(&updates), "point updates a run (sweeps = updates / (N-2)^3, >= 1)")(
      "ref-max", po::value(&ref_max), "largest N the serial ref runs at")(
      "jsonl", po::value(&jsonl), "also write JSON lines here")(
      "tune", po::value(&tune), "KEY=VALUE: tune the marching sweeps (--tune help: the keys)")(
      "variants", po::value(&variants),
      "cuda: cuda-norm's and cuda-timetile's rows under each of these, ';'-separated, each "
      "K=V,K=V tuning keys over --tune's, e.g. ';warps=32' (the default, then 32 warps)")(
      "time-tiles", po::value(&time_tiles)->multitoken(),
      "cuda: K of the time-tiled rows (default 1 2 3 4 double, 2 3 4 6 8 single)")(
      "set", po::value(&set),
      "cuda: all (default), timetile (cuda-norm and cuda-timetile, 3D) or plain (cuda-norm, "
      "3D)");
  po::variables_map vm;
  if (!mm::bench::parse_options(argc, argv, o, vm, "jacobi_bench")) return 2;
  if (vm.count("help")) {
    std::cout << o << "\nFormulas: see the top of bench/jacobi_bench.cpp.\n";
    return 0;
  }
  // The same keys, parsers and checks as mmjacobi's --tune (and for each of --variants).
  mm::JacobiTuning tuning;
  std::vector<mm::JacobiTuning> variant_tunings;
  try {
    const mm::TuneArgs args(tune);
    if (args.help()) {
      std::cout << mm::tune_help("jacobi_bench", {mm::JacobiTuning::keys()});
      return 0;
    }
    args.check_known("jacobi_bench", {mm::JacobiTuning::keys()});
    tuning = mm::JacobiTuning::from(args);
    if (vm.count("variants"))
      for (const std::string& v : mm::bench::split_variants(variants))
        variant_tunings.push_back(
            mm::bench::variant_tuning<mm::JacobiTuning>("jacobi_bench", tune, v));
  } catch (const mm::UsageError& e) {
    std::cerr << "jacobi_bench: " << e.what() << "\n";
    return 2;
  }
  threads = threads > 0 ? threads : omp_get_num_procs();
  omp_set_num_threads(threads);
  if (device == "cuda") {
    jacobi_bench::CudaOptions c;
    c.tuning = tuning;
    c.variants = variant_tunings;
    c.time_tiles = time_tiles;
    if (set != "all" && set != "timetile" && set != "plain") {
      std::cerr << "jacobi_bench: --set all, timetile or plain\n";
      return 2;
    }
    c.only_timetile = set == "timetile" || set == "plain";
    c.only_plain = set == "plain";
    if (vm.count("sizes")) c.sizes3 = sizes;
    if (vm.count("updates")) c.updates = updates;
    c.repeat = repeat;
    c.warmup = warmup;
    c.jsonl = jsonl;
    try {
      return jacobi_bench::run_cuda(c);
    } catch (const std::exception& e) {
      std::cerr << "jacobi_bench: " << e.what() << "\n";
      return 4;
    }
  }
  if (device != "cpu") {
    std::cerr << "jacobi_bench: --device cpu or cuda\n";
    return 2;
  }
  if (!tune.empty() || vm.count("variants"))
    std::cerr << "jacobi_bench: warning: --tune and --variants tune the CUDA marching sweeps, not "
                 "the CPU's\n";

  const double copy = mm::bench::copy_gbps(std::size_t{1} << 30, threads);
  std::ofstream js;
  if (!jsonl.empty()) js.open(jsonl);
  auto ctx = mm::bench::context("jacobi_bench", threads);
  ctx["copy_gbps"] = copy;
  if (js) js << ctx.dump() << std::endl;
  std::cout << "copy bandwidth (parallel memcpy of 1 GiB, read + write, " << threads
            << " threads): " << fixed(copy, 2) << " GB/s\n\n";
  std::cout << "| N | impl | precision | norm | iters/run | median s | min s | max s | MLUP/s | "
               "GB/s | of copy | "
               "cpu / ref |\n|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  // Each row written as soon as it is measured (a run cut short keeps the rows it finished);
  // "cpu / ref" against the ref row of the same N, measured first.
  for (const std::int64_t n : sizes) {
    double ref_mlups = 0;
    const auto emit = [&](const Row& r) {
      if (r.impl == "ref") ref_mlups = r.mlups;
      std::cout << "| " << r.n << " | " << r.impl << " | " << r.precision << " | "
                << (r.norm ? "yes" : "no") << " | " << r.iters << " | " << fixed(r.t.median, 4)
                << " | " << fixed(r.t.min, 4) << " | " << fixed(r.t.max, 4) << " | "
                << fixed(r.mlups, 1) << " | " << fixed(r.gbps, 2) << " | "
                << fixed(r.gbps / copy, 3) << " | "
                << (ref_mlups > 0 ? fixed(r.mlups / ref_mlups, 2) : "-") << " |" << std::endl;
      if (js)
        js << nlohmann::json{{"n", r.n},         {"impl", r.impl},   {"precision", r.precision},
                             {"norm", r.norm},   {"iters", r.iters}, {"median_s", r.t.median},
                             {"min_s", r.t.min}, {"max_s", r.t.max}, {"repeats", r.t.repeats},
                             {"mlups", r.mlups}, {"gbps", r.gbps},   {"of_copy", r.gbps / copy},
                             {"copy_gbps", copy}}
                  .dump()
           << std::endl;
    };
    if (n <= ref_max) emit(measure_one<double>(n, "ref", true, updates, warmup, repeat));
    emit(measure_one<double>(n, "cpu", true, updates, warmup, repeat));
    emit(measure_one<double>(n, "cpu", false, updates, warmup, repeat));
    emit(measure_one<float>(n, "cpu", true, updates, warmup, repeat));
  }
  return 0;
}
