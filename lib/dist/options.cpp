// The distributed tools' options, their checks, and per-rank reports.
#include "dist/options.hpp"

#include <omp.h>

#include <iostream>

#include "mm/error.hpp"

namespace mm::dist {

void add_options(Cli& cli) {
  cli.options()("partition", po::value<std::string>()->default_value("rows"),
                "under mpirun: how rows are shared out among the ranks: rows (contiguous "
                "blocks balanced by nonzeros) or metis (a METIS graph partition of A + A^T, square "
                "matrices; results in the file's order)")(
      "output-per-rank", po::bool_switch(),
      "write a file a rank (-o y.mtx: y.rank0.mtx, y.rank1.mtx, ... and the index "
      "y.index.json) instead of gathering the result to rank 0");
}

bool wanted(const Cli& cli) {
  return distributed() || cli.get<bool>("output-per-rank");
}

DistOptions parse_options(const Cli& cli, LocalKernel (*kernel)(const std::string& impl)) {
  const CommonOptions& c = cli.common();
  DistOptions o;
  o.partition = parse_partition(cli.get<std::string>("partition"));
  o.per_rank = cli.get<bool>("output-per-rank");
  if (o.per_rank && !c.quiet && c.output == "-")
    throw UsageError("--output-per-rank needs -o PATH (the files are named after it)");
  if (c.device == "cuda")
    throw DeviceError(
        "--device cuda under mpirun: GPU ranks are not built yet (issue 15); "
        "use --device cpu");
  o.kernel = kernel(c.impl);
  return o;
}

void print_ranked(const Comm& comm, const std::string& line) {
  const auto text = comm.gatherv(line.data(), line.size(), 0);
  const auto sizes = comm.allgather(static_cast<std::int64_t>(line.size()));
  if (!comm.root()) return;
  std::size_t at = 0;
  for (std::int64_t n : sizes) {
    std::cerr << std::string(text.data() + at, static_cast<std::size_t>(n)) << "\n";
    at += static_cast<std::size_t>(n);
  }
}

void say_ranks(const Comm& comm, const CommonOptions& c, const char* tool,
               const std::string& more) {
  if (c.verbose && comm.root())
    std::cerr << tool << ": " << comm.size() << (comm.size() == 1 ? " rank" : " ranks") << " ("
              << transport(comm) << "), " << omp_get_max_threads()
              << " OpenMP threads a rank, on the CPU" << more << "\n";
}

std::string transport(const Comm& comm) {
  return comm.mpi() ? "mpi" : "none";
}

}  // namespace mm::dist
