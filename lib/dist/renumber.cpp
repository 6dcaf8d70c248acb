// The renumbering of rows across the ranks: built from a partition on rank 0, applied to
// indices by lookups at the owners, to vectors by moving rows.
#include "dist/renumber.hpp"

#include <algorithm>
#include <complex>

#include "instantiate.hpp"

namespace mm::dist {

namespace {

std::vector<std::int64_t> counts_of(const Partition& p, std::int64_t k = 1) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(p.parts()));
  for (int r = 0; r < p.parts(); ++r) c[static_cast<std::size_t>(r)] = p.count(r) * k;
  return c;
}

// Row j of ROWS (K values) goes to working or file index DEST[j], owned under TARGET; returns
// this rank's part of TARGET, rows in index order.
template <class T>
std::vector<T> move_rows(const Comm& comm, const std::vector<std::int64_t>& dest,
                         const Partition& target, const std::vector<T>& rows, std::int64_t k) {
  const auto parts = static_cast<std::size_t>(comm.size());
  const std::size_t n = dest.size(), kk = static_cast<std::size_t>(k);
  std::vector<int> owner(n);
  std::vector<std::int64_t> counts(parts, 0);
  for (std::size_t j = 0; j < n; ++j)
    ++counts[static_cast<std::size_t>(owner[j] = target.owner(dest[j]))];
  std::vector<std::int64_t> next(parts, 0);
  for (std::size_t r = 1; r < parts; ++r) next[r] = next[r - 1] + counts[r - 1];
  std::vector<std::int64_t> idx(n);
  std::vector<T> val(n * kk);
  for (std::size_t j = 0; j < n; ++j) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(owner[j])]++);
    idx[at] = dest[j];
    std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(j * kk), kk,
                val.begin() + static_cast<std::ptrdiff_t>(at * kk));
  }
  const std::vector<std::int64_t> got_idx = comm.alltoallv(idx, counts);
  for (auto& c : counts) c *= k;
  const std::vector<T> got = comm.alltoallv(val, counts);
  const std::int64_t begin = target.begin(comm.rank());
  std::vector<T> out(static_cast<std::size_t>(target.count(comm.rank())) * kk);
  for (std::size_t q = 0; q < got_idx.size(); ++q)
    std::copy_n(got.begin() + static_cast<std::ptrdiff_t>(q * kk), kk,
                out.begin() +
                    static_cast<std::ptrdiff_t>(static_cast<std::size_t>(got_idx[q] - begin) * kk));
  return out;
}

}  // namespace

Renumbering Renumbering::from_parts(const Comm& comm, std::int64_t n,
                                    const std::vector<int>& part) {
  const int parts = comm.size();
  Renumbering p;
  p.file_blocks_ = uniform_partition(n, parts);
  p.blocks_.start.assign(static_cast<std::size_t>(parts) + 1, 0);
  std::vector<std::int64_t> new_of_old, old_of_new;
  if (comm.root()) {
    std::vector<std::int64_t>& s = p.blocks_.start;
    for (int q : part) ++s[static_cast<std::size_t>(q) + 1];
    for (std::size_t r = 1; r < s.size(); ++r) s[r] += s[r - 1];
    std::vector<std::int64_t> next(s.begin(), s.end() - 1);
    new_of_old.resize(static_cast<std::size_t>(n));
    old_of_new.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t j = next[static_cast<std::size_t>(part[static_cast<std::size_t>(i)])]++;
      new_of_old[static_cast<std::size_t>(i)] = j;
      old_of_new[static_cast<std::size_t>(j)] = i;
    }
  }
  comm.bcast(p.blocks_.start.data(), p.blocks_.start.size(), 0);
  p.new_of_old_ = comm.scatterv(new_of_old.data(), counts_of(p.file_blocks_), 0);
  p.old_of_new_ = comm.scatterv(old_of_new.data(), counts_of(p.blocks_), 0);
  return p;
}

void Renumbering::renumber(const Comm& comm,
                           const std::vector<std::vector<std::int64_t>*>& lists) const {
  // Each distinct index asked once of its file block's owner; the answers come back in the
  // order asked (alltoallv keeps it both ways).
  std::vector<std::int64_t> u;
  for (const auto* l : lists) u.insert(u.end(), l->begin(), l->end());
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  std::vector<std::int64_t> counts(static_cast<std::size_t>(comm.size()), 0), from;
  for (std::int64_t i : u) ++counts[static_cast<std::size_t>(file_blocks_.owner(i))];
  std::vector<std::int64_t> asked = comm.alltoallv(u, counts, &from);
  const std::int64_t b = file_blocks_.begin(comm.rank());
  for (auto& i : asked) i = new_of_old_[static_cast<std::size_t>(i - b)];
  const std::vector<std::int64_t> answer = comm.alltoallv(asked, from);
  for (auto* l : lists)
    for (auto& i : *l)
      i = answer[static_cast<std::size_t>(std::lower_bound(u.begin(), u.end(), i) - u.begin())];
}

template <class T>
std::vector<T> Renumbering::to_new(const Comm& comm, const std::vector<T>& file_rows,
                                   std::int64_t k) const {
  return move_rows(comm, new_of_old_, blocks_, file_rows, k);
}

template <class T>
std::vector<T> Renumbering::to_old(const Comm& comm, const std::vector<T>& rows,
                                   std::int64_t k) const {
  return move_rows(comm, old_of_new_, file_blocks_, rows, k);
}

#define MM_DIST_RENUMBER(T)                                                                        \
  template std::vector<T> Renumbering::to_new<T>(const Comm&, const std::vector<T>&, std::int64_t) \
      const;                                                                                       \
  template std::vector<T> Renumbering::to_old<T>(const Comm&, const std::vector<T>&, std::int64_t) \
      const;
MM_FOR_VALUE_TYPES(MM_DIST_RENUMBER)

}  // namespace mm::dist
