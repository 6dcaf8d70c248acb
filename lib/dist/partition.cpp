// Row partitions: uniform blocks, and blocks balanced by nonzeros computed across the ranks.
#include "dist/partition.hpp"

#include <algorithm>
#include <limits>

#include "dist/metis.hpp"
#include "mm/error.hpp"

namespace mm::dist {

PartitionKind parse_partition(const std::string& s) {
  if (s == "rows") return PartitionKind::rows;
  if (s == "metis") {
    if (!metis_built())
      throw UsageError(
          "--partition metis: built without METIS (Debian: libmetis-dev); use --partition rows");
    return PartitionKind::metis;
  }
  throw UsageError("--partition must be rows or metis, not '" + s + "'");
}

std::string to_string(PartitionKind k) {
  return k == PartitionKind::metis ? "metis" : "rows";
}

int Partition::owner(std::int64_t i) const {
  // The last part starting at or before I: empty parts before it start there too.
  const auto it = std::upper_bound(start.begin(), start.end() - 1, i);
  return static_cast<int>(it - start.begin()) - 1;
}

Partition uniform_partition(std::int64_t n, int parts) {
  Partition p;
  p.start.assign(static_cast<std::size_t>(parts) + 1, 0);
  const std::int64_t q = n / parts, extra = n % parts;
  for (int r = 0; r < parts; ++r) p.start[r + 1] = p.start[r] + q + (r < extra ? 1 : 0);
  return p;
}

namespace {

// Boundary k of PARTS: the first row i whose preceding weight cum(i) reaches k/PARTS of TOTAL,
// looked for in rows [lo, hi] where CUM(i) (i in [lo, hi]) is known; NONE when cum(hi) falls
// short. Exact in integers: cum * parts >= total * k.
template <class Cum>
std::int64_t first_reaching(std::int64_t lo, std::int64_t hi, const Cum& cum, std::int64_t total,
                            int k, int parts, std::int64_t none) {
  using W = __int128;
  const W target = static_cast<W>(total) * k;
  if (static_cast<W>(cum(hi)) * parts < target) return none;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<W>(cum(mid)) * parts < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace

Partition balanced_rows(const std::vector<std::int64_t>& row_nnz, int parts) {
  const auto rows = static_cast<std::int64_t>(row_nnz.size());
  std::vector<std::int64_t> cum(row_nnz.size() + 1, 0);
  for (std::size_t i = 0; i < row_nnz.size(); ++i) cum[i + 1] = cum[i] + row_nnz[i] + 1;
  Partition p;
  p.start.assign(static_cast<std::size_t>(parts) + 1, rows);
  p.start[0] = 0;
  auto c = [&](std::int64_t i) { return cum[static_cast<std::size_t>(i)]; };
  for (int k = 1; k < parts; ++k)
    p.start[k] = first_reaching(p.start[k - 1], rows, c, cum.back(), k, parts, rows);
  return p;
}

Partition balanced_rows(const Comm& comm, std::int64_t rows,
                        const std::vector<std::int64_t>& entry_rows) {
  const int parts = comm.size();
  if (parts == 1) return uniform_partition(rows, 1);
  // 1. Every entry's row to the rank of its uniform block, which counts its rows' entries.
  //    Rows are sent as offsets into that block (int64: a block may pass 2^32 rows).
  const Partition u = uniform_partition(rows, parts);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(parts), 0);
  for (std::int64_t r : entry_rows) ++counts[static_cast<std::size_t>(u.owner(r))];
  std::vector<std::int64_t> offset(static_cast<std::size_t>(parts), 0);
  for (int r = 1; r < parts; ++r) offset[r] = offset[r - 1] + counts[r - 1];
  std::vector<std::int64_t> send(entry_rows.size());
  for (std::int64_t r : entry_rows) {
    const int o = u.owner(r);
    send[static_cast<std::size_t>(offset[o]++)] = r - u.begin(o);
  }
  const std::vector<std::int64_t> got = comm.alltoallv(send, counts);
  send = {};

  // 2. The weight before each row of my block (cum[0] = all blocks before mine).
  const int me = comm.rank();
  const std::int64_t mine = u.count(me);
  std::vector<std::int64_t> cum(static_cast<std::size_t>(mine) + 1, 0);
  for (std::int64_t i : got) ++cum[static_cast<std::size_t>(i) + 1];
  for (std::int64_t i = 0; i < mine; ++i) cum[i + 1] += cum[i] + 1;  // + 1: the row itself
  const std::int64_t before = comm.exscan_sum(cum.back());
  const std::int64_t total = comm.allreduce(cum.back(), Op::sum);

  // 3. Each boundary is found in the block where the weight reaches it; the others offer
  //    "none" (past the last row), so the minimum over the ranks is the boundary.
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> b(static_cast<std::size_t>(parts) - 1, none);
  auto c = [&](std::int64_t i) { return before + cum[static_cast<std::size_t>(i - u.begin(me))]; };
  for (int k = 1; k < parts; ++k)
    b[k - 1] = first_reaching(u.begin(me), u.end(me), c, total, k, parts, none);
  comm.allreduce(b.data(), b.size(), Op::min);
  Partition p;
  p.start.assign(static_cast<std::size_t>(parts) + 1, rows);
  p.start[0] = 0;
  for (int k = 1; k < parts; ++k) p.start[k] = std::min(b[k - 1], rows);
  return p;
}

}  // namespace mm::dist
