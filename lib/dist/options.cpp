// The distributed tools' options, their checks, and per-rank reports.
#include "dist/options.hpp"

#include <omp.h>

#include <iostream>

#include "device.hpp"
#include "mm/error.hpp"

namespace mm::dist {

void add_options(Cli& cli) {
  cli.options()("partition", po::value<std::string>()->default_value("rows"),
                "under mpirun: how rows are shared out among the ranks: rows (contiguous "
                "blocks balanced by nonzeros) or metis (a METIS graph partition of A + A^T, square "
                "matrices; results in the file's order)")(
      "output-per-rank", po::bool_switch(),
      "write a file a rank (-o y.mtx: y.rank0.mtx, y.rank1.mtx, ... and the index "
      "y.index.json) instead of gathering the result to rank 0")(
      "comm", po::value<std::string>()->default_value("mpi"),
      "under mpirun with --device cuda: how the GPU ranks exchange data: mpi (CUDA-aware when "
      "the library is, else staged through pinned host memory) or nccl (a GPU a rank)");
}

bool wanted(const Cli& cli) {
  return distributed() || cli.get<bool>("output-per-rank");
}

DistOptions parse_options(const Cli& cli,
                          LocalKernel (*kernel)(const std::string& impl, bool gpu)) {
  const CommonOptions& c = cli.common();
  DistOptions o;
  o.partition = parse_partition(cli.get<std::string>("partition"));
  o.per_rank = cli.get<bool>("output-per-rank");
  if (o.per_rank && !c.quiet && c.output == "-")
    throw UsageError("--output-per-rank needs -o PATH (the files are named after it)");
  // GPU ranks only when asked for: auto keeps the CPU ranks (their results, bit for bit).
  o.gpu = c.device == "cuda";
  o.comm = parse_comm(cli.get<std::string>("comm"));
  if (o.comm == CommKind::nccl && !o.gpu)
    throw UsageError("--comm nccl moves device memory: it needs GPU ranks (--device cuda)");
  o.kernel = kernel(c.impl, o.gpu);
  if (o.gpu) {
    const GpuInfo g = cuda_devices();
    if (g.count == 0) throw DeviceError("--device cuda: no usable GPU (" + g.reason + ")");
  }
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

void say_ranks(const Comm& comm, const CommonOptions& c, const char* tool, const std::string& more,
               const GpuRanks* gpu) {
  if (!c.verbose || !comm.root()) return;
  std::cerr << tool << ": " << comm.size() << (comm.size() == 1 ? " rank" : " ranks") << " ("
            << transport(comm, gpu) << "), ";
  if (gpu)
    std::cerr << "a GPU a rank (its node rank modulo the node's GPUs)";
  else
    std::cerr << omp_get_max_threads() << " OpenMP threads a rank, on the CPU";
  std::cerr << more << "\n";
}

std::string transport(const Comm& comm, const GpuRanks* gpu) {
  if (gpu) return gpu->transport();
  return comm.mpi() ? "mpi" : "none";
}

}  // namespace mm::dist
