// The timed protocol shared by every tool: transfers apart from the compute median.
#include "impl.hpp"

namespace mm {

Measured measure(Runner& r, int warmup, int repeat) {
  Measured m;
  m.device = r.device_name();
  Stopwatch w;
  r.upload();
  m.h2d = w.seconds();
  for (int i = 0; i < warmup; ++i) r.run();
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(repeat));
  for (int i = 0; i < repeat; ++i) t.push_back(r.timed_run());
  m.compute = summarize(std::move(t));
  w.restart();
  r.download();
  m.d2h = w.seconds();
  m.tuning = r.tuning();
  m.profile = r.profile();
  return m;
}

void record_measured(TimingRecord& rec, const Measured& m) {
  rec.device(m.device).phase("h2d", m.h2d).phase("compute", m.compute).phase("d2h", m.d2h);
  rec.extra("tuning", m.tuning.is_object() ? m.tuning : nlohmann::json::object());
  if (!m.profile.is_null()) rec.extra("profile", m.profile);
}

}  // namespace mm
