// The shared command line of every tool (Boost.Program_options): common options,
// positional inputs, --help with examples and --version.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "mm/tuning.hpp"

namespace mm {

namespace po = boost::program_options;

struct CommonOptions {
  std::string output = "-";  // -o PATH; "-" is standard output
  int threads = 0;           // 0: one per core
  std::string timing;        // --timing PATH ("-": standard error); empty: none
  bool quiet = false;        // -q: no matrix output
  bool verbose = false;      // -v
  // --max-memory SIZE in bytes: the budget a tool's memory plan is checked against before it
  // allocates (host; with a GPU also the device). Default: available_memory() at parse time.
  std::int64_t max_memory = 0;
  bool max_memory_given = false;  // set by the user (then it also caps the device budget)
  std::int64_t device_cap() const { return max_memory_given ? max_memory : -1; }
  // Compute options (tools built with Cli::compute()).
  std::string device = "auto";
  std::string precision = "double";
  std::string impl;
  bool list_impls = false;
  bool list_all = false;  // --all: --list-impls also shows the experimental implementations
  int repeat = 1;
  int warmup = 0;
  // Tuning and profiling (compute tools; what they take is declared by tuning() and profiling()).
  std::vector<std::string> tune;  // --tune KEY=VALUE, repeatable; "help" lists the keys
  int profile = 0;                // --profile[=LEVEL]: 0 off, 1 (--profile alone) or 2
};

class Cli {
 public:
  // USAGE is the synopsis line after the tool's name; EXAMPLES one command a line.
  Cli(std::string tool, std::string usage, std::string description, std::string examples);

  // Adds --device, --precision, --impl, --list-impls, --all, --repeat, --warmup.
  Cli& compute();
  // The tuning keys of the operations this tool runs (each operation's Tuning::keys()), for
  // `--tune help` and the check of the given keys: without, every --tune key is refused.
  // (compute() adds --tune and --profile; lib/mm/tuning.hpp tells the whole pattern.)
  Cli& tuning(std::vector<TuneKeys> ops);
  // One of the tool's operations reports a profile under --profile: without, it is refused.
  Cli& profiling();
  // Tool-specific options, e.g. cli.options()("alpha", po::value<double>(), "...").
  po::options_description_easy_init options() { return tool_opts_.add_options(); }
  // A positional argument; MAX -1 takes all that remain.
  Cli& positional(const std::string& name, int max = 1);

  // Parses; returns false when --help, --version or `--tune help` was printed (exit 0).
  // Throws UsageError on a bad command line.
  bool parse(int argc, const char* const* argv);

  const CommonOptions& common() const { return common_; }
  // The parsed --tune list, its keys checked: each operation's Tuning::from() takes it.
  const TuneArgs& tune() const { return tune_; }
  const po::variables_map& vm() const { return vm_; }
  bool has(const std::string& name) const { return vm_.count(name) > 0; }
  template <class T>
  T get(const std::string& name) const {
    return vm_[name].as<T>();
  }
  std::vector<std::string> positionals(const std::string& name) const;
  std::string help() const;
  const std::string& tool() const { return tool_; }

 private:
  std::string tool_, usage_, description_, examples_;
  po::options_description tool_opts_{"Options"};
  po::options_description common_opts_{"Common options"};
  po::positional_options_description pos_;
  std::vector<std::string> pos_names_;
  CommonOptions common_;
  std::string max_memory_text_;
  po::variables_map vm_;
  bool compute_ = false;
  std::vector<TuneKeys> tune_ops_;
  TuneArgs tune_;
  bool profiling_ = false;
};

// Default thread count: the --threads value, or the cores available.
int thread_count(int requested);

std::string version_string();

}  // namespace mm
