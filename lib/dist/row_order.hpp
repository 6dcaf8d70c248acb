// The rows' distribution a --partition picks: row blocks balanced by nonzeros in the file's
// numbering (rows), or METIS's parts renumbered into contiguous blocks (metis). The tools build
// the DistCsr, scatter vectors and write results through it; vector.hpp undoes the renumbering.
#pragma once

#include <cstdint>
#include <optional>

#include "dist/comm.hpp"
#include "dist/dist_csr.hpp"
#include "dist/partition.hpp"
#include "dist/renumber.hpp"
#include "mm/cli.hpp"
#include "mm/mtx.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

struct RowOrder {
  PartitionKind kind = PartitionKind::rows;
  Partition rows;                   // the DistCsr's row blocks (its columns' too when square)
  std::optional<Renumbering> perm;  // metis on 2+ ranks: the working numbering of rows and x
  std::int64_t edge_cut = -1;       // metis: cut edges of the graph of A + A^T
  std::int64_t edges = 0;           // metis: the graph's edges
  double metis_seconds = 0;         // metis: in METIS (rank 0)

  bool renumbered() const { return perm.has_value(); }
  std::int64_t n() const { return rows.n(); }
};

// Partitions the rows of the matrix whose header is H from this rank's entries T (global
// indices, before routing) by KIND. rows: balanced_rows. metis: the matrix must be square
// (UsageError: METIS partitions the graph of A + A^T); the graph is gathered to rank 0 and
// partitioned by METIS (metis_parts), and T's rows and columns are renumbered in place into
// the working numbering, in which each rank's rows are contiguous. With -v rank 0 says so
// (TOOL: ...). Collective.
template <class T>
RowOrder partition_rows(const Comm& comm, const MtxHeader& h, Triplets<T>& t, PartitionKind kind,
                        const CommonOptions& c, const char* tool);

// The timing record's "partition" (rows or metis) and, for metis, "edge_cut".
void record_order(TimingRecord& rec, const RowOrder& order);

}  // namespace mm::dist
