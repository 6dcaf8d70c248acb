// The shared command line: common options, positionals, --help and --version.
#include "mm/cli.hpp"

#include <omp.h>

#include <iostream>
#include <sstream>

#include "mm/error.hpp"
#include "mm/memory.hpp"

#ifndef MM_VERSION
#define MM_VERSION "0.0.0"
#endif

namespace mm {

std::string version_string() {
  return MM_VERSION;
}

int thread_count(int requested) {
  return requested > 0 ? requested : omp_get_num_procs();
}

Cli::Cli(std::string tool, std::string usage, std::string description, std::string examples)
    : tool_(std::move(tool)),
      usage_(std::move(usage)),
      description_(std::move(description)),
      examples_(std::move(examples)) {
  common_opts_.add_options()("help,h", "print this help and exit")("version",
                                                                   "print the version and exit")(
      "output,o", po::value<std::string>(&common_.output)->default_value("-"),
      "output path ('-': standard output; '.gz': compressed)")(
      "threads", po::value<int>(&common_.threads)->default_value(0),
      "CPU threads (0: one per core)")(
      "timing", po::value<std::string>(&common_.timing),
      "append a JSON timing record to this path ('-': standard error)")(
      "quiet,q", po::bool_switch(&common_.quiet), "write no matrix output (timing runs)")(
      "verbose,v", po::bool_switch(&common_.verbose),
      "say what is done, with times, on standard error")(
      "max-memory", po::value<std::string>(&max_memory_text_)->value_name("SIZE"),
      "memory budget, e.g. 8G, 512M (K, M, G, T: powers of 1024): a plan over it is refused "
      "(exit 4) before allocating; also caps the GPU's (default: the memory available, "
      "MemAvailable and the cgroup limit; on the GPU its free memory)");
}

Cli& Cli::compute() {
  compute_ = true;
  common_opts_.add_options()(
      "device", po::value<std::string>(&common_.device)->default_value("auto"), "auto|cpu|cuda")(
      "precision", po::value<std::string>(&common_.precision)->default_value("double"),
      "double|single")("impl", po::value<std::string>(&common_.impl),
                       "implementation by name (see --list-impls)")(
      "list-impls", po::bool_switch(&common_.list_impls), "list the implementations and exit")(
      "all", po::bool_switch(&common_.list_all),
      "with --list-impls: the experimental implementations too")(
      "repeat", po::value<int>(&common_.repeat)->default_value(1),
      "timed repetitions (median reported)")(
      "warmup", po::value<int>(&common_.warmup)->default_value(0), "untimed runs before timing");
  // Tuning and profiling: every compute tool has the options; what it takes, its operations
  // declare (tuning(), profiling()).
  common_opts_.add_options()(
      "tune", po::value<std::vector<std::string>>(&common_.tune)->value_name("KEY=VALUE"),
      "set a tuning value (repeatable); '--tune help' lists the keys")(
      "profile",
      po::value<int>(&common_.profile)->implicit_value(1)->default_value(0)->value_name("LEVEL"),
      "profile the operation's phases to standard error and the timing record (--profile=2: "
      "more detail)");
  return *this;
}

Cli& Cli::tuning(std::vector<TuneKeys> ops) {
  tune_ops_ = std::move(ops);
  return *this;
}

Cli& Cli::profiling() {
  profiling_ = true;
  return *this;
}

Cli& Cli::positional(const std::string& name, int max) {
  tool_opts_.add_options()(name.c_str(), po::value<std::vector<std::string>>(), "");
  pos_.add(name.c_str(), max);
  pos_names_.push_back(name);
  return *this;
}

std::vector<std::string> Cli::positionals(const std::string& name) const {
  if (!vm_.count(name)) return {};
  return vm_[name].as<std::vector<std::string>>();
}

std::string Cli::help() const {
  std::ostringstream s;
  s << "Usage: " << tool_ << " " << usage_ << "\n\n" << description_ << "\n\n";
  // Positionals are listed in the usage line, not as options.
  po::options_description visible("Options");
  for (const auto& o : tool_opts_.options()) {
    bool is_pos = false;
    for (const auto& p : pos_names_) is_pos |= o->long_name() == p;
    if (!is_pos) visible.add(o);
  }
  // One column more than Boost's own, so that even the longest option is two spaces from
  // its text: help2man (the man pages) splits an option from its description there.
  if (!visible.options().empty()) {
    visible.print(s, visible.get_option_column_width() + 1);
    s << "\n";
  }
  common_opts_.print(s, common_opts_.get_option_column_width() + 1);
  // "  $ " marks a command: help2man keeps such lines verbatim, one a line.
  s << "\nExamples:\n";
  std::istringstream examples(examples_);
  for (std::string line; std::getline(examples, line);) s << "  $ " << line << "\n";
  s << "\nExit status:\n"
       "  0  success\n"
       "  1  a check failed or a solver did not converge\n"
       "  2  usage error\n"
       "  3  bad input (malformed file, mismatched dimensions)\n"
       "  4  device or resource error (no GPU for --device cuda, out of memory, over the budget)\n"
       "  5  numerical breakdown (singular matrix, zero pivot)\n";
  return s.str();
}

bool Cli::parse(int argc, const char* const* argv) {
  po::options_description all;
  all.add(tool_opts_).add(common_opts_);
  try {
    // "-" alone is a positional (standard input), which Boost handles as a token.
    // --profile alone is level 1 and never takes the next word (an input path) as its level;
    // --profile=2 gives one.
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    for (auto& a : args)
      if (a == "--profile") a = "--profile=1";
    po::store(po::command_line_parser(args).options(all).positional(pos_).run(), vm_);
    if (vm_.count("help")) {
      std::cout << help();
      return false;
    }
    if (vm_.count("version")) {
      std::cout << tool_ << " (mmtools) " << version_string() << "\n";
      return false;
    }
    po::notify(vm_);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see " + tool_ + " --help)");
  }
  if (common_.threads < 0) throw UsageError("--threads must be >= 0");
  common_.max_memory_given = vm_.count("max-memory") > 0;
  common_.max_memory =
      common_.max_memory_given ? parse_size(max_memory_text_, "--max-memory") : available_memory();
  if (common_.threads > 0)
    omp_set_num_threads(common_.threads);  // every OpenMP kernel obeys --threads
  if (compute_) {
    tune_ = TuneArgs(common_.tune);
    if (tune_.help()) {
      std::cout << tune_help(tool_, tune_ops_);
      return false;
    }
    tune_.check_known(tool_, tune_ops_);
    if (common_.profile < 0 || common_.profile > 2)
      throw UsageError("--profile takes 1 or 2 (--profile alone: 1), not " +
                       std::to_string(common_.profile));
    if (common_.profile > 0 && !profiling_)
      throw UsageError("--profile: " + tool_ + " has nothing to profile");
    if (common_.device != "auto" && common_.device != "cpu" && common_.device != "cuda")
      throw UsageError("--device must be auto, cpu or cuda, not '" + common_.device + "'");
    if (common_.precision != "double" && common_.precision != "single")
      throw UsageError("--precision must be double or single, not '" + common_.precision + "'");
    if (common_.repeat < 1) throw UsageError("--repeat must be >= 1");
    if (common_.warmup < 0) throw UsageError("--warmup must be >= 0");
    if (common_.list_all && !common_.list_impls) throw UsageError("--all goes with --list-impls");
  }
  return true;
}

}  // namespace mm
