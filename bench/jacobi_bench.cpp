// Benchmark of the 3D heated-room Jacobi stencil: MLUP/s and GB/s of ref and cpu against
// the copy bandwidth measured in the same run.
//
// Formulas: one run = ITERS = max(1, --updates / (N-2)^3) sweeps of the N^3 grid (two buffers
// swapped, initialised outside the timing), the change ||u_new - u_old||_2 computed in every sweep
// (as --check-every 1) unless the row says "no norm". MLUP/s = (N-2)^3 * ITERS / median seconds /
// 1e6; GB/s = 16 B (8 for float) per point update * (N-2)^3 * ITERS / median seconds / 1e9, the
// least traffic a sweep can make (u_old read once, u_new written once, neighbours from
// cache); "of copy" = GB/s / copy GB/s, where copy GB/s counts read plus written bytes of a
// parallel memcpy of 1 GiB (bench_common.hpp). No vendor library does this stencil: the copy
// bandwidth is the ceiling compared with. flops = 8 per point update.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "bench_common.hpp"
#include "jacobi.hpp"

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

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes{64, 128, 256, 384, 512};
  int threads = 0, repeat = 5, warmup = 1;
  double updates = 2e8;
  std::int64_t ref_max = 512;
  std::string jsonl;
  po::options_description o("jacobi_bench options");
  o.add_options()("help,h", "this help")("sizes", po::value(&sizes)->multitoken(),
                                         "grid points a side")("threads", po::value(&threads),
                                                               "OpenMP threads (0: all cores)")(
      "repeat", po::value(&repeat), "timed runs")("warmup", po::value(&warmup), "untimed runs")(
      "updates", po::value(&updates), "point updates a run (sweeps = updates / (N-2)^3, >= 1)")(
      "ref-max", po::value(&ref_max), "largest N the serial ref runs at")(
      "jsonl", po::value(&jsonl), "also write JSON lines here");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, o), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << o << "\nFormulas: see the top of bench/jacobi_bench.cpp.\n";
    return 0;
  }
  threads = threads > 0 ? threads : omp_get_num_procs();
  omp_set_num_threads(threads);

  const double copy = mm::bench::copy_gbps(std::size_t{1} << 30, threads);
  std::ofstream js;
  if (!jsonl.empty()) js.open(jsonl);
  auto ctx = mm::bench::context("jacobi_bench", threads);
  ctx["copy_gbps"] = copy;
  if (js) js << ctx.dump() << "\n";
  std::cout << "copy bandwidth (parallel memcpy of 1 GiB, read + write, " << threads
            << " threads): " << fixed(copy, 2) << " GB/s\n\n";
  std::cout << "| N | impl | precision | norm | iters/run | median s | min s | max s | MLUP/s | "
               "GB/s | of copy | "
               "cpu / ref |\n|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::int64_t n : sizes) {
    std::vector<Row> rows;
    if (n <= ref_max) rows.push_back(measure_one<double>(n, "ref", true, updates, warmup, repeat));
    rows.push_back(measure_one<double>(n, "cpu", true, updates, warmup, repeat));
    rows.push_back(measure_one<double>(n, "cpu", false, updates, warmup, repeat));
    rows.push_back(measure_one<float>(n, "cpu", true, updates, warmup, repeat));
    const double ref_mlups = n <= ref_max ? rows.front().mlups : 0;
    for (const Row& r : rows) {
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
           << "\n";
    }
  }
  return 0;
}
