// Agreement on errors across ranks, and the main() wrapper of the distributed tools.
#include "dist/agree.hpp"

#include <omp.h>

#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>

#include "mm/error.hpp"
#include "mm/tool.hpp"

namespace mm::dist {

namespace {

// How long an error that escaped every agreement waits for the other ranks to report one
// too: they do at once when all fail alike (a usage error); otherwise the job is aborted.
constexpr double kLastAgreementSeconds = 5.0;

}  // namespace

int exit_code_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const BrokenPipe&) {
    return 0;
  } catch (const Failure& f) {
    return f.code;
  } catch (const Error& err) {
    return static_cast<int>(err.code());
  } catch (const std::bad_alloc&) {
    return static_cast<int>(ExitCode::device);
  } catch (...) {
    return 1;
  }
}

void agree_on(const Comm& comm, std::exception_ptr failed) {
  const int lowest = comm.allreduce(failed ? comm.rank() : comm.size(), Op::min);
  if (lowest == comm.size()) return;
  Failure f;
  f.code = comm.bcast(failed ? exit_code_of(failed) : 0, lowest);
  if (comm.rank() == lowest) f.report = failed;
  throw f;
}

int run_tool(const char* name, int argc, char** argv, const std::function<int(int, char**)>& body) {
  if (!launched_by_mpi())  // one rank: an agreed failure is the error itself
    return mm::run_tool(name, argc, argv, [&](int ac, char** av) -> int {
      try {
        return body(ac, av);
      } catch (const Failure& f) {
        if (f.report) std::rethrow_exception(f.report);
        return f.code;
      }
    });
  std::optional<Session> session;
  try {
    session.emplace(argc, argv);
  } catch (const Error& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
  const Comm& comm = world();
  // Ranks sharing cores share them out, unless OMP_NUM_THREADS (or --threads) says otherwise.
  if (!std::getenv("OMP_NUM_THREADS")) omp_set_num_threads(threads_per_rank());
  // One copy of what goes to standard output (--help, --list-impls): rank 0's.
  if (!comm.root()) std::cout.setstate(std::ios::badbit);
  bool unagreed = false;
  const int code = mm::run_tool(name, argc, argv, [&](int ac, char** av) -> int {
    try {
      return body(ac, av);
    } catch (const Failure& f) {
      if (f.report) std::rethrow_exception(f.report);  // mm::run_tool prints it
      return f.code;
    } catch (...) {
      const std::exception_ptr e = std::current_exception();
      int lowest = 0, lowest_code = 0;
      if (comm.all_failed(exit_code_of(e), kLastAgreementSeconds, lowest, lowest_code)) {
        if (comm.rank() == lowest) std::rethrow_exception(e);
        return lowest_code;
      }
      unagreed = true;
      std::rethrow_exception(e);
    }
  });
  if (unagreed && comm.size() > 1) comm.abort(code == 0 ? 1 : code);
  return code;
}

}  // namespace mm::dist
