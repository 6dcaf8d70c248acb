// Error types of mmtools and the exit status each one maps to (see README, "Exit codes").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mm {

enum class ExitCode : int {
  ok = 0,
  check_failed = 1,  // a check failed, or a solver did not converge
  usage = 2,         // bad command line
  bad_input = 3,     // malformed file, mismatched dimensions, unsupported input
  device = 4,        // no GPU, out of memory, I/O failure writing output
  numerical = 5,     // singular matrix, zero pivot
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

struct UsageError : Error {
  explicit UsageError(const std::string& what) : Error(ExitCode::usage, what) {}
};

// Bad input. With a file (and a line > 0) the message reads "FILE:LINE: what".
struct InputError : Error {
  explicit InputError(const std::string& what) : Error(ExitCode::bad_input, what) {}
  InputError(const std::string& file, std::int64_t line, const std::string& what)
      : Error(ExitCode::bad_input, format(file, line, what)) {}
  static std::string format(const std::string& file, std::int64_t line, const std::string& what) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what;
  }
};

struct DeviceError : Error {
  explicit DeviceError(const std::string& what) : Error(ExitCode::device, what) {}
};

struct NumericalError : Error {
  explicit NumericalError(const std::string& what) : Error(ExitCode::numerical, what) {}
};

// Thrown when standard output's reader went away: the tool ends quietly.
struct BrokenPipe : std::exception {
  const char* what() const noexcept override { return "broken pipe"; }
};

}  // namespace mm
