// Reading a matrix across the ranks: each rank parses its byte range of a plain file with the
// existing chunked parser (parallel read), or rank 0 reads (standard input, gzip, array files)
// and the routing step scatters the rows. Errors name FILE:LINE as the one-process reader's
// do, and every rank agrees on them (one message, exit 3 everywhere).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "mm/cli.hpp"
#include "mm/memory.hpp"
#include "mm/mtx.hpp"

namespace mm::dist {

struct DistRead {
  MtxHeader header;  // the whole file's, on every rank (comments on rank 0 only)
  MtxMatrix part;    // this rank's share of the stored entries (part.header.nnz: how many)
  bool parallel = false;
  std::string how;  // for -v: "parallel read of bytes A..B (lines L..M)" or "read by rank 0"
  std::int64_t bytes = -1;            // the file's size; -1 for standard input or gzip
  std::vector<ReadWarning> warnings;  // of the whole file, lines as in the file
  double seconds = 0;                 // this rank's reading time
};

// Reads PATH across COMM's ranks (collective). OPT as for read_mtx (threads: each rank's
// own). Throws Failure (every rank, agreed) on a missing or malformed file.
// ON_HEADER (when given) runs on every rank once the header is known to all of them and before
// any rank parses its part of the body (rank 0 has read the whole of a file it reads alone):
// what it throws is agreed on every rank.
DistRead read_distributed(const Comm& comm, const std::string& path, const ReadOptions& opt = {},
                          const std::function<void(const MtxHeader&)>& on_header = {});

// A tool's matrix: read_distributed with --threads (each rank's; default its OpenMP threads),
// the reader's warnings printed by rank 0 as the one-process tool prints them.
// PLAN_FN (when given) adds what this rank will hold besides its share of A (its vectors; rank
// 0 the gathered result) from the header; with the share of A as read, routed and stored as
// CSR blocks, that plan is checked against the rank's budget before the body is parsed: exit 4
// on every rank, one message naming the rank, when over. The budget is --max-memory (each
// rank's), else what the node has available shared by the node's ranks.
using RankPlanFn = std::function<void(const MtxHeader&, MemoryPlan&)>;
DistRead read_tool_matrix(const Comm& comm, const std::string& path, const CommonOptions& c,
                          const char* tool, const RankPlanFn& plan_fn = {});
// This rank's budget for its plan: --max-memory when given, else the available memory shared
// by the ranks of its node (NODE_RANKS: Comm::node_rank().size, collective to learn).
std::int64_t rank_budget(const CommonOptions& c, int node_ranks);
// check_memory of this rank's PLAN against BUDGET, its DeviceError naming the rank ("rank 2 of
// 4: needs ..."). Not collective: call it under agree().
void check_rank_plan(const Comm& comm, const MemoryPlan& plan, std::int64_t budget, bool verbose);

// ROOT's header (without its comments) to every rank.
void bcast_header(const Comm& comm, MtxHeader& h, int root);

// This rank's stored entries as values of T with global indices, the symmetric kinds
// expanded (both triangles: the mirror of each stored entry sits with its row's owner after
// routing). Array files give every stored value, zeros included, as the one-process tools do.
template <class T>
Triplets<T> to_triplets(const MtxMatrix& part);

// For tests: the byte range [begin, end) of a body of SIZE bytes that rank R of P starts
// with (the lines whose first byte lies in it are R's).
std::pair<std::int64_t, std::int64_t> byte_range(std::int64_t body_begin, std::int64_t size, int r,
                                                 int p);

}  // namespace mm::dist
