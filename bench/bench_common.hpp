// Shared benchmark helpers: the copy-bandwidth ceiling measured in the same run, median
// timing with warm-up, and one JSON line per measurement.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "mm/matrix.hpp"
#include "mm/timing.hpp"
#include "mm/tuning.hpp"

namespace mm::bench {

// NAME's command line parsed by O into VM; where it does not parse, the message on stderr and
// false (the bench then exits 2).
inline bool parse_options(int argc, char** argv,
                          const boost::program_options::options_description& o,
                          boost::program_options::variables_map& vm, const char* name) {
  try {
    boost::program_options::store(boost::program_options::parse_command_line(argc, argv, o), vm);
    boost::program_options::notify(vm);
    return true;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return false;
  }
}

// Median seconds of F over REPEAT runs after WARMUP runs.
inline double median_seconds(int warmup, int repeat, const std::function<void()>& f) {
  return time_repeated(warmup, repeat, f).median;
}

// Bandwidth of a parallel copy of BYTES (counting bytes read plus bytes written), the
// ceiling every memory-bound kernel is compared with. Pages are touched first, each
// thread copying the part it first touched.
inline double copy_gbps(std::size_t bytes, int threads, int repeat = 7) {
  const std::size_t n = bytes / sizeof(double);
  std::vector<double> a(n), b(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<double>(i);
    b[i] = 0;
  }
  const double t = median_seconds(1, repeat, [&] {
#pragma omp parallel num_threads(threads)
    {
      const int p = omp_get_thread_num(), q = omp_get_num_threads();
      const std::size_t lo = n * p / q, hi = n * (p + 1) / q;
      std::memcpy(b.data() + lo, a.data() + lo, (hi - lo) * sizeof(double));
    }
  });
  return 2.0 * static_cast<double>(n * sizeof(double)) / t * 1e-9;
}

// V with PREC digits after the point, for the benches' tables.
inline std::string fixed(double v, int prec) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(prec);
  s << v;
  return s.str();
}

// ROWS x COLS uniform in [-1, 1) from SEED, drawn in double and rounded to T: the dense
// operand the add, GEMM and LU benches time (no pivoting surprises, the matrix every LU paper
// times), the same values whatever T.
template <class T = double>
Dense<T> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Dense<T> d(rows, cols);
  for (auto& v : d.data) v = static_cast<T>(static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0);
  return d;
}

// --variants: the variants of a ';'-separated list (one empty variant where the list is empty),
// each compared with the others in the same run.
inline std::vector<std::string> split_variants(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string x; std::getline(in, x, ';');) names.push_back(x);
  if (names.empty()) names.push_back("");
  return names;
}

// The tuning of one VARIANT ("K=V,K=V"): BASE's --tune items with the variant's over those of
// the same key, by TUNING's keys and parsers (UsageError, naming BENCH, for an unknown key or a
// bad value).
template <class Tuning>
Tuning variant_tuning(const char* bench, const std::vector<std::string>& base,
                      const std::string& variant) {
  std::vector<std::string> own, items;
  std::stringstream in(variant);
  for (std::string kv; std::getline(in, kv, ',');)
    if (!kv.empty()) own.push_back(kv);
  const auto key = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  for (const std::string& kv : base) {
    bool over = false;
    for (const std::string& o : own) over |= key(o) == key(kv);
    if (!over) items.push_back(kv);
  }
  items.insert(items.end(), own.begin(), own.end());
  const TuneArgs args(items);
  args.check_known(bench, {Tuning::keys()});
  return Tuning::from(args);
}

// Prints one JSON object per line to stdout (the results file collects them).
inline void emit(const nlohmann::json& j) {
  std::cout << j.dump() << std::endl;
}

// The header every result file starts with: what ran where.
inline nlohmann::json context(const std::string& bench, int threads) {
  return {{"bench", bench}, {"device", cpu_model()}, {"threads", threads}};
}

}  // namespace mm::bench
