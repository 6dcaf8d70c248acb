// Timing: repeat/median statistics and the JSON-lines timing record.
#include "mm/timing.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>

#include "mm/cli.hpp"
#include "mm/error.hpp"

namespace mm {

PhaseStats summarize(std::vector<double> s) {
  PhaseStats r;
  if (s.empty()) return r;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  r.min = s.front();
  r.max = s.back();
  r.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  r.repeats = static_cast<int>(n);
  return r;
}

PhaseStats time_repeated(int warmup, int repeat, const std::function<void()>& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    Stopwatch w;
    f();
    t.push_back(w.seconds());
  }
  return summarize(std::move(t));
}

TimingRecord::TimingRecord(std::string tool) {
  j_["tool"] = std::move(tool);
  j_["impl"] = "";
  j_["device"] = cpu_model();
  j_["precision"] = "double";
  j_["inputs"] = nlohmann::json::array();
  j_["phases"] = nlohmann::json::object();
  j_["version"] = version_string();
}

TimingRecord& TimingRecord::impl(const std::string& name) {
  j_["impl"] = name;
  return *this;
}
TimingRecord& TimingRecord::device(const std::string& name) {
  j_["device"] = name;
  return *this;
}
TimingRecord& TimingRecord::precision(const std::string& p) {
  j_["precision"] = p;
  return *this;
}

TimingRecord& TimingRecord::input(const std::string& path, std::int64_t rows, std::int64_t cols,
                                  std::int64_t nnz, std::int64_t bytes) {
  j_["inputs"].push_back(
      {{"path", path}, {"rows", rows}, {"cols", cols}, {"nnz", nnz}, {"bytes", bytes}});
  return *this;
}

TimingRecord& TimingRecord::phase(const std::string& name, double seconds) {
  j_["phases"][name] = seconds;
  return *this;
}

TimingRecord& TimingRecord::add_phase(const std::string& name, double seconds) {
  auto& p = j_["phases"];
  p[name] = (p.contains(name) ? p[name].get<double>() : 0.0) + seconds;
  return *this;
}

TimingRecord& TimingRecord::phase(const std::string& name, const PhaseStats& s) {
  j_["phases"][name] = {
      {"min", s.min}, {"median", s.median}, {"max", s.max}, {"repeats", s.repeats}};
  return *this;
}

TimingRecord& TimingRecord::work(double flops, double bytes) {
  flops_ = flops;
  bytes_ = bytes;
  return *this;
}

TimingRecord& TimingRecord::extra(const std::string& key, nlohmann::json value) {
  j_[key] = std::move(value);
  return *this;
}

nlohmann::json TimingRecord::json() const {
  nlohmann::json j = j_;
  j["phases"]["total"] = since_start_.seconds();
  double t = 0;
  if (j["phases"].contains("compute")) {
    const auto& c = j["phases"]["compute"];
    t = c.is_object() ? c["median"].get<double>() : c.get<double>();
  }
  if (flops_ >= 0) {
    j["flops"] = flops_;
    j["gflops"] = t > 0 ? flops_ / t * 1e-9 : 0.0;
  }
  if (bytes_ >= 0) {
    j["bytes"] = bytes_;
    j["gbps"] = t > 0 ? bytes_ / t * 1e-9 : 0.0;
  }
  return j;
}

void TimingRecord::emit(const std::string& dest) const {
  if (dest.empty()) return;
  const std::string line = json().dump() + "\n";
  if (dest == "-") {
    std::cerr << line << std::flush;
    return;
  }
  std::ofstream f(dest, std::ios::app);
  f << line;
  f.close();
  if (!f) throw DeviceError("cannot append the timing record to " + dest);
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(line.find_first_not_of(' ', c + 1));
    }
  }
  return "cpu";
}

}  // namespace mm
