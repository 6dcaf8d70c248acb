// --profile's timing of cuda-blocked: device time by kind of work and leaf height (level 1), and
// the push and register leaves' clock64 phases (level 2), printed to stderr and returned for the
// record.
#pragma once

#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu {

// --profile=2: a leaf kernel's clock, summed over the timed leaves (block 0's thread 0 of each):
// cycles by phase, columns and leaves. On the device: P cycle counters, then the columns and the
// leaves.
template <int P>
struct ClockCounts {
  static constexpr int kPhases = P;
  unsigned long long cycles[P] = {};
  unsigned long long columns = 0, leaves = 0;
};
using LeafClockCounts = ClockCounts<8>;     // the push leaf (cluster_leaf.cu)
using RegLeafClockCounts = ClockCounts<3>;  // the register leaf (register_leaf.cu)
// The phases' names, in the counters' order.
inline constexpr const char* kLeafClockPhases[LeafClockCounts::kPhases] = {
    "prologue", "argmax", "push", "wait", "pivot", "update", "outside", "epilogue"};
// The register leaf: its rows loaded into registers (and the cluster's first barrier), the
// column loop, the rows stored (and the last barrier). A leaf's event span less these is the
// time its launch waited for a cluster's multiprocessors.
inline constexpr const char* kRegLeafClockPhases[RegLeafClockCounts::kPhases] = {"load", "columns",
                                                                                 "store"};

// The device counters SYMBOL (unsigned long long[P + 2]) since the last take, zeroed there. Called
// in the translation unit that owns the symbol (no relocatable device code).
template <int P, class Symbol>
ClockCounts<P> take_clock(const Symbol& symbol) {
  static_assert(sizeof(Symbol) == (P + 2) * sizeof(unsigned long long), "P counters, 2 counts");
  unsigned long long c[P + 2] = {};
  MM_CUDA(cudaMemcpyFromSymbol(c, symbol, sizeof c));
  ClockCounts<P> out;
  for (int i = 0; i < P; ++i) out.cycles[i] = c[i];
  out.columns = c[P];
  out.leaves = c[P + 1];
  if (out.leaves == 0) return out;
  const unsigned long long zero[P + 2] = {};
  MM_CUDA(cudaMemcpyToSymbol(symbol, zero, sizeof zero));
  return out;
}

// The counters since the last take, zeroed on the device: the push leaf's (cluster_leaf.cu) and
// the register leaf's (register_leaf.cu), each defined beside its kernel.
LeafClockCounts cluster_leaf_clock_take();
RegLeafClockCounts reg_leaf_clock_take();

}  // namespace mm::cuda::lu

namespace mm::cuda::lu::host {

// Where cuda-blocked's device time goes, summed by kind over the runs (kinds overlap: they run on
// two streams). Each span is the time between events around the work on its stream, its waits
// for SMs included. LEVEL 0: off (nothing recorded); 1: the spans; 2: also the push and register
// leaves' clocks (the leaf plan times them: ClusterLeaf::timed).
class Profile {
 public:
  // panel_trsm, panel_gemm: the panel's own TRSM and GEMM, each also by the left block's width
  // (the update's rank). update_trsm: the TRSM inside next and rest (U's block row).
  enum Kind { leaf, panel_trsm, panel_gemm, swaps, next, rest, wait, update_trsm, kinds };
  explicit Profile(int level) : level_(level) {}
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  bool on() const { return level_ > 0; }
  void begin_run(int n, int nb) {
    if (!on()) return;
    collect();
    n_ = n, nb_ = nb, ++runs_;
  }
  // F's work on S, timed as K; a leaf's also by its M rows and W columns.
  template <class F>
  void span(Kind k, cudaStream_t s, F&& f, int m = 0, int w = 0) {
    if (!on()) return f();
    const cudaEvent_t a = event(), b = event();
    MM_CUDA(cudaEventRecord(a, s));
    f();
    MM_CUDA(cudaEventRecord(b, s));
    spans_.push_back({k, a, b, m, w});
  }

  // Every run so far (warm-ups included), waited for: printed to stderr and returned as JSON
  // (ms per run by kind, the leaves' us per column by height, level 2: the push and register
  // leaves' ns per column by phase); null when off.
  nlohmann::json report() {
    if (!on()) return nullptr;
    collect();
    nlohmann::json j{{"level", level_}, {"n", n_}, {"nb", nb_}, {"runs", runs_}};
    if (runs_ == 0) return j;
    const double r = runs_;
    const double panel_ms = ms_[panel_trsm] + ms_[panel_gemm];
    j["ms_per_run"] = {{"leaf", ms_[leaf] / r},
                       {"panel_trsm_gemm", panel_ms / r},
                       {"swaps", ms_[swaps] / r},
                       {"next_panel_update", ms_[next] / r},
                       {"rest_update", ms_[rest] / r},
                       {"update_idle_for_panels", ms_[wait] / r},
                       {"update_trsm", ms_[update_trsm] / r}};
    j["leaves_per_run"] = count_[leaf] / runs_;
    std::fprintf(stderr,
                 "lu profile n=%d nb=%d runs=%d, ms per run: leaf %.3f (%d leaves), panel "
                 "trsm+gemm %.3f, pairs+left swaps %.3f, next panel's update %.3f, the rest's "
                 "update %.3f, the update stream idle for panels %.3f; of the updates, TRSM %.3f\n",
                 n_, nb_, runs_, ms_[leaf] / r, count_[leaf] / runs_, panel_ms / r, ms_[swaps] / r,
                 ms_[next] / r, ms_[rest] / r, ms_[wait] / r, ms_[update_trsm] / r);
    std::fprintf(stderr, "lu profile leaves by rows, us per column:");
    nlohmann::json buckets = nlohmann::json::array();
    for (int b = 0; b < kBuckets; ++b) {
      if (leaf_cols_[b] == 0) continue;
      const double us = 1e3 * leaf_ms_[b] / static_cast<double>(leaf_cols_[b]);
      std::fprintf(stderr, " m<=%d %.2f (%ld columns)", kFirstRows << b, us, leaf_cols_[b] / runs_);
      buckets.push_back({{"max_rows", kFirstRows << b},
                         {"us_per_column", us},
                         {"columns_per_run", leaf_cols_[b] / runs_}});
    }
    std::fprintf(stderr, "\n");
    j["leaf_us_per_column"] = std::move(buckets);
    std::fprintf(stderr, "lu profile panel trsm / gemm by rank, ms per run:");
    nlohmann::json ranks = nlohmann::json::array();
    for (int b = 0; b < kBuckets; ++b) {
      if (rank_calls_[b] == 0) continue;
      const double t = rank_ms_[0][b] / r, g = rank_ms_[1][b] / r;
      std::fprintf(stderr, " k<=%d %.3f / %.3f (%d calls)", kFirstRank << b, t, g,
                   rank_calls_[b] / runs_);
      ranks.push_back({{"max_rank", kFirstRank << b},
                       {"trsm_ms", t},
                       {"gemm_ms", g},
                       {"calls_per_run", rank_calls_[b] / runs_}});
    }
    std::fprintf(stderr, "\n");
    j["panel_by_rank"] = std::move(ranks);
    if (level_ >= 2) {
      if (nlohmann::json c =
              clock_report(push_clock_, cluster_leaf_clock_take(), kLeafClockPhases, "push leaf");
          !c.is_null())
        j["push_leaf_clock"] = std::move(c);
      if (nlohmann::json c =
              clock_report(reg_clock_, reg_leaf_clock_take(), kRegLeafClockPhases, "register leaf");
          !c.is_null())
        j["register_leaf_clock"] = std::move(c);
    }
    return j;
  }

 private:
  struct Span {
    Kind kind;
    cudaEvent_t start, stop;
    int m, w;
  };
  static constexpr int kBuckets = 8;
  // The buckets' first bounds: leaves of m <= 1024, 2048, ... rows; the panel's TRSM and GEMM of
  // rank <= 8, 16, ...; the last bucket takes any more.
  static constexpr int kFirstRows = 1024, kFirstRank = 8;
  // The bucket of V, from bounds FIRST, 2 FIRST, ...
  static int bucket(int v, int first) {
    int b = 0;
    while (b < kBuckets - 1 && v > (first << b)) ++b;
    return b;
  }
  // The next unused event of the pool (timing on), made when the pool has none left.
  cudaEvent_t event() {
    if (next_ == events_.size()) events_.emplace_back();
    return events_[next_++].get();
  }
  void collect() {
    for (const Span& sp : spans_) {
      float ms = 0;
      MM_CUDA(cudaEventSynchronize(sp.stop));
      MM_CUDA(cudaEventElapsedTime(&ms, sp.start, sp.stop));
      ms_[sp.kind] += ms, ++count_[sp.kind];
      if (sp.kind == leaf) {
        const int b = bucket(sp.m, kFirstRows);
        leaf_ms_[b] += ms, leaf_cols_[b] += sp.w;
      } else if (sp.kind == panel_trsm || sp.kind == panel_gemm) {
        const int b = bucket(sp.w, kFirstRank);  // by rank (sp.w)
        rank_ms_[sp.kind == panel_gemm][b] += ms;
        if (sp.kind == panel_gemm) ++rank_calls_[b];
      }
    }
    spans_.clear();
    next_ = 0;
  }
  // A leaf's clock over every run so far (TAKEN, the device's counters since the last take,
  // added to TOTAL): printed as WHAT's, and returned as leaves, columns and ns per column by
  // phase (NAMES); null where no timed leaf of it ran.
  template <int P>
  static nlohmann::json clock_report(ClockCounts<P>& total, const ClockCounts<P>& taken,
                                     const char* const (&names)[P], const char* what) {
    for (int i = 0; i < P; ++i) total.cycles[i] += taken.cycles[i];
    total.columns += taken.columns, total.leaves += taken.leaves;
    if (total.columns == 0) return nullptr;
    int dev = 0, khz = 0;
    MM_CUDA(cudaGetDevice(&dev));
    MM_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    const double ns = 1e6 / khz / static_cast<double>(total.columns);  // per cycle and column
    std::fprintf(stderr, "lu %s clock: %llu leaves, %llu columns, ns per column:", what,
                 total.leaves, total.columns);
    nlohmann::json phases = nlohmann::json::object();
    for (int i = 0; i < P; ++i) {
      const double v = static_cast<double>(total.cycles[i]) * ns;
      std::fprintf(stderr, " %s %.0f", names[i], v);
      phases[names[i]] = v;
    }
    std::fprintf(stderr, "\n");
    return {{"leaves", total.leaves}, {"columns", total.columns}, {"ns_per_column", phases}};
  }
  int level_;
  int n_ = 0, nb_ = 0, runs_ = 0;
  double ms_[kinds] = {};
  int count_[kinds] = {};
  double leaf_ms_[kBuckets] = {};
  long leaf_cols_[kBuckets] = {};
  double rank_ms_[2][kBuckets] = {};  // panel TRSM [0] and GEMM [1] by rank
  int rank_calls_[kBuckets] = {};
  LeafClockCounts push_clock_;
  RegLeafClockCounts reg_clock_;
  std::vector<Event> events_;  // moved, not remade, as it grows: the spans keep their handles
  std::size_t next_ = 0;
  std::vector<Span> spans_;
};

}  // namespace mm::cuda::lu::host
