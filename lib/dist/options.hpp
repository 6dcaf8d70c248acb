// What a tool that runs distributed adds to its command line, and the question it asks.
#pragma once

#include <string>

#include "dist/comm.hpp"
#include "dist/dist_spmv.hpp"
#include "dist/partition.hpp"
#include "mm/cli.hpp"

namespace mm::dist {

// --partition rows|metis and --output-per-rank.
void add_options(Cli& cli);

// The one question a tool asks: does it take its distributed path? Yes when it runs as a rank
// of an MPI job (even a job of one), or when --output-per-rank asks for a file a rank.
bool wanted(const Cli& cli);

struct DistOptions {
  PartitionKind partition = PartitionKind::rows;
  bool per_rank = false;
  LocalKernel kernel = LocalKernel::cpu_csr;
};

// The distributed path's options, checked (UsageError; --device cuda: DeviceError until GPU
// ranks are built). KERNEL maps --impl to the ranks' kernel (a tool whose implementations
// have other names, e.g. mmsolve's cpu and ref, passes its own).
DistOptions parse_options(const Cli& cli,
                          LocalKernel (*kernel)(const std::string& impl) = parse_local_kernel);

// Rank 0 prints every rank's LINE to standard error, in rank order (collective).
void print_ranked(const Comm& comm, const std::string& line);

// With -v, rank 0 says how the tool runs: "TOOL: N ranks (transport), T OpenMP threads a rank,
// on the CPU" and MORE.
void say_ranks(const Comm& comm, const CommonOptions& c, const char* tool,
               const std::string& more = "");

// "transport" in the timing record: "mpi", or "none" for one rank without MPI.
std::string transport(const Comm& comm);

}  // namespace mm::dist
