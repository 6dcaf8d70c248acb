// Distributed vectors: a rank holds its block (a Partition's part) as a std::vector. Generated
// slices, vector files read by rank 0 and scattered, and y gathered to rank 0 or written a
// file a rank. The forms taking a RowOrder hold the block in its working numbering when it
// renumbers the rows (--partition metis) and give results back in the file's order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dist/comm.hpp"
#include "dist/partition.hpp"
#include "dist/row_order.hpp"
#include "mm/cli.hpp"
#include "mm/matrix.hpp"
#include "mm/tool_io.hpp"

namespace mm::dist {

// Entries [begin, end) of the vector `mmgen vector --n N --kind KIND --seed SEED` writes
// (ones, random: uniform in [0, 1), range: 1..N), computed here without the rest.
template <class T>
std::vector<T> generated_slice(const std::string& kind, std::uint64_t seed, std::int64_t begin,
                               std::int64_t end);

// A file read whole by rank 0 (load_input: its -v line and warnings); on the other ranks
// only its path, header (without comments) and bytes. Agreed: a missing or malformed file
// fails every rank.
Input load_on_root(const Comm& comm, const std::string& path, const CommonOptions& c,
                   const char* tool);

// IN's values as a vector of length N (InputError naming WHAT otherwise, agreed), this
// rank's block of PART.
template <class T>
std::vector<T> scatter_vector(const Comm& comm, const Input& in, std::int64_t n,
                              const std::string& what, const Partition& part);

// The whole vector on rank 0 (empty elsewhere).
template <class T>
std::vector<T> gather_vector(const Comm& comm, const std::vector<T>& local) {
  return comm.gatherv(local.data(), local.size(), 0);
}

// y gathered to rank 0 and written to -o as the one-process tool writes it (an n x 1 array,
// atomically); nothing under -q. Returns the seconds this rank spent. Agreed.
template <class T>
double write_gathered(const Comm& comm, const std::vector<T>& local, std::int64_t rows,
                      const CommonOptions& c);

// --output-per-rank: rank r writes its block to per_rank_path(-o, r), rank 0 the index
// (index_path(-o)): a small JSON naming each part, its first row (0-based) and its rows. On
// a failure anywhere, every part already written is removed. Returns this rank's seconds.
template <class T>
double write_per_rank(const Comm& comm, const std::vector<T>& local, const Partition& part,
                      const CommonOptions& c);

// write_per_rank for any array of PART.n() rows and COLS columns (an mmjacobi grid): MINE is
// this rank's block of rows, written as it is (its comments kept); the index names COLS.
double write_parts(const Comm& comm, const MtxMatrix& mine, const Partition& part,
                   std::int64_t cols, const CommonOptions& c);
// The same for an n x k array whose rows are shared out (LOCAL: this rank's rows, all k
// columns), e.g. mmsolve's x; COMMENTS (" text", written after '%') head the file (every part).
template <class T>
double write_gathered(const Comm& comm, const Dense<T>& local, std::int64_t rows,
                      const CommonOptions& c, const std::vector<std::string>& comments = {});
template <class T>
double write_per_rank(const Comm& comm, const Dense<T>& local, const Partition& part,
                      const CommonOptions& c, const std::vector<std::string>& comments = {});

// The same in ORDER's working numbering when it renumbers the rows (a renumbered matrix is
// square: PART is then ORDER.rows and the values are those of the file's rows old_of_new()),
// else PART's block as above. RANK: this rank.
template <class T>
std::vector<T> scatter_vector(const Comm& comm, const Input& in, std::int64_t n,
                              const std::string& what, const Partition& part,
                              const RowOrder& order);
template <class T>
std::vector<T> generated_slice(const std::string& kind, std::uint64_t seed, const Partition& part,
                               const RowOrder& order, int rank);
// ALL: rank 0's N x K values (row-major, the file's order; empty elsewhere) -> this rank's
// rows of ORDER (all K columns), in its working order.
template <class T>
std::vector<T> scatter_rows(const Comm& comm, const std::vector<T>& all, std::int64_t k,
                            const RowOrder& order);
// Results of ORDER's rows written in the file's order: gathered, or a file a rank (the parts
// then the file's uniform blocks when renumbered, as the index says).
template <class T>
double write_gathered(const Comm& comm, const std::vector<T>& local, const RowOrder& order,
                      const CommonOptions& c);
template <class T>
double write_per_rank(const Comm& comm, const std::vector<T>& local, const RowOrder& order,
                      const CommonOptions& c);
template <class T>
double write_gathered(const Comm& comm, const Dense<T>& local, const RowOrder& order,
                      const CommonOptions& c, const std::vector<std::string>& comments = {});
template <class T>
double write_per_rank(const Comm& comm, const Dense<T>& local, const RowOrder& order,
                      const CommonOptions& c, const std::vector<std::string>& comments = {});

// "y.mtx" -> "y.rank3.mtx" ("y.mtx.gz" -> "y.rank3.mtx.gz"; another name gains ".rank3.mtx").
std::string per_rank_path(const std::string& output, int rank);
// "y.mtx" -> "y.index.json".
std::string index_path(const std::string& output);

}  // namespace mm::dist
