// Distributed vectors: generated slices, scatter from rank 0, gathered and per-rank output.
#include "dist/vector.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "analysis/generate_detail.hpp"
#include "dist/agree.hpp"
#include "dist/read.hpp"
#include "instantiate.hpp"
#include "mm/io.hpp"
#include "mm/matrix.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

namespace {

// Entry I of mmgen's vector KIND (generate_structured.cpp): real field, uniform values in
// [lo, hi) = [0, 1) drawn from the row's own counter-based stream (KEY), so any entry alone
// is the same number.
double generated_value(const std::string& kind, std::uint64_t key, std::int64_t i) {
  const double lo = 0.0, hi = 1.0;
  if (kind == "range") return static_cast<double>(i + 1);
  if (kind == "random") {
    gen::Rng r(key, static_cast<std::uint64_t>(i));
    return lo + (hi - lo) * r.uniform();
  }
  return 1.0;
}

std::uint64_t vector_key(std::uint64_t seed) {
  return gen::stream_key(seed, "vector", gen::Stream::vector);
}

}  // namespace

template <class T>
std::vector<T> generated_slice(const std::string& kind, std::uint64_t seed, std::int64_t begin,
                               std::int64_t end) {
  std::vector<T> v(static_cast<std::size_t>(end - begin));
  const std::uint64_t key = vector_key(seed);
  for (std::int64_t i = begin; i < end; ++i)
    v[static_cast<std::size_t>(i - begin)] = static_cast<T>(generated_value(kind, key, i));
  return v;
}

template <class T>
std::vector<T> generated_slice(const std::string& kind, std::uint64_t seed, const Partition& part,
                               const RowOrder& order, int rank) {
  if (!order.renumbered()) return generated_slice<T>(kind, seed, part.begin(rank), part.end(rank));
  const std::vector<std::int64_t>& old = order.perm->old_of_new();
  std::vector<T> v(old.size());
  const std::uint64_t key = vector_key(seed);
  for (std::size_t j = 0; j < old.size(); ++j)
    v[j] = static_cast<T>(generated_value(kind, key, old[j]));
  return v;
}

Input load_on_root(const Comm& comm, const std::string& path, const CommonOptions& c,
                   const char* tool) {
  Input in;
  agree(comm, [&] {
    if (comm.root()) in = load_input(path, c, tool);
  });
  in.path = path;
  bcast_header(comm, in.m.header, 0);
  in.bytes = comm.bcast(in.bytes, 0);
  return in;
}

template <class T>
std::vector<T> scatter_vector(const Comm& comm, const Input& in, std::int64_t n,
                              const std::string& what, const Partition& part) {
  std::vector<T> all;
  agree(comm, [&] {
    if (comm.root()) all = vector_values<T>(in, n, what);
  });
  std::vector<std::int64_t> counts(static_cast<std::size_t>(part.parts()));
  for (int r = 0; r < part.parts(); ++r) counts[static_cast<std::size_t>(r)] = part.count(r);
  return comm.scatterv(all.data(), counts, 0);
}

template <class T>
std::vector<T> scatter_rows(const Comm& comm, const std::vector<T>& all, std::int64_t k,
                            const RowOrder& order) {
  const Partition& p = order.renumbered() ? order.perm->file_blocks() : order.rows;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p.parts()));
  for (int r = 0; r < p.parts(); ++r) counts[static_cast<std::size_t>(r)] = p.count(r) * k;
  std::vector<T> mine = comm.scatterv(all.data(), counts, 0);
  return order.renumbered() ? order.perm->to_new(comm, mine, k) : mine;
}

template <class T>
std::vector<T> scatter_vector(const Comm& comm, const Input& in, std::int64_t n,
                              const std::string& what, const Partition& part,
                              const RowOrder& order) {
  if (!order.renumbered()) return scatter_vector<T>(comm, in, n, what, part);
  std::vector<T> all;
  agree(comm, [&] {
    if (comm.root()) all = vector_values<T>(in, n, what);
  });
  return scatter_rows(comm, all, 1, order);
}

namespace {

// ROWS x COLS values, row-major, rank after rank: LOCAL's N values here.
template <class T>
double gathered(const Comm& comm, const T* local, std::size_t n, std::int64_t rows,
                std::int64_t cols, const CommonOptions& c,
                const std::vector<std::string>& comments) {
  Stopwatch w;
  if (c.quiet) return 0;
  std::vector<T> all = comm.gatherv(local, n, 0);
  agree(comm, [&] {
    if (!comm.root()) return;
    Dense<T> y;
    y.rows = rows;
    y.cols = cols;
    y.data = std::move(all);
    MtxMatrix m = to_mtx(y);
    for (const auto& line : comments) m.header.comments.push_back(line);
    save_output(m, c);
  });
  return w.seconds();
}

}  // namespace

template <class T>
double write_gathered(const Comm& comm, const std::vector<T>& local, std::int64_t rows,
                      const CommonOptions& c) {
  return gathered(comm, local.data(), local.size(), rows, 1, c, {});
}

template <class T>
double write_gathered(const Comm& comm, const Dense<T>& local, std::int64_t rows,
                      const CommonOptions& c, const std::vector<std::string>& comments) {
  return gathered(comm, local.data.data(), local.data.size(), rows, local.cols, c, comments);
}

std::string per_rank_path(const std::string& output, int rank) {
  const std::string tag = ".rank" + std::to_string(rank);
  for (const std::string ext : {".mtx.gz", ".mtx"}) {
    if (output.size() > ext.size() &&
        output.compare(output.size() - ext.size(), ext.size(), ext) == 0)
      return output.substr(0, output.size() - ext.size()) + tag + ext;
  }
  return output + tag + ".mtx";
}

std::string index_path(const std::string& output) {
  const std::string p = per_rank_path(output, 0);
  return p.substr(0, p.rfind(".rank0")) + ".index.json";
}

namespace {

std::string base_name(const std::string& p) {
  const auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

}  // namespace

double write_parts(const Comm& comm, const MtxMatrix& m, const Partition& part, std::int64_t cols,
                   const CommonOptions& c) {
  Stopwatch w;
  if (c.quiet) return 0;
  const std::string mine = per_rank_path(c.output, comm.rank());
  bool written = false;
  try {
    agree(comm, [&] {
      write_mtx(mine, m, WriteOptions{c.threads});
      written = true;
    });
    agree(comm, [&] {
      if (!comm.root()) return;
      nlohmann::json parts = nlohmann::json::array();
      for (int r = 0; r < part.parts(); ++r)
        parts.push_back({{"rank", r},
                         {"path", base_name(per_rank_path(c.output, r))},
                         {"row_begin", part.begin(r)},
                         {"rows", part.count(r)}});
      const nlohmann::json index = {
          {"rows", part.n()}, {"cols", cols}, {"ranks", part.parts()}, {"parts", parts}};
      OutputStream out(index_path(c.output));
      out.write(index.dump(2) + "\n");
      out.commit();
    });
  } catch (const Failure&) {
    if (written) unlink(mine.c_str());  // no part left of an output that failed
    throw;
  }
  return w.seconds();
}

template <class T>
double write_per_rank(const Comm& comm, const std::vector<T>& local, const Partition& part,
                      const CommonOptions& c) {
  if (c.quiet) return 0;
  Dense<T> y(static_cast<std::int64_t>(local.size()), 1);
  y.data = local;
  return write_parts(comm, to_mtx(y), part, 1, c);
}

template <class T>
double write_per_rank(const Comm& comm, const Dense<T>& local, const Partition& part,
                      const CommonOptions& c, const std::vector<std::string>& comments) {
  if (c.quiet) return 0;
  MtxMatrix m = to_mtx(local);
  for (const auto& line : comments) m.header.comments.push_back(line);
  return write_parts(comm, m, part, local.cols, c);
}

template <class T>
double write_gathered(const Comm& comm, const std::vector<T>& local, const RowOrder& order,
                      const CommonOptions& c) {
  if (!order.renumbered()) return write_gathered(comm, local, order.n(), c);
  if (c.quiet) return 0;
  Stopwatch w;  // the way back to the file's order is part of writing
  const std::vector<T> mine = order.perm->to_old(comm, local, 1);
  const double back = w.seconds();  // then the writer times itself
  return back + gathered(comm, mine.data(), mine.size(), order.n(), 1, c, {});
}

template <class T>
double write_gathered(const Comm& comm, const Dense<T>& local, const RowOrder& order,
                      const CommonOptions& c, const std::vector<std::string>& comments) {
  if (!order.renumbered()) return write_gathered(comm, local, order.n(), c, comments);
  if (c.quiet) return 0;
  Stopwatch w;
  const std::vector<T> mine = order.perm->to_old(comm, local.data, local.cols);
  const double back = w.seconds();  // then the writer times itself
  return back + gathered(comm, mine.data(), mine.size(), order.n(), local.cols, c, comments);
}

template <class T>
double write_per_rank(const Comm& comm, const std::vector<T>& local, const RowOrder& order,
                      const CommonOptions& c) {
  if (!order.renumbered()) return write_per_rank(comm, local, order.rows, c);
  if (c.quiet) return 0;
  Stopwatch w;
  const std::vector<T> mine = order.perm->to_old(comm, local, 1);
  const double back = w.seconds();  // then the writer times itself
  return back + write_per_rank(comm, mine, order.perm->file_blocks(), c);
}

template <class T>
double write_per_rank(const Comm& comm, const Dense<T>& local, const RowOrder& order,
                      const CommonOptions& c, const std::vector<std::string>& comments) {
  if (!order.renumbered()) return write_per_rank(comm, local, order.rows, c, comments);
  if (c.quiet) return 0;
  Stopwatch w;
  const Partition& p = order.perm->file_blocks();
  Dense<T> mine;
  mine.rows = p.count(comm.rank());
  mine.cols = local.cols;
  mine.data = order.perm->to_old(comm, local.data, local.cols);
  const double back = w.seconds();  // then the writer times itself
  return back + write_per_rank(comm, mine, p, c, comments);
}

#define MM_DIST_VECTOR(T)                                                                         \
  template std::vector<T> generated_slice<T>(const std::string&, std::uint64_t, std::int64_t,     \
                                             std::int64_t);                                       \
  template std::vector<T> scatter_vector<T>(const Comm&, const Input&, std::int64_t,              \
                                            const std::string&, const Partition&);                \
  template double write_gathered<T>(const Comm&, const std::vector<T>&, std::int64_t,             \
                                    const CommonOptions&);                                        \
  template double write_per_rank<T>(const Comm&, const std::vector<T>&, const Partition&,         \
                                    const CommonOptions&);                                        \
  template double write_gathered<T>(const Comm&, const Dense<T>&, std::int64_t,                   \
                                    const CommonOptions&, const std::vector<std::string>&);       \
  template double write_per_rank<T>(const Comm&, const Dense<T>&, const Partition&,               \
                                    const CommonOptions&, const std::vector<std::string>&);       \
  template std::vector<T> scatter_vector<T>(const Comm&, const Input&, std::int64_t,              \
                                            const std::string&, const Partition&,                 \
                                            const RowOrder&);                                     \
  template std::vector<T> generated_slice<T>(const std::string&, std::uint64_t, const Partition&, \
                                             const RowOrder&, int);                               \
  template std::vector<T> scatter_rows<T>(const Comm&, const std::vector<T>&, std::int64_t,       \
                                          const RowOrder&);                                       \
  template double write_gathered<T>(const Comm&, const std::vector<T>&, const RowOrder&,          \
                                    const CommonOptions&);                                        \
  template double write_per_rank<T>(const Comm&, const std::vector<T>&, const RowOrder&,          \
                                    const CommonOptions&);                                        \
  template double write_gathered<T>(const Comm&, const Dense<T>&, const RowOrder&,                \
                                    const CommonOptions&, const std::vector<std::string>&);       \
  template double write_per_rank<T>(const Comm&, const Dense<T>&, const RowOrder&,                \
                                    const CommonOptions&, const std::vector<std::string>&);
MM_FOR_VALUE_TYPES(MM_DIST_VECTOR)

}  // namespace mm::dist
