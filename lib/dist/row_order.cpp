// --partition rows|metis: the rows' blocks, and for metis the renumbering METIS's parts give.
#include "dist/row_order.hpp"

#include <iostream>

#include "dist/metis.hpp"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::dist {

template <class T>
RowOrder partition_rows(const Comm& comm, const MtxHeader& h, Triplets<T>& t, PartitionKind kind,
                        const CommonOptions& c, const char* tool) {
  RowOrder o;
  o.kind = kind;
  if (kind == PartitionKind::rows) {
    o.rows = balanced_rows(comm, h.rows, t.row);
    return o;
  }
  // Every rank holds the header: all refuse alike, one message.
  if (h.rows != h.cols)
    throw UsageError(
        "--partition metis needs a square matrix (METIS partitions the graph of "
        "A + A^T), not " +
        std::to_string(h.rows) + " x " + std::to_string(h.cols) + "; use --partition rows");
  if (comm.size() == 1) {
    // One part: nothing to cut, no renumbering (the one-process arithmetic, bit for bit).
    o.rows = uniform_partition(h.rows, 1);
    o.edge_cut = 0;
  } else {
    MetisParts m = metis_parts(comm, h.rows, t.row, t.col);
    o.perm = Renumbering::from_parts(comm, h.rows, m.part);
    m.part = {};
    o.perm->renumber(comm, {&t.row, &t.col});
    o.rows = o.perm->blocks();
    o.edge_cut = m.edge_cut;
    o.edges = m.edges;
    o.metis_seconds = m.seconds;
  }
  if (c.verbose && comm.root()) {
    if (o.renumbered())
      std::cerr << tool << ": --partition metis: " << comm.size()
                << " parts of the graph of A + A^T (" << h.rows << " vertices, " << o.edges
                << " edges) by METIS_PartGraphKway on rank 0: edge cut " << o.edge_cut << ", "
                << o.metis_seconds << " s; the rows below are numbered part by part\n";
    else
      std::cerr << tool << ": --partition metis on one rank: one part, edge cut 0\n";
  }
  return o;
}

void record_order(TimingRecord& rec, const RowOrder& order) {
  rec.extra("partition", to_string(order.kind));
  if (order.kind == PartitionKind::metis) rec.extra("edge_cut", order.edge_cut);
}

#define MM_DIST_ORDER(T)                                                                          \
  template RowOrder partition_rows<T>(const Comm&, const MtxHeader&, Triplets<T>&, PartitionKind, \
                                      const CommonOptions&, const char*);
MM_FOR_VALUE_TYPES(MM_DIST_ORDER)

}  // namespace mm::dist
