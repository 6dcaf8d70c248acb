// Errors across ranks: every rank agrees on one exit code, one rank prints one message.
//
// A phase whose work may fail on some ranks only (rank 0 reads a file, each rank parses its
// part) runs under agree(): afterwards either every rank goes on, or every rank throws
// Failure with the exit code of the lowest failing rank, which alone keeps its message.
// dist::run_tool() turns Failure into the exit code and prints that one message.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "dist/comm.hpp"

namespace mm::dist {

// Thrown on every rank after an agreed failure. REPORT holds the original exception on the
// rank that reports it (the lowest failing rank), null elsewhere.
struct Failure : std::exception {
  int code = 1;
  std::exception_ptr report;
  const char* what() const noexcept override { return "failure agreed among the ranks"; }
};

// The exit code an exception maps to (as mm::run_tool maps it); a closed pipe is 0.
int exit_code_of(const std::exception_ptr& e);

// The agreement step: FAILED is this rank's exception (null: none). Returns normally when no
// rank failed; otherwise throws Failure on every rank. Collective over COMM.
void agree_on(const Comm& comm, std::exception_ptr failed);

// Runs F on this rank, then agrees (see above). Collective: every rank calls it, F itself
// must not call collectives that other ranks could miss because of an exception.
template <class F>
auto agree(const Comm& comm, F&& f) -> decltype(f()) {
  using R = decltype(f());
  std::exception_ptr failed;
  if constexpr (std::is_void_v<R>) {
    try {
      std::forward<F>(f)();
    } catch (...) {
      failed = std::current_exception();
    }
    agree_on(comm, failed);
  } else {
    std::optional<R> r;
    try {
      r.emplace(std::forward<F>(f)());
    } catch (...) {
      failed = std::current_exception();
    }
    agree_on(comm, failed);
    return std::move(*r);
  }
}

// main() of a tool that may run under mpirun. Not launched by mpirun: exactly mm::run_tool.
// Launched: a Session around BODY; standard output only from rank 0 (--help, --list-impls);
// an agreed Failure gives every rank its code and one message; an error that escapes without
// agreement (all ranks failing alike, e.g. a usage error) is agreed once more at the end,
// and where some ranks do not come to that agreement within a few seconds, the job is
// aborted (MPI_Abort) with the error's code: the last resort, never a hang.
int run_tool(const char* name, int argc, char** argv, const std::function<int(int, char**)>& body);

}  // namespace mm::dist
