// The METIS partition of a matrix's rows: the symmetrised pattern gathered on rank 0, METIS there.
#include "dist/metis.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

#ifdef MM_HAVE_METIS
#include <metis.h>
#endif

#include "dist/agree.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"

namespace mm::dist {

namespace {

constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();

void check_fits(std::int64_t v, const char* what) {
  if (v > kMax32)
    throw DeviceError(std::string("--partition metis: ") + what + " (" + std::to_string(v) +
                      ") past this METIS's 32-bit indices; use --partition rows");
}

}  // namespace

bool metis_built() {
#ifdef MM_HAVE_METIS
  return true;
#else
  return false;
#endif
}

Graph symmetric_graph(std::int64_t n, const std::vector<std::int32_t>& pairs) {
  check_fits(n, "rows");
  const std::size_t entries = pairs.size() / 2;
  Graph g;
  // Degrees counted both ways round (a pair stored both ways is merged below), in 64 bits
  // until the total is known to fit.
  std::vector<std::int64_t> deg(static_cast<std::size_t>(n) + 1, 0), weight(deg.size(), 1);
  for (std::size_t k = 0; k < entries; ++k) {
    const std::int32_t i = pairs[2 * k], j = pairs[2 * k + 1];
    ++weight[static_cast<std::size_t>(i)];
    if (i == j) continue;
    ++deg[static_cast<std::size_t>(i) + 1];
    ++deg[static_cast<std::size_t>(j) + 1];
  }
  for (std::size_t i = 1; i < deg.size(); ++i) deg[i] += deg[i - 1];
  check_fits(deg.back(), "edges both ways round");
  check_fits(static_cast<std::int64_t>(entries) + n, "the weight of all rows");
  std::vector<std::int32_t> adj(static_cast<std::size_t>(deg.back()));
  {
    std::vector<std::int64_t> next(deg.begin(), deg.end() - 1);
    for (std::size_t k = 0; k < entries; ++k) {
      const std::int32_t i = pairs[2 * k], j = pairs[2 * k + 1];
      if (i == j) continue;
      adj[static_cast<std::size_t>(next[static_cast<std::size_t>(i)]++)] = j;
      adj[static_cast<std::size_t>(next[static_cast<std::size_t>(j)]++)] = i;
    }
  }
  // Each list sorted, duplicates dropped, compacted in place.
  g.xadj.assign(static_cast<std::size_t>(n) + 1, 0);
  g.weight.resize(static_cast<std::size_t>(n));
  std::size_t out = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    const auto b = adj.begin() + deg[i], e = adj.begin() + deg[i + 1];
    std::sort(b, e);
    const auto u = std::unique(b, e);
    out = static_cast<std::size_t>(std::copy(b, u, adj.begin() + static_cast<std::ptrdiff_t>(out)) -
                                   adj.begin());
    g.xadj[i + 1] = static_cast<std::int32_t>(out);
    g.weight[i] = static_cast<std::int32_t>(weight[i]);
  }
  adj.resize(out);
  adj.shrink_to_fit();
  g.adj = std::move(adj);
  return g;
}

GraphParts partition_graph(const Graph& g, int parts) {
  GraphParts r;
  const std::int64_t n = g.vertices();
  r.part.assign(static_cast<std::size_t>(n), 0);
  // One part, or nothing to share: no call (METIS 5.1 divides by zero for one part).
  if (parts <= 1 || n == 0) return r;
#ifdef MM_HAVE_METIS
  static_assert(std::is_same_v<idx_t, std::int32_t>, "Graph is built for 32-bit METIS");
  idx_t nv = static_cast<idx_t>(n), ncon = 1, np = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;  // the same parts every run
  std::vector<idx_t> part(static_cast<std::size_t>(n));
  // METIS takes non-const pointers but does not write the graph.
  auto* xadj = const_cast<idx_t*>(g.xadj.data());
  auto* adj = const_cast<idx_t*>(g.adj.data());
  auto* vwgt = const_cast<idx_t*>(g.weight.data());
  Stopwatch w;
  const int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vwgt, nullptr, nullptr, &np, nullptr,
                                     nullptr, options, &cut, part.data());
  r.seconds = w.seconds();
  if (rc == METIS_ERROR_MEMORY) throw DeviceError("--partition metis: METIS ran out of memory");
  if (rc != METIS_OK)
    throw DeviceError("--partition metis: METIS_PartGraphKway failed (code " + std::to_string(rc) +
                      ")");
  for (std::size_t i = 0; i < part.size(); ++i) r.part[i] = static_cast<int>(part[i]);
  r.edge_cut = cut;
  return r;
#else
  throw DeviceError("--partition metis: built without METIS (Debian: libmetis-dev)");
#endif
}

MetisParts metis_parts(const Comm& comm, std::int64_t n, const std::vector<std::int64_t>& row,
                       const std::vector<std::int64_t>& col) {
  // Every rank knows N: all refuse alike before anything is sent.
  check_fits(n, "rows");
  std::vector<std::int32_t> pairs(2 * row.size());
  for (std::size_t k = 0; k < row.size(); ++k) {
    pairs[2 * k] = static_cast<std::int32_t>(row[k]);
    pairs[2 * k + 1] = static_cast<std::int32_t>(col[k]);
  }
  std::vector<std::int32_t> all = comm.gatherv(pairs.data(), pairs.size(), 0);
  pairs = {};
  MetisParts m;
  agree(comm, [&] {
    if (!comm.root()) return;
    const Graph g = symmetric_graph(n, all);
    all = {};
    GraphParts p = partition_graph(g, comm.size());
    m.part = std::move(p.part);
    m.edge_cut = p.edge_cut;
    m.edges = g.edges();
    m.seconds = p.seconds;
  });
  m.edge_cut = comm.bcast(m.edge_cut, 0);
  m.edges = comm.bcast(m.edges, 0);
  m.seconds = comm.bcast(m.seconds, 0);
  return m;
}

}  // namespace mm::dist
