// The distributed CSR matrix: each rank's rows split into the diagonal block (the columns of
// its own part of x) and the off-diagonal block (remote columns, numbered by a halo), with the
// communication plan that fills the halo.
#pragma once

#include <cstdint>
#include <vector>

#include "dist/comm.hpp"
#include "dist/partition.hpp"
#include "mm/matrix.hpp"

namespace mm::dist {

// Entries with global indices (a rank's share of a matrix, before or after routing).
template <class T>
struct Triplets {
  std::vector<std::int64_t> row, col;
  std::vector<T> val;
  std::size_t size() const { return val.size(); }
  void push(std::int64_t r, std::int64_t c, const T& v) {
    row.push_back(r);
    col.push_back(c);
    val.push_back(v);
  }
};

// Sends every entry to the rank that owns its row under ROWS. The entries that arrive keep
// the order of (sending rank, then the sender's order): with entries read in file order, the
// file's order, so duplicates are summed as the one-process tool sums them. Collective.
template <class T>
Triplets<T> route_to_owners(const Comm& comm, const Partition& rows, Triplets<T>&& entries);

// Who sends which x entries to whom. RECV: the halo is filled neighbour after neighbour,
// recv_ranks[k] writing halo[recv_offset[k], recv_offset[k+1]). SEND: to send_ranks[k] go
// x_local[send_idx[j]] for j in [send_offset[k], send_offset[k+1]). Neighbours ascend by rank.
struct HaloPlan {
  std::vector<int> recv_ranks;
  std::vector<std::int64_t> recv_offset{0};
  std::vector<int> send_ranks;
  std::vector<std::int64_t> send_offset{0};
  std::vector<std::int64_t> send_idx;  // local indices into this rank's part of x

  std::int64_t halo_size() const { return recv_offset.back(); }
  std::int64_t send_size() const { return send_offset.back(); }
  // Ranks exchanged with either way, ascending.
  std::vector<int> neighbours() const;
};

template <class I, class T>
struct DistCsr {
  std::int64_t rows = 0, cols = 0;  // the whole matrix
  Partition row_part;               // rows (and y) among the ranks
  Partition col_part;               // x among the ranks: row_part when square
  int rank = 0;
  Csr<I, T> diag;  // my rows x my columns (column j: global col_part.begin(rank) + j)
  Csr<I, T> offd;  // my rows x halo (column h: global halo_cols[h])
  std::vector<std::int64_t> halo_cols;  // ascending, so grouped by owner in rank order
  HaloPlan plan;

  std::int64_t row_begin() const { return row_part.begin(rank); }
  std::int64_t local_rows() const { return row_part.count(rank); }
  std::int64_t col_begin() const { return col_part.begin(rank); }
  std::int64_t local_cols() const { return col_part.count(rank); }
  std::int64_t local_nnz() const { return diag.nnz() + offd.nnz(); }
};

// The column partition for a ROWS x COLS matrix whose rows are shared out as ROW_PART: the
// same blocks when square (a rank's diagonal block is then square, as solvers need), else
// uniform blocks of the columns.
Partition column_partition(const Partition& row_part, std::int64_t rows, std::int64_t cols);

// Builds this rank's blocks and the halo plan from ENTRIES, this rank's rows only (global
// indices, as route_to_owners leaves them). Duplicates are summed. Collective (the plan is
// exchanged: alltoall of counts, then alltoallv of the column indices).
template <class I, class T>
DistCsr<I, T> build_dist_csr(const Comm& comm, std::int64_t rows, std::int64_t cols,
                             const Partition& row_part, const Partition& col_part,
                             const Triplets<T>& entries);

}  // namespace mm::dist
