// The METIS graph partition of a square matrix's rows (--partition metis): the pattern of
// A + A^T gathered to rank 0 and partitioned there (METIS_PartGraphKway; no ParMETIS in Debian).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dist/comm.hpp"

namespace mm::dist {

// Whether this build has METIS (Debian libmetis-dev); without it --partition metis is refused.
bool metis_built();

// The graph METIS partitions, in its own form (compressed adjacency, both directions of every
// edge, no self loops), with a vertex weight a row: its entries + 1, as balanced_rows weighs
// rows (so that runs of empty rows are shared out too). 32-bit, as Debian's METIS (idx_t).
struct Graph {
  std::vector<std::int32_t> xadj{0};  // vertices()+1 offsets into adj
  std::vector<std::int32_t> adj;      // neighbours, ascending in each vertex's list
  std::vector<std::int32_t> weight;   // a vertex's weight

  std::int64_t vertices() const { return static_cast<std::int64_t>(xadj.size()) - 1; }
  std::int64_t edges() const { return static_cast<std::int64_t>(adj.size()) / 2; }
};

// The graph of the N x N pattern given by the entries PAIRS = (i0, j0, i1, j1, ...): i -- j for
// every entry off the diagonal, either way round, once; duplicates count in the weights.
// DeviceError when 32-bit offsets or weights cannot hold it.
Graph symmetric_graph(std::int64_t n, const std::vector<std::int32_t>& pairs);

struct GraphParts {
  std::vector<int> part;      // a vertex's part, 0 .. parts-1
  std::int64_t edge_cut = 0;  // edges whose ends lie in different parts
  double seconds = 0;         // in METIS
};

// METIS_PartGraphKway of G into PARTS parts (fixed seed: the same parts every run), edge cut
// minimised, weights balanced to METIS's default 3%. Without METIS or when 32-bit indices do
// not hold G: DeviceError (exit 4); a failure in METIS likewise.
GraphParts partition_graph(const Graph& g, int parts);

// The rows of the N x N matrix whose entries this rank holds as (ROW[k], COL[k]) (any rows;
// together, every entry) in comm.size() parts: the pattern gathered to rank 0, which builds
// the graph and runs partition_graph. PART is rank 0's (empty elsewhere); the rest is on
// every rank. Collective; failures are agreed.
struct MetisParts {
  std::vector<int> part;
  std::int64_t edge_cut = 0, edges = 0;
  double seconds = 0;
};
MetisParts metis_parts(const Comm& comm, std::int64_t n, const std::vector<std::int64_t>& row,
                       const std::vector<std::int64_t>& col);

}  // namespace mm::dist
