// A renumbering of rows held across the ranks (--partition metis): the file's row i becomes
// working row new_of(i), so that each rank's rows are contiguous in the working numbering.
// Indices and vectors cross between the two numberings by alltoallv; no rank holds O(n).
#pragma once

#include <cstdint>
#include <vector>

#include "dist/comm.hpp"
#include "dist/partition.hpp"

namespace mm::dist {

class Renumbering {
 public:
  Renumbering() = default;

  // From PART (on rank 0, empty elsewhere: the part 0..size-1 of every one of N rows): the
  // working numbering takes part 0's rows first, then part 1's, ..., each part's rows in the
  // file's order (what locality the file had is kept). Collective.
  static Renumbering from_parts(const Comm& comm, std::int64_t n, const std::vector<int>& part);

  std::int64_t n() const { return blocks_.n(); }
  // Where the rows are in the working numbering: rank r holds [begin(r), end(r)).
  const Partition& blocks() const { return blocks_; }
  // Uniform blocks of the file's numbering: rank r holds new_of(i) for i in its block, and a
  // vector in the file's order is handed over in these blocks (to_new, to_old).
  const Partition& file_blocks() const { return file_blocks_; }
  // The file's index of each of this rank's working rows (blocks()'s part).
  const std::vector<std::int64_t>& old_of_new() const { return old_of_new_; }

  // Replaces every file index in each of LISTS by its working index. Collective.
  void renumber(const Comm& comm, const std::vector<std::vector<std::int64_t>*>& lists) const;

  // Rows of K values each (row-major), this rank's file_blocks() part in the file's order ->
  // this rank's blocks() part in the working order. Collective.
  template <class T>
  std::vector<T> to_new(const Comm& comm, const std::vector<T>& file_rows, std::int64_t k) const;
  // The way back: this rank's working rows -> its file_blocks() part, in the file's order.
  template <class T>
  std::vector<T> to_old(const Comm& comm, const std::vector<T>& rows, std::int64_t k) const;

 private:
  Partition blocks_, file_blocks_;
  std::vector<std::int64_t> new_of_old_;  // my file block's working indices
  std::vector<std::int64_t> old_of_new_;  // my working block's file indices
};

}  // namespace mm::dist
