// Routing entries to their rows' owners, and building the distributed CSR and its halo plan.
#include "dist/dist_csr.hpp"

#include <algorithm>

#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::dist {

std::vector<int> HaloPlan::neighbours() const {
  std::vector<int> n(recv_ranks);
  n.insert(n.end(), send_ranks.begin(), send_ranks.end());
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}

Partition column_partition(const Partition& row_part, std::int64_t rows, std::int64_t cols) {
  return rows == cols ? row_part : uniform_partition(cols, row_part.parts());
}

namespace {

template <class T>
struct Entry {
  std::int64_t row, col;
  T val;
};

}  // namespace

template <class T>
Triplets<T> route_to_owners(const Comm& comm, const Partition& rows, Triplets<T>&& entries) {
  const std::size_t n = entries.size();
  const auto parts = static_cast<std::size_t>(comm.size());
  std::vector<int> dest(n);
  std::vector<std::int64_t> counts(parts, 0);
  for (std::size_t k = 0; k < n; ++k)
    ++counts[static_cast<std::size_t>(dest[k] = rows.owner(entries.row[k]))];
  std::vector<std::int64_t> next(parts, 0);
  for (std::size_t r = 1; r < parts; ++r) next[r] = next[r - 1] + counts[r - 1];
  std::vector<Entry<T>> send(n);
  for (std::size_t k = 0; k < n; ++k)
    send[static_cast<std::size_t>(next[static_cast<std::size_t>(dest[k])]++)] = {
        entries.row[k], entries.col[k], entries.val[k]};
  entries = {};
  dest = {};
  const std::vector<Entry<T>> got = comm.alltoallv(send, counts);
  send = {};
  Triplets<T> out;
  out.row.resize(got.size());
  out.col.resize(got.size());
  out.val.resize(got.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    out.row[k] = got[k].row;
    out.col[k] = got[k].col;
    out.val[k] = got[k].val;
  }
  return out;
}

template <class I, class T>
DistCsr<I, T> build_dist_csr(const Comm& comm, std::int64_t rows, std::int64_t cols,
                             const Partition& row_part, const Partition& col_part,
                             const Triplets<T>& entries) {
  DistCsr<I, T> a;
  a.rows = rows;
  a.cols = cols;
  a.row_part = row_part;
  a.col_part = col_part;
  a.rank = comm.rank();
  const std::int64_t r0 = a.row_begin(), nr = a.local_rows();
  const std::int64_t c0 = a.col_begin(), c1 = c0 + a.local_cols();

  // The halo: every remote column, ascending (hence grouped by owner, owners ascending).
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (entries.row[k] < r0 || entries.row[k] >= r0 + nr)
      throw std::logic_error("build_dist_csr: an entry of another rank's row");
    const std::int64_t c = entries.col[k];
    if (c < c0 || c >= c1) a.halo_cols.push_back(c);
  }
  std::sort(a.halo_cols.begin(), a.halo_cols.end());
  a.halo_cols.erase(std::unique(a.halo_cols.begin(), a.halo_cols.end()), a.halo_cols.end());
  const std::int64_t nh = static_cast<std::int64_t>(a.halo_cols.size());
  if (!index_fits<I>(nr, std::max(c1 - c0, nh), static_cast<std::int64_t>(entries.size())))
    throw InputError("this rank's block is too large for 32-bit indices");

  // The two blocks, through COO (columns sorted in each row, duplicates summed in order).
  Coo<I, T> d, o;
  d.rows = o.rows = nr;
  d.cols = c1 - c0;
  o.cols = nh;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const std::int64_t c = entries.col[k];
    const auto i = static_cast<I>(entries.row[k] - r0);
    if (c >= c0 && c < c1) {
      d.row.push_back(i);
      d.col.push_back(static_cast<I>(c - c0));
      d.val.push_back(entries.val[k]);
    } else {
      const auto h =
          std::lower_bound(a.halo_cols.begin(), a.halo_cols.end(), c) - a.halo_cols.begin();
      o.row.push_back(i);
      o.col.push_back(static_cast<I>(h));
      o.val.push_back(entries.val[k]);
    }
  }
  a.diag = coo_to_csr(d);
  d = {};
  a.offd = coo_to_csr(o);
  o = {};

  // Receive side: the halo's runs of one owner.
  HaloPlan& p = a.plan;
  const auto parts = static_cast<std::size_t>(comm.size());
  std::vector<std::int64_t> want(parts, 0);  // halo entries I need from each rank
  for (std::int64_t h = 0; h < nh; ++h) {
    const int owner = col_part.owner(a.halo_cols[static_cast<std::size_t>(h)]);
    if (p.recv_ranks.empty() || p.recv_ranks.back() != owner) {
      p.recv_ranks.push_back(owner);
      p.recv_offset.push_back(p.recv_offset.back());
    }
    ++p.recv_offset.back();
    ++want[static_cast<std::size_t>(owner)];
  }
  // Send side: each owner learns which of its entries I need (their global columns, in my
  // halo's order, which is the order it will send them in).
  std::vector<std::int64_t> from;
  const std::vector<std::int64_t> asked = comm.alltoallv(a.halo_cols, want, &from);
  std::int64_t k = 0;
  for (std::size_t r = 0; r < parts; ++r) {
    if (from[r] == 0) continue;
    p.send_ranks.push_back(static_cast<int>(r));
    for (std::int64_t j = 0; j < from[r]; ++j, ++k) {
      const std::int64_t c = asked[static_cast<std::size_t>(k)];
      if (c < c0 || c >= c1) throw std::logic_error("halo plan: asked for another rank's entry");
      p.send_idx.push_back(c - c0);
    }
    p.send_offset.push_back(static_cast<std::int64_t>(p.send_idx.size()));
  }
  return a;
}

#define MM_DIST_ROUTE(T) \
  template Triplets<T> route_to_owners<T>(const Comm&, const Partition&, Triplets<T>&&);
MM_FOR_VALUE_TYPES(MM_DIST_ROUTE)
#define MM_DIST_CSR(I, T)                                                              \
  template DistCsr<I, T> build_dist_csr<I, T>(const Comm&, std::int64_t, std::int64_t, \
                                              const Partition&, const Partition&,      \
                                              const Triplets<T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_DIST_CSR)

}  // namespace mm::dist
