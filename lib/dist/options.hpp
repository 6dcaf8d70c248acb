// What a tool that runs distributed adds to its command line, and the question it asks.
#pragma once

#include <string>

#include "dist/comm.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/gpu.hpp"
#include "dist/partition.hpp"
#include "mm/cli.hpp"

namespace mm::dist {

// --partition rows|metis, --output-per-rank and --comm mpi|nccl.
void add_options(Cli& cli);

// The one question a tool asks: does it take its distributed path? Yes when it runs as a rank
// of an MPI job (even a job of one), or when --output-per-rank asks for a file a rank.
bool wanted(const Cli& cli);

struct DistOptions {
  PartitionKind partition = PartitionKind::rows;
  bool per_rank = false;
  LocalKernel kernel = LocalKernel::cpu_csr;
  bool gpu = false;  // --device cuda: GPU ranks (auto and cpu: CPU ranks)
  CommKind comm = CommKind::mpi;
};

// The distributed path's options, checked (UsageError; --device cuda without a GPU:
// DeviceError). KERNEL maps --impl to the ranks' kernel, on GPU ranks or not (a tool whose
// implementations have other names, e.g. mmsolve's cpu and ref, passes its own).
DistOptions parse_options(const Cli& cli, LocalKernel (*kernel)(const std::string& impl,
                                                                bool gpu) = parse_local_kernel);

// Rank 0 prints every rank's LINE to standard error, in rank order (collective).
void print_ranked(const Comm& comm, const std::string& line);

// With -v, rank 0 says how the tool runs: "TOOL: N ranks (transport), T OpenMP threads a rank,
// on the CPU" (GPU ranks: "..., a GPU a rank") and MORE.
void say_ranks(const Comm& comm, const CommonOptions& c, const char* tool,
               const std::string& more = "", const GpuRanks* gpu = nullptr);

// "transport" in the timing record: "mpi", or "none" for one rank without MPI; GPU ranks:
// GpuRanks::transport() ("mpi-cuda-aware", "mpi-host-staged", "nccl").
std::string transport(const Comm& comm, const GpuRanks* gpu = nullptr);

}  // namespace mm::dist
