// Distributed reading. The parallel read is an adapter over the existing reader: rank 0 reads
// the header, each rank reads its byte range of the body (whole lines), puts a header of its
// own in front (the file's banner and a size line counting its entries) and hands that text
// to parse_mtx; line numbers in errors and warnings are moved back to the file's own.
#include "dist/read.hpp"

#include <algorithm>

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>

#include "dist/agree.hpp"
#include "dist/read_detail.hpp"
#include "instantiate.hpp"
#include "mm/error.hpp"
#include "mm/matrix.hpp"
#include "mm/timing.hpp"
#include "mm/tool_io.hpp"

namespace mm::dist {

std::pair<std::int64_t, std::int64_t> byte_range(std::int64_t body_begin, std::int64_t size, int r,
                                                 int p) {
  const std::int64_t len = size - body_begin;
  auto at = [&](int k) {
    return body_begin + static_cast<std::int64_t>(static_cast<__int128>(len) * k / p);
  };
  return {at(r), at(r + 1)};
}

namespace {

using detail::File;

// What rank 0 found out and every rank needs: the header, and where the body lies.
enum Why : std::int32_t { kParallel, kStdin, kNotRegular, kGzip, kArray };
const char* const kWhy[] = {"", "standard input", "not a regular file", "gzip", "an array file"};

struct Plan {
  std::int32_t parallel = 0, why = kParallel;
  std::int64_t body_begin = 0, size = -1, first_line = 0;
};

// Rank 0: the header (read_mtx_header's checks), and, for a plain coordinate file, where its
// body starts; anything else is read whole here (RANK0_READ).
Plan probe(const std::string& path, const ReadOptions& opt, MtxHeader& header, MtxMatrix& whole) {
  Plan p;
  p.why = kStdin;
  if (path != "-") {
    File f(path);
    p.why = !f.regular() ? kNotRegular : f.gzip() ? kGzip : kParallel;
    p.size = f.regular() ? f.size() : -1;
  }
  if (p.why == kParallel) {
    header = read_mtx_header(path);
    if (header.format == Format::coordinate) {
      File f(path);
      const auto [begin, line] = detail::find_body(f);
      p.parallel = 1;
      p.body_begin = begin;
      p.first_line = line;
    } else {
      p.why = kArray;
    }
  }
  if (!p.parallel) {
    whole = read_mtx(path, opt);
    header = whole.header;
  }
  return p;
}

// One warning of the whole file from the ranks' own (pattern entry lines with a value).
std::vector<ReadWarning> merge_warnings(const Comm& comm, const std::vector<ReadWarning>& mine) {
  std::int64_t v[3] = {0, std::numeric_limits<std::int64_t>::max(),
                       std::numeric_limits<std::int64_t>::max()};
  for (const ReadWarning& w : mine) {
    if (w.kind != "pattern_values") continue;
    v[0] = w.count;
    v[1] = w.first_line;
    v[2] = w.first_entry;
  }
  comm.allreduce(&v[0], 1, Op::sum);
  comm.allreduce(&v[1], 2, Op::min);
  if (v[0] == 0) return {};
  ReadWarning w;
  w.kind = "pattern_values";
  w.count = v[0];
  w.first_line = v[1];
  w.first_entry = v[2];
  // The reader's own wording (mtx_read.cpp), for the whole file's count.
  w.message = std::to_string(w.count) +
              (w.count == 1 ? " entry line of a pattern file carries a value"
                            : " entry lines of a pattern file carry a value") +
              " after the indices, ignored";
  return {w};
}

}  // namespace

void bcast_header(const Comm& comm, MtxHeader& h, int root) {
  std::int64_t v[6] = {static_cast<std::int64_t>(h.format),
                       static_cast<std::int64_t>(h.field),
                       static_cast<std::int64_t>(h.symmetry),
                       h.rows,
                       h.cols,
                       h.nnz};
  comm.bcast(v, 6, root);
  if (comm.rank() == root) return;
  h = MtxHeader{};
  h.format = static_cast<Format>(v[0]);
  h.field = static_cast<Field>(v[1]);
  h.symmetry = static_cast<Symmetry>(v[2]);
  h.rows = v[3];
  h.cols = v[4];
  h.nnz = v[5];
}

DistRead read_distributed(const Comm& comm, const std::string& path, const ReadOptions& opt,
                          const std::function<void(const MtxHeader&)>& on_header) {
  Stopwatch w;
  DistRead d;
  Plan plan;
  agree(comm, [&] {
    if (comm.root()) plan = probe(path, opt, d.header, d.part);
  });
  comm.bcast(&plan, 1, 0);
  bcast_header(comm, d.header, 0);
  if (on_header) agree(comm, [&] { on_header(d.header); });
  d.bytes = plan.size;
  d.parallel = plan.parallel != 0;
  if (!d.parallel) {
    // Rank 0 holds every entry; routing them to their rows' owners is the scatter.
    if (!comm.root()) {
      d.part.header = d.header;
      d.part.header.nnz = 0;
    }
    d.warnings = comm.root() ? d.part.read_warnings : std::vector<ReadWarning>{};
    d.how = std::string("read by rank 0 (") + kWhy[plan.why] + "), rows scattered";
    d.seconds = w.seconds();
    return d;
  }

  // 1. My byte range, as whole lines, and what it holds.
  detail::Range range;
  const std::string head = detail::part_header(d.header);
  const auto [b, e] = byte_range(plan.body_begin, plan.size, comm.rank(), comm.size());
  agree(comm,
        [&] { range = detail::read_lines(path, b, e, plan.body_begin, plan.size, head.size()); });
  const std::int64_t first_line = plan.first_line + comm.exscan_sum(range.lines);
  const std::int64_t first_entry = comm.exscan_sum(range.entries);
  const std::int64_t total_entries = comm.allreduce(range.entries, Op::sum);
  const std::int64_t total_lines = comm.allreduce(range.lines, Op::sum);

  // 2. Parsed by the reader, errors at the file's own lines; then the counts against the
  //    size line, as the one-process reader checks them (the first problem in the file wins:
  //    the lowest failing rank reports).
  agree(comm, [&] {
    d.part = detail::parse_range(range, head, d.header, path, opt, first_line, first_entry);
    if (comm.rank() == comm.size() - 1 && total_entries < d.header.nnz)
      throw InputError(path, plan.first_line + total_lines,
                       "unexpected end of file: the size line declares " +
                           std::to_string(d.header.nnz) + " entries, found " +
                           std::to_string(total_entries));
  });
  d.warnings = merge_warnings(comm, d.part.read_warnings);
  d.how = "parallel read of bytes " + std::to_string(range.begin) + ".." +
          std::to_string(range.end) + " (lines " + std::to_string(first_line) + ".." +
          std::to_string(first_line + range.lines - 1) + ", " + std::to_string(range.entries) +
          " entries)";
  d.seconds = w.seconds();
  return d;
}

template <class T>
Triplets<T> to_triplets(const MtxMatrix& part) {
  Triplets<T> t;
  if (part.header.nnz == 0) return t;
  Coo<std::int64_t, T> c = to_coo<std::int64_t, T>(part, /*expand=*/true);
  t.row = std::move(c.row);
  t.col = std::move(c.col);
  t.val = std::move(c.val);
  return t;
}

#define MM_DIST_TRIPLETS(T) template Triplets<T> to_triplets<T>(const MtxMatrix&);
MM_FOR_VALUE_TYPES(MM_DIST_TRIPLETS)

std::int64_t rank_budget(const CommonOptions& c, int node_ranks) {
  return c.max_memory_given ? c.max_memory : c.max_memory / std::max(1, node_ranks);
}

void check_rank_plan(const Comm& comm, const MemoryPlan& plan, std::int64_t budget, bool verbose) {
  try {
    check_memory(plan, budget, verbose);
  } catch (const DeviceError& e) {
    throw DeviceError("rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) +
                      ": " + e.what());
  }
}

DistRead read_tool_matrix(const Comm& comm, const std::string& path, const CommonOptions& c,
                          const char* tool, const RankPlanFn& plan_fn) {
  const ReadOptions opt{c.threads > 0 ? c.threads : omp_get_max_threads(),
                        ReadOptions{}.chunk_bytes};
  const std::int64_t budget = rank_budget(c, comm.node_rank().size);  // collective
  const auto check = [&](const MtxHeader& h) {
    // This rank's share of the entries (rows are balanced by nonzeros), symmetric kinds
    // expanded: parsed (int64 indices, values as read), as triplets routed (sent and received
    // in flight at once), then as its CSR blocks. Values at the widest the tool may use.
    const double p = comm.size(), value = h.field == Field::complex ? 16 : 8;
    const double stored = static_cast<double>(h.nnz) / p;
    const double expanded = stored * (h.symmetry == Symmetry::general ? 1 : 2);
    MemoryPlan plan;
    plan.add(path + " (this rank's part as read)", coo_bytes(stored, 8, value));
    plan.add("its entries routed to their rows' ranks", 2 * coo_bytes(expanded, 8, value));
    plan.add("its blocks as CSR",
             csr_bytes(static_cast<std::int64_t>(h.rows / p) + 1, expanded, 8, value));
    if (plan_fn) plan_fn(h, plan);
    check_rank_plan(comm, plan, budget, c.verbose);
  };
  DistRead a = read_distributed(comm, path, opt, check);
  if (comm.root()) {
    MtxMatrix w;
    w.read_warnings = a.warnings;
    warn_read(tool, path, w);
  }
  return a;
}

}  // namespace mm::dist
