// Timing: host stopwatch, warm-up/repeat/median, and the JSON-lines timing record.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mm {

class Stopwatch {
 public:
  Stopwatch() : t0_(clock::now()) {}
  void restart() { t0_ = clock::now(); }
  double seconds() const { return std::chrono::duration<double>(clock::now() - t0_).count(); }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point t0_;
};

struct PhaseStats {
  double min = 0, median = 0, max = 0;
  int repeats = 0;
};

// min / median / max of SAMPLES (median of an even count: mean of the middle two).
PhaseStats summarize(std::vector<double> samples);

// Runs F WARMUP times untimed, then REPEAT times timed by the host clock.
PhaseStats time_repeated(int warmup, int repeat, const std::function<void()>& f);

// One JSON object per line; field names as in the design's timing record.
class TimingRecord {
 public:
  explicit TimingRecord(std::string tool);
  TimingRecord& impl(const std::string& name);
  TimingRecord& device(const std::string& name);
  TimingRecord& precision(const std::string& p);
  TimingRecord& input(const std::string& path, std::int64_t rows, std::int64_t cols,
                      std::int64_t nnz, std::int64_t bytes);
  TimingRecord& phase(const std::string& name, double seconds);
  TimingRecord& phase(const std::string& name, const PhaseStats& s);
  // Adds SECONDS to a plain phase (several inputs read: one "read" phase).
  TimingRecord& add_phase(const std::string& name, double seconds);
  // Work of the timed "compute" phase by the kernel's formula; gflops and gbps are
  // derived from the median compute time.
  TimingRecord& work(double flops, double bytes);
  TimingRecord& extra(const std::string& key, nlohmann::json value);

  nlohmann::json json() const;  // "total" is the time since construction
  // Appends one line to DEST ("-": standard error). Empty DEST: nothing.
  void emit(const std::string& dest) const;

 private:
  nlohmann::json j_;
  Stopwatch since_start_;
  double flops_ = -1, bytes_ = -1;
};

// The CPU's model name (from /proc/cpuinfo), for the record's "device".
std::string cpu_model();

}  // namespace mm
