// Named implementations of an operation, and the runner protocol every backend follows:
// bind inputs, upload once, run many times under the timer, download once.
#pragma once

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "device.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"

namespace mm {

// One implementation bound to its inputs and outputs. CPU runners do nothing in
// upload/download; CUDA runners copy there and time run() with device events.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void upload() {}
  virtual void run() = 0;  // one complete, synchronous execution
  virtual double timed_run() {
    Stopwatch w;
    run();
    return w.seconds();
  }
  virtual void download() {}
  virtual std::string device_name() const { return cpu_model(); }
  // The tuning values the runs used, defaults resolved (usually the operation's Tuning
  // struct's to_json()); {} for an implementation that takes no tuning keys. Asked after the
  // runs, into the record's "tuning".
  virtual nlohmann::json tuning() const { return nlohmann::json::object(); }
  // What the runs measured under --profile (the level travels in the operation's problem);
  // null: no profile. Into the record's "profile".
  virtual nlohmann::json profile() const { return nullptr; }
};

// Whom an implementation is for. product: the ones a user chooses among (the default, the
// teaching variants, the vendor libraries). experimental: research variants kept for the
// comparison and tested like the others, but never a default and listed by --list-impls --all
// only.
enum class ImplKind { product, experimental };

// An implementation: NAME for --impl, the DEVICE it runs on, MAKE, which binds the
// operation's arguments into a Runner (its signature is the operation's own), and its KIND.
template <class Make>
struct Impl {
  std::string name;
  Device device;
  std::string description;
  Make make;
  ImplKind kind = ImplKind::product;
  bool experimental() const { return kind == ImplKind::experimental; }
};

template <class Make>
using ImplList = std::vector<Impl<Make>>;

inline const char* device_word(Device d) {
  return d == Device::cuda ? "cuda" : "cpu";
}

// --impl NAME when given (an experimental one too), else the first product implementation
// listed for DEVICE (lists are ordered best first); with --device auto on a GPU machine, the
// first CPU one when the operation has no CUDA implementation.
template <class Make>
const Impl<Make>& pick_impl(const ImplList<Make>& list, const std::string& op,
                            const std::string& name, Device device) {
  std::string names, experimental;
  for (const auto& i : list) {
    if (!name.empty() && i.name == name) {
      if (!device_was_auto() && i.device != device)  // asked for one device, named another's
        throw UsageError("--impl " + name + " runs on the " + device_word(i.device) +
                         ", not on --device " + device_word(device));
      if (i.device == Device::cuda) {
        const GpuInfo g = cuda_devices();
        if (g.count == 0) throw DeviceError("--impl " + name + " needs a GPU: " + g.reason);
      }
      return i;
    }
    std::string& to = i.experimental() ? experimental : names;
    to += (to.empty() ? "" : ", ") + i.name;
  }
  if (!experimental.empty()) names += " (experimental: " + experimental + ")";
  if (!name.empty())
    throw UsageError("unknown --impl '" + name + "' for " + op + "; one of: " + names);
  for (const auto& i : list)
    if (i.device == device && !i.experimental()) return i;
  if (device == Device::cuda && device_was_auto()) {  // --device auto: the CPU will do
    for (const auto& i : list)
      if (i.device == Device::cpu && !i.experimental()) return i;
  }
  throw DeviceError(std::string("no ") + device_word(device) + " implementation of " + op +
                    " (available: " + names + ")");
}

// What a tool runs when no --impl is given: on the GPU the implementation CUDA_CHOICE() names
// (an operation's measured rule, by its input), elsewhere pick_impl's default for DEVICE.
template <class Make, class Choice>
const Impl<Make>& pick_default_impl(const ImplList<Make>& list, const std::string& op,
                                    Device device, Choice&& cuda_choice) {
  return pick_impl(list, op, device == Device::cuda ? std::string(cuda_choice()) : std::string(),
                   device);
}

// One line an implementation: name, device, description, the names in a column of 16 or
// wider, two spaces past the list's longest (listed or not: a line reads the same in both
// listings). ALL (--list-impls --all): the experimental ones too, marked so at the end of
// their line.
template <class Make>
std::string format_impls(const ImplList<Make>& list, bool all = false) {
  std::size_t width = 16;
  for (const auto& i : list) width = std::max(width, i.name.size() + 2);
  std::ostringstream s;
  for (const auto& i : list) {
    if (i.experimental() && !all) continue;
    s << i.name;
    for (std::size_t k = i.name.size(); k < width; ++k) s << ' ';
    s << device_word(i.device) << (i.device == Device::cuda ? "  " : "   ") << i.description
      << (i.experimental() ? "  [experimental]" : "") << "\n";
  }
  return s.str();
}

struct Measured {
  double h2d = 0, d2h = 0;
  PhaseStats compute;
  std::string device;
  nlohmann::json tuning = nlohmann::json::object();  // Runner::tuning()
  nlohmann::json profile;                            // Runner::profile(); null: none
};

// upload, WARMUP untimed runs, REPEAT timed runs, download; then the tuning used and the
// profile.
Measured measure(Runner& r, int warmup, int repeat);

// Puts the device, the h2d / compute / d2h phases and the tuning used into the record, and
// the profile when there is one.
void record_measured(TimingRecord& rec, const Measured& m);

}  // namespace mm
