// cuda-blocked's factorization engine (defined in blocked_driver.cu; its substitution, solve(),
// in blocked_solve.cu): recursive panels on a high-priority stream, look-ahead, a CUDA graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/lu/profile.cuh"
#include "cuda/lu/runner_checks.cuh"
#include "cuda/lu/streams_graph.cuh"
#include "cuda/lu/types.cuh"
#include "lu.hpp"

namespace mm::cuda::lu {

// The factorization engine: device pivots, the zero-pivot flag and the scratch, two streams
// (P: panels, high priority, so that a panel's blocks are scheduled ahead of the update's;
// U: swaps, TRSM and GEMM) with a cuBLAS handle each.
template <class T>
class BlockedLu {
 public:
  // For n x n matrices, panels and leaves as TUNING asks (its defaults resolved here from N and
  // the device: lu_cuda_nb, leaf_prepare, the graph rule); PROFILE: --profile's level (0 off).
  BlockedLu(Index n, const LuTuning& tuning, int profile);

  // Factors the n x n matrix A (device) in place, ordered after the work on stream 0 so
  // far, and stream 0's later work after it. The work for one A is captured once as a graph
  // and replayed (every launch of it depends only on n, nb and A's address).
  void factor(T* a);

  // factor()'s work, begun and ended on U.
  void enqueue(T* a);

  // Solves A X = B in place on X (n x k, device) with the factors LU of the last factor():
  // the row swaps in chunks, then L Y = PB and U X = Y by cuBLAS TRSM.
  void solve(const T* lu, T* x, Index k);

  // Throws where the last run met an exact zero pivot (waits for it).
  void check() const;

  // LAPACK's 1-based pivots.
  void pivots(std::vector<std::int64_t>& out) const;

  // The tuning values in use, defaults resolved: every key the leaves take (LuTuning::to_json;
  // the grid leaf takes none of the cluster keys). For Runner::tuning().
  nlohmann::json tuning() const;

  // --profile: every run so far, waited for, printed to stderr and returned (Profile::report);
  // null without --profile. For Runner::profile().
  nlohmann::json profile_report() { return profile_.report(); }

 private:
  // Recursive panel on P: the left half, then the right half's U rows by TRSM and its rows
  // below by GEMM, then the right half. The leaves swap across the whole panel [pc0, pc1)
  // where it is at most kMaxPivots wide; a wider one (nb > kMaxPivots, at its first split)
  // gives each half its own columns and swaps the other half's after it by row gathers.
  void panel(T* a, int g0, int m, int w, int pc0, int pc1);

  // On stream S, the row moves of pivots [K0, K1) (at most kRuns runs of kMaxPivots) into
  // PAIRS, run r at r kPairsRun.
  void pair_runs(int k0, int k1, int* pairs, cudaStream_t s);
  // On stream S, the moves PAIRS holds for pivots [K0, K1) (pair_runs) applied to columns
  // [C0, C1) of MAT (leading dimension LD) by row gathers, run after run.
  void gather_runs(T* mat, Index ld, int k0, int k1, Index c0, Index c1, const int* pairs,
                   cudaStream_t s);
  // A wide panel's half: its pivots [K0, K1) applied to the other half's columns [C0, C1), on P.
  void swap_apart(T* a, int k0, int k1, int c0, int c1);

  // pair_runs' run: the 2 (destination, source) slots of up to kMaxPivots pivots and their rows.
  static constexpr int kPairsRun = 4 * kMaxPivots;
  // Runs of the widest panel, and so of pairs_ and panel_pairs_.
  static constexpr int kRuns = (LuTuning::kMaxNb + kMaxPivots - 1) / kMaxPivots;

  // On U, columns [c0, c1) after the panel at j0 (width jb): its swaps, U's block row by
  // TRSM, and the rows below by GEMM.
  void update(T* a, int j0, int jb, int c0, int c1);

  // B (K x C, leading dimension n) <- L^-1 B, L unit lower, on stream S. Where LuTuning::trsm
  // takes it and C <= kMaxNb (a panel's own solves, the next panel's): the small solve on
  // blocks of up to kSmallSolveRows rows, a taller L split in two with a GEMM between (cuBLAS
  // on H, whose stream is S); else cuBLAS's TRSM (wider B: the rest's update, where cuBLAS's
  // TRSM beat the small solve, 50 against 64 ms a run at n = 32768 on the H200), split as above
  // with cuBLAS's TRSM on the blocks under trsm=split.
  // PDL: the first small solve as a programmatic dependent of S's kernel before.
  // B's leading dimension: LDB (L's: n).
  void solve_lower(cublasHandle_t h, cudaStream_t s, const T* l, T* b, Index ldb, Index k, Index c,
                   bool pdl = false);

  // trsm=inverse, on U before the rest's update of the panel at J0 (width JB): inv(L11) into
  // inv_ (while P begins the next panel: U's own kernels, which no update's GEMM holds
  // multiprocessors from; made on P, they waited for them, 0.8 ms a panel at n = 32768).
  void make_inverse(const T* a, int j0, int jb);
  // On U: W (K x K, leading dimension LDW, I on entry) <- L^-1, L (K x K, at L, leading
  // dimension n) unit lower. Up to kSmallSolveRows rows the small solve on I; taller, both
  // halves' inverses, then W21 = -W22 (L21 W11) by two GEMMs through the scratch after inv_'s
  // nb x nb (a third of the solve on I's flops, and GEMM's).
  void invert_lower(const T* l, T* w, Index ldw, Index k);

  int n_, nb_;
  // Non-blocking: no implicit ordering with the legacy default stream, which the runner's
  // timing events and copies use; the order is stated by fence_.order().
  Stream panel_, update_;  // before the handles: destroyed after them
  Cublas hp_, hu_;
  Event fence_{cudaEventDisableTiming};  // only orders the streams
  Buffer<int> ipiv_;
  Buffer<unsigned long long> info_;
  Buffer<int> pairs_;        // U's: the step's pivots as row moves, in runs of kMaxPivots
  Buffer<int> panel_pairs_;  // P's: a wide panel's half
  LeafScratch<T> scratch_;
  host::Profile profile_;
  bool use_graph_;
  bool warp_trsm_;  // LuTuning::trsm (cuBLAS's for complex types)
  bool inverse_;    // LuTuning::trsm == inverse
  bool split_;      // LuTuning::trsm == split
  // trsm=inverse: inv(L11) of the step's panel (nb x nb), then invert_lower's scratch (nb x nb /
  // 2); and the rest's U block row before it is copied into A (nb x n).
  Buffer<T> inv_, u12_;
  Event panel_done_{cudaEventDisableTiming};
  // LuTuning::pdl (off under --profile); chain_: P's last work was a kernel, so that
  // P's next kernel may be launched as its programmatic dependent (not after an event wait).
  bool pdl_;
  bool chain_ = false;
  // A graph's kernels lose the panel stream's priority: it pays where launches dominate
  // (n = 4096: 2 % faster), not where the look-ahead does (n = 16384: 5 % slower).
  static constexpr Index kGraphMaxN = 4096;
  static constexpr std::size_t kWorkspace = std::size_t{16} << 20;  // per handle
  Buffer<unsigned char> workspace_;
  host::Graph graph_;  // after the buffers it names: destroyed before them
  const T* graph_a_ = nullptr;
};

// What both cuda-blocked runners (mmlu's factorization, mmsolve's LU solve) hold: A and the
// copy of it that each run factors, and the engine (none for n = 0).
template <class T>
class BlockedFactors {
 public:
  // Refused before anything is uploaded: N beyond 32-bit indices, a panel too wide.
  BlockedFactors(Index n, const LuTuning& tuning, int profile)
      : n_(n), tuning_(tuning), profile_(profile) {
    check_int_size(n, "cuda-blocked");
    lu_cuda_nb(n, tuning);
  }
  // A (n x n) to the device, and the engine.
  void upload(const Dense<T>& a) {
    copy_.upload(a);
    if (n_ > 0) engine_ = std::make_unique<BlockedLu<T>>(n_, tuning_, profile_);
  }
  // A fresh copy of A factored in place, ordered on stream 0 (BlockedLu::factor); nothing
  // for n = 0.
  void factor() {
    if (!engine_) return;
    copy_.refresh();
    engine_->factor(copy_.lu());
  }
  // A X = B in place on X (n x k, device) by the last factor()'s factors (n > 0).
  void solve(T* x, Index k) { engine_->solve(copy_.lu(), x, k); }
  // Throws where the last run met an exact zero pivot (waits for it).
  void check() const {
    if (engine_) engine_->check();
  }
  // The factors and LAPACK's 1-based pivots.
  void download(Dense<T>& lu, std::vector<std::int64_t>& ipiv) const {
    copy_.download(lu);
    if (engine_) engine_->pivots(ipiv);
  }
  // Runner::tuning() and Runner::profile(): the engine's (empty, null for n = 0).
  nlohmann::json tuning() const { return engine_ ? engine_->tuning() : nlohmann::json::object(); }
  nlohmann::json profile() const { return engine_ ? engine_->profile_report() : nullptr; }

 private:
  Index n_;
  LuTuning tuning_;
  int profile_;
  FactorCopy<T> copy_;
  std::unique_ptr<BlockedLu<T>> engine_;
};

}  // namespace mm::cuda::lu
