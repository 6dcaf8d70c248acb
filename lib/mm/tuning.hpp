// Tuning as data: the description of an operation's tuning keys, typed parsers for their
// values, the parsed `--tune KEY=VALUE` list, and the `--tune help` text.
//
// How an operation takes tuning keys (Jacobi is the example; nothing reads the environment):
//  1. kernels/<op>.hpp declares one small struct next to the operation, every field's default
//     meaning "the code's choice", and the operation's problem struct carries one:
//        struct JacobiTuning {
//          int warps = 0;   // 0: the code's choice (8)
//          int chunks = 0;  // 0: the wave-fill rule
//          static const TuneKeys& keys();
//          static JacobiTuning from(const TuneArgs& args);
//          nlohmann::json to_json() const;
//        };
//        template <class T> struct StencilProblem { ...; JacobiTuning tuning; };
//  2. kernels/<op>_impls.cpp, beside the registry, defines keys() (each key's name, allowed
//     values, one-line meaning and default), from() (each given key parsed by tune_int /
//     tune_int_of / tune_choice / tune_on_off, so a bad value is a UsageError naming the key
//     and its allowed values before anything runs) and to_json().
//  3. The tool names the operations it runs: cli.compute().tuning({JacobiTuning::keys()}).
//     Cli::parse then answers `--tune help`, refuses a key that none of them declares, and the
//     tool hands cli.tune() to from(): p.tuning = JacobiTuning::from(cli.tune()). A tool that
//     declares nothing refuses every key ("mmspmv has no tuning keys"). After the run,
//     warn_unused_tuning() says which given keys the chosen implementation did not use.
//  4. The implementation reads p.tuning, resolves the defaults (from the device, the sizes)
//     and reports the values it used from Runner::tuning(), usually the struct's to_json()
//     of the resolved values; measure() and record_measured() put them into the timing
//     record as "tuning" ({} for an implementation that takes no keys).
// --profile works alike: a tool whose operations report a profile calls cli.profiling(); the
// level (CommonOptions::profile) travels in the problem and Runner::profile() returns what
// was measured, which the record carries as "profile".
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mm {

// One tuning key, as `--tune help` lists it.
struct TuneKey {
  std::string name;           // "warps"
  std::string allowed;        // "8|16", "0..65535", "on|off": the values the parser takes
  std::string meaning;        // one line
  std::string fallback;       // the default, in words: "8", "0 (the wave-fill rule)"
  bool experimental = false;  // a research switch, not a product option
};

// The keys of one operation (what the struct's keys() returns).
struct TuneKeys {
  std::string op;     // "jacobi stencil"
  std::string scope;  // which implementations use them, e.g. "CUDA marching sweeps (cuda-norm*)"
  std::vector<TuneKey> keys;
  // The key called NAME; std::logic_error when there is none (a programming error).
  const TuneKey& key(const std::string& name) const;
};

// The --tune values of one command line: "help", or KEY=VALUE each.
class TuneArgs {
 public:
  TuneArgs() = default;
  // UsageError for an item without '=', with an empty key, or a key given twice.
  explicit TuneArgs(const std::vector<std::string>& items);

  bool help() const { return help_; }
  bool empty() const { return items_.empty(); }
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  // The value given for KEY, if any.
  std::optional<std::string> get(const TuneKey& key) const;
  // UsageError for the first given key that none of OPS declares, naming it and the keys
  // TOOL takes ("unknown --tune key 'foo' for mmjacobi; keys: warps, chunks").
  void check_known(const std::string& tool, const std::vector<TuneKeys>& ops) const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
  bool help_ = false;
};

// Typed values of KEY; anything else is a UsageError "--tune KEY=VALUE: KEY takes ALLOWED".
// An integer in [LO, HI] (decimal, no sign for positives, nothing around it).
int tune_int(const TuneKey& key, const std::string& value, int lo, int hi);
// An integer among CHOICES.
int tune_int_of(const TuneKey& key, const std::string& value, const std::vector<int>& choices);
// One of WORDS: its index.
std::size_t tune_choice(const TuneKey& key, const std::string& value,
                        const std::vector<std::string>& words);
// on or off.
bool tune_on_off(const TuneKey& key, const std::string& value);

// `--tune help` of TOOL: every operation's keys with their allowed values, default and
// meaning, grouped by operation, experimental ones marked.
std::string tune_help(const std::string& tool, const std::vector<TuneKeys>& ops);

// Warns on standard error ("TOOL: warning: --tune KEY=VALUE not used by IMPL") for each given
// key that the implementation's reported tuning (USED, Runner::tuning()) does not hold.
void warn_unused_tuning(const std::string& tool, const TuneArgs& args, const nlohmann::json& used,
                        const std::string& impl);

}  // namespace mm
