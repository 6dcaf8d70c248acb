// How rows (and x's entries) are shared out among the ranks: contiguous blocks, balanced by
// nonzeros (--partition rows); METIS's parts are renumbered into such blocks (row_order.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dist/comm.hpp"

namespace mm::dist {

enum class PartitionKind { rows, metis };

// "rows" or "metis" (UsageError otherwise, and for metis in a build without METIS).
PartitionKind parse_partition(const std::string& s);
std::string to_string(PartitionKind k);

// Contiguous blocks of [0, n): part r is [start[r], start[r+1]); a part may be empty.
struct Partition {
  std::vector<std::int64_t> start{0, 0};  // parts()+1 boundaries, start.front() == 0

  int parts() const { return static_cast<int>(start.size()) - 1; }
  std::int64_t n() const { return start.back(); }
  std::int64_t begin(int r) const { return start[static_cast<std::size_t>(r)]; }
  std::int64_t end(int r) const { return start[static_cast<std::size_t>(r) + 1]; }
  std::int64_t count(int r) const { return end(r) - begin(r); }
  // The part holding index I (0 <= I < n()).
  int owner(std::int64_t i) const;
  bool operator==(const Partition&) const = default;
};

// [0, n) in PARTS blocks of sizes differing by one at most, the larger first.
Partition uniform_partition(std::int64_t n, int parts);

// Rows [0, ROWS) in comm.size() contiguous blocks balanced by weight, a row weighing its
// entries plus one (so that runs of empty rows are shared out too): block r starts at the
// first row whose preceding weight reaches r/size of the total (as spmv_split splits rows
// among threads). ENTRY_ROWS: the row of each entry this rank holds, any rows, in any order
// (the entries of one row may be spread over several ranks). Collective; the same result on
// every rank; memory O(entries + rows/size) a rank.
Partition balanced_rows(const Comm& comm, std::int64_t rows,
                        const std::vector<std::int64_t>& entry_rows);

// The same from the nonzeros of every row, known on every rank (tests and small inputs).
Partition balanced_rows(const std::vector<std::int64_t>& row_nnz, int parts);

}  // namespace mm::dist
