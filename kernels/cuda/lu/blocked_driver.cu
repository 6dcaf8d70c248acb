// cuda-blocked's engine and mmlu's runner: recursive panels whose leaves run on a
// high-priority stream, cuBLAS TRSM and GEMM for the rest, the next panel factored while the
// trailing update runs (look-ahead on a second stream), the whole captured as a CUDA graph.
#include <algorithm>
#include <memory>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/blocked_driver.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/lu/row_major_blas.cuh"
#include "cuda/lu/row_swaps.cuh"
#include "cuda/lu/runner_checks.cuh"
#include "cuda/lu/small_solve.cuh"
#include "instantiate.hpp"

namespace mm::cuda::lu {

namespace {

static_assert(LuTuning::kSmallSolveMax == kSmallSolveRows, "trsm=warp's help states its rows");

// Whether the factorization runs as one CUDA graph (LuTuning::graph; auto: up to MAX_N). Never
// under --profile: the profile's events are recorded between the launches.
bool graph_on(const LuTuning& t, Index n, Index max_n, int profile) {
  if (profile > 0) return false;
  return t.graph == LuTuning::Graph::automatic ? n <= max_n : t.graph == LuTuning::Graph::on;
}

// Where a triangle of K > kSmallSolveRows rows splits for solve_lower and invert_lower: the
// top rows, whole small solves, about half.
Index split_rows(Index k) {
  return (k / 2 + kSmallSolveRows - 1) / kSmallSolveRows * kSmallSolveRows;
}

}  // namespace

using namespace host;

template <class T>
BlockedLu<T>::BlockedLu(Index n, const LuTuning& tuning, int profile)
    : n_(static_cast<int>(n)),
      nb_(static_cast<int>(lu_cuda_nb(n, tuning))),
      panel_(cudaStreamNonBlocking, Stream::Priority::greatest),
      update_(cudaStreamNonBlocking, Stream::Priority::least),
      ipiv_(static_cast<std::size_t>(n)),
      info_(1),
      pairs_(kRuns * kPairsRun),
      panel_pairs_(kRuns * kPairsRun),
      scratch_(leaf_prepare<T>(n, tuning, profile >= 2)),
      profile_(profile),
      use_graph_(graph_on(tuning, n, kGraphMaxN, profile)),
      warp_trsm_(tuning.trsm != LuTuning::Trsm::cublas && kSmallSolveTakes<T>),
      inverse_(tuning.trsm == LuTuning::Trsm::inverse),
      split_(tuning.trsm == LuTuning::Trsm::split),
      inv_(inverse_ ? 3 * static_cast<std::size_t>(nb_) * nb_ / 2 : 0),
      u12_(inverse_ ? static_cast<std::size_t>(nb_) * n_ : 0),
      pdl_(tuning.pdl && profile == 0),
      workspace_(2 * kWorkspace) {
  // cublasSetStream resets the workspace: set it after. A workspace of our own keeps
  // cuBLAS from allocating while a graph is captured.
  MM_CUDA(cublasSetStream(hp_.get(), panel_.get()));
  MM_CUDA(cublasSetStream(hu_.get(), update_.get()));
  MM_CUDA(cublasSetWorkspace(hp_.get(), workspace_.get(), kWorkspace));
  MM_CUDA(cublasSetWorkspace(hu_.get(), workspace_.get() + kWorkspace, kWorkspace));
  if (warp_trsm_) small_solve_prepare<T>();
  gather_rows_prepare<T>();
}

template <class T>
void BlockedLu<T>::factor(T* a) {
  const cudaStream_t U = update_.get();
  profile_.begin_run(n_, nb_);
  fence_.order(kLegacy, U);
  if (!use_graph_) {
    enqueue(a);
  } else {
    if (!graph_.ready() || graph_a_ != a) {
      graph_a_ = nullptr;
      graph_.capture(U, [&] { enqueue(a); });
      graph_a_ = a;
    }
    graph_.launch(U);
  }
  fence_.order(U, kLegacy);
}

template <class T>
void BlockedLu<T>::enqueue(T* a) {
  const cudaStream_t P = panel_.get(), U = update_.get();
  const int n = n_, nb = nb_;
  MM_CUDA(cudaMemsetAsync(info_.get(), 0xff, sizeof(unsigned long long), U));
  fence_.order(U, P);
  chain_ = false;  // P's next kernel waits on an event, not on a kernel of P
  panel(a, 0, n, std::min(nb, n), 0, std::min(nb, n));
  panel_done_.record(P);
  for (int j0 = 0; j0 < n; j0 += nb) {
    const int jb = std::min(nb, n - j0), right = j0 + jb;
    // panel j0 factored (the span: how long U idles for it)
    profile_.span(Profile::wait, U, [&] { MM_CUDA(cudaStreamWaitEvent(U, panel_done_.get())); });
    profile_.span(Profile::swaps, U, [&] { pair_runs(j0, right, pairs_.get(), U); });
    if (right < n) {
      // Look-ahead: the next panel's columns first, then that panel on P while U updates
      // the rest. They touch disjoint columns; the next panel's own swaps reach the
      // columns left and right of it at the next step.
      const int nb2 = std::min(nb, n - right);
      profile_.span(Profile::next, U, [&] { update(a, j0, jb, right, right + nb2); });
      fence_.order(U, P);
      chain_ = false;
      panel(a, right, n - right, nb2, right, right + nb2);
      panel_done_.record(P);
      // trsm=inverse: inv(L11) on U, while P begins the next panel (U's next work).
      if (inverse_ && right + nb2 < n) make_inverse(a, j0, jb);
      profile_.span(Profile::rest, U, [&] { update(a, j0, jb, right + nb2, n); });
    }
    profile_.span(Profile::swaps, U, [&] { gather_runs(a, n, j0, right, 0, j0, pairs_.get(), U); });
  }
}

template <class T>
void BlockedLu<T>::panel(T* a, int g0, int m, int w, int pc0, int pc1) {
  // Narrower leaves where only those fit a cluster's shared memory (tall panels).
  const int lw = leaf_width(scratch_, m);
  if (w <= lw) {
    profile_.span(
        Profile::leaf, panel_.get(),
        [&] {
          leaf_factor(a, n_, g0, m, w, pc0, pc1, ipiv_.get(), info_.get(), scratch_, panel_.get(),
                      pdl_ && chain_);
        },
        m, w);
    chain_ = true;
    return;
  }
  // The left half a whole number of leaves where that splits w.
  const int half = (w / 2 + lw - 1) / lw * lw;
  const int w1 = half < w ? half : w / 2, w2 = w - w1;
  // A panel wider than one pivot run: each half swaps its own columns (g0 == pc0 here).
  const bool apart = pc1 - pc0 > kMaxPivots;
  panel(a, g0, m, w1, pc0, apart ? g0 + w1 : pc1);
  if (apart) swap_apart(a, g0, g0 + w1, g0 + w1, pc1);
  // The right half's U rows, then its rows below (timed apart under --profile).
  const Index ld = n_, r = g0, c0 = g0 + w1;
  T* const l11 = a + r * ld + r;
  T* const u12 = a + r * ld + c0;
  profile_.span(
      Profile::panel_trsm, panel_.get(),
      [&] { solve_lower(hp_.get(), panel_.get(), l11, u12, ld, w1, w2, pdl_ && chain_); }, 0, w1);
  profile_.span(
      Profile::panel_gemm, panel_.get(),
      [&] { gemm_sub(hp_.get(), m - w1, w2, w1, l11 + w1 * ld, ld, u12, ld, u12 + w1 * ld, ld); },
      0, w1);
  panel(a, g0 + w1, m - w1, w2, apart ? g0 + w1 : pc0, pc1);
  if (apart) swap_apart(a, g0 + w1, g0 + w, pc0, g0 + w1);
}

namespace {

// W (k x k, dense) <- I.
template <class T>
__global__ void identity_kernel(T* w, int k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<long long>(k) * k) w[i] = i / k == i % k ? T(1) : T(0);
}

}  // namespace

template <class T>
void BlockedLu<T>::make_inverse(const T* a, int j0, int jb) {
  const cudaStream_t U = update_.get();
  // Under --profile with the updates' TRSM, which it replaces.
  profile_.span(Profile::update_trsm, U, [&] {
    constexpr int kThreads = 256;
    const long long cells = static_cast<long long>(jb) * jb;
    identity_kernel<<<static_cast<unsigned>((cells + kThreads - 1) / kThreads), kThreads, 0, U>>>(
        reinterpret_cast<dev_t<T>*>(inv_.get()), jb);
    MM_CUDA_LAUNCHED("identity_kernel");
    invert_lower(a + static_cast<Index>(j0) * n_ + j0, inv_.get(), jb, jb);
  });
}

template <class T>
void BlockedLu<T>::invert_lower(const T* l, T* w, Index ldw, Index k) {
  if (!warp_trsm_ || k <= kSmallSolveRows)
    return solve_lower(hu_.get(), update_.get(), l, w, ldw, k, k);
  const Index k1 = split_rows(k), k2 = k - k1;
  invert_lower(l, w, ldw, k1);
  invert_lower(l + k1 * n_ + k1, w + k1 * ldw + k1, ldw, k2);
  T* const t = inv_.get() + static_cast<std::size_t>(nb_) * nb_;  // k2 x k1
  gemm_set(hu_.get(), k2, k1, k1, l + k1 * n_, n_, w, ldw, t, k1);
  gemm_sub(hu_.get(), k2, k1, k2, w + k1 * ldw + k1, ldw, t, k1, w + k1 * ldw, ldw);  // 0 - W22 T
}

template <class T>
void BlockedLu<T>::swap_apart(T* a, int k0, int k1, int c0, int c1) {
  pair_runs(k0, k1, panel_pairs_.get(), panel_.get());
  gather_runs(a, n_, k0, k1, c0, c1, panel_pairs_.get(), panel_.get());
}

template <class T>
void BlockedLu<T>::pair_runs(int k0, int k1, int* pairs, cudaStream_t s) {
  for (int r = 0; k0 < k1; k0 += kMaxPivots, ++r)
    pivot_pairs(ipiv_.get(), k0, std::min(k1, k0 + kMaxPivots), pairs + r * kPairsRun, s);
}

template <class T>
void BlockedLu<T>::gather_runs(T* mat, Index ld, int k0, int k1, Index c0, Index c1,
                               const int* pairs, cudaStream_t s) {
  for (int r = 0; k0 < k1; k0 += kMaxPivots, ++r)
    gather_rows(mat, ld, c0, c1, pairs + r * kPairsRun, 2 * (std::min(k1, k0 + kMaxPivots) - k0),
                s);
}

template <class T>
void BlockedLu<T>::update(T* a, int j0, int jb, int c0, int c1) {
  if (c1 <= c0) return;
  const int right = j0 + jb;
  const Index n = n_;
  gather_runs(a, n, j0, right, c0, c1, pairs_.get(), update_.get());
  T* const u = a + j0 * n + c0;
  const Index c = c1 - c0;
  if (inverse_ && c0 > right) {  // the rest's update (make_inverse made inv(L11))
    // X = inv(L11) A12 into u12_, A22 -= L21 X, then X into A12.
    T* const x = u12_.get();
    profile_.span(Profile::update_trsm, update_.get(),
                  [&] { gemm_set(hu_.get(), jb, c, jb, inv_.get(), jb, u, n, x, c); });
    gemm_sub(hu_.get(), n - right, c, jb, a + right * n + j0, n, x, c, u + jb * n, n);
    MM_CUDA(cudaMemcpy2DAsync(u, n * sizeof(T), x, c * sizeof(T), c * sizeof(T), jb,
                              cudaMemcpyDeviceToDevice, update_.get()));
    return;
  }
  profile_.span(Profile::update_trsm, update_.get(),
                [&] { solve_lower(hu_.get(), update_.get(), a + j0 * n + j0, u, n, jb, c); });
  gemm_sub(hu_.get(), n - right, c, jb, a + right * n + j0, n, u, n, u + jb * n, n);
}

template <class T>
void BlockedLu<T>::solve_lower(cublasHandle_t h, cudaStream_t s, const T* l, T* b, Index ldb,
                               Index k, Index c, bool pdl) {
  // B wider than kMaxNb (the rest's update): cuBLAS's TRSM, whole or (trsm=split) on the blocks.
  if (!warp_trsm_ || (c > LuTuning::kMaxNb && (!split_ || k <= kSmallSolveRows)))
    return trsm_lower_unit(h, k, c, l, n_, b, ldb);
  if (k <= kSmallSolveRows)
    return small_solve_lower_unit(l, n_, b, ldb, static_cast<int>(k), c, s, pdl);
  // Taller: the top k1 rows (whole small solves, about half), the rows below less L21 times
  // them (GEMM), then those rows.
  const Index k1 = split_rows(k), k2 = k - k1;
  solve_lower(h, s, l, b, ldb, k1, c, pdl);
  gemm_sub(h, k2, c, k1, l + k1 * n_, n_, b, ldb, b + k1 * ldb, ldb);
  solve_lower(h, s, l + k1 * n_ + k1, b + k1 * ldb, ldb, k2, c);
}

template <class T>
void BlockedLu<T>::check() const {
  check_zero_pivot(info_);
}

template <class T>
void BlockedLu<T>::pivots(std::vector<std::int64_t>& out) const {
  download_pivots(ipiv_, out);
}

template <class T>
nlohmann::json BlockedLu<T>::tuning() const {
  LuTuning u;
  u.nb = nb_;
  u.graph = use_graph_ ? LuTuning::Graph::on : LuTuning::Graph::off;
  u.trsm = inverse_     ? LuTuning::Trsm::inverse
           : split_     ? LuTuning::Trsm::split
           : warp_trsm_ ? LuTuning::Trsm::warp
                        : LuTuning::Trsm::cublas;
  u.pdl = pdl_;
  if (scratch_.mode == LeafMode::grid) {
    u.leaf = LuTuning::Leaf::grid;
    nlohmann::json j = u.to_json();
    for (const char* k :
         {"cluster", "leaf_smem", "cluster_rows", "cluster_max_rows", "reg_rows", "exchange"})
      j.erase(k);
    return j;
  }
  const ClusterLeaf& c = scratch_.cluster;
  u.cluster = c.max_blocks;
  u.leaf_smem = static_cast<int>(c.smem);
  u.cluster_rows = c.target_rows;
  u.cluster_max_rows = c.max_rows;
  u.reg_rows = c.reg_rows;
  u.exchange = c.push ? LuTuning::Exchange::push : LuTuning::Exchange::sync;
  return u.to_json();
}

// The engine's members but solve() (blocked_solve.cu), for both runners.
#define MM_LU_BLOCKED_ENGINE(T) template class BlockedLu<T>;
MM_FOR_VALUE_TYPES(MM_LU_BLOCKED_ENGINE)

}  // namespace mm::cuda::lu

namespace mm {

namespace {

using cuda::lu::BlockedFactors;

template <class T>
class BlockedRunner final : public cuda::CudaRunner {
 public:
  explicit BlockedRunner(const LuProblem<T>& p) : p_(p), factors_(p.a->rows, p.tuning, p.profile) {}
  void upload() override { factors_.upload(*p_.a); }
  void download() override { factors_.download(*p_.lu, *p_.ipiv); }
  nlohmann::json tuning() const override { return factors_.tuning(); }
  // Printed to stderr each time it is asked for (measure() asks once, after the runs): the
  // engine's profile waits for the runs' events, outside the timed phases.
  nlohmann::json profile() const override { return factors_.profile(); }

 protected:
  // A fresh copy of A (timed, as the CPU runners' copy is), factored in place.
  void launch() override { factors_.factor(); }
  void after() override { factors_.check(); }

 private:
  LuProblem<T> p_;
  BlockedFactors<T> factors_;
};

}  // namespace

// Wide where the trailing GEMMs are large (wider updates run faster per flop, and the panel is
// a small part of a step; H200, x cuSOLVER getrf: nb 256 / 512 / 1024 at n = 16384 1.29 / 1.37
// / 1.33, at 24576 1.15 / 1.28 / 1.32, at 32768 1.07 / 1.18-1.20 / 1.27; 512 against 256 1.34 /
// 1.32 at 12288, 1.23 / 1.26 at 8192); narrower below, where the panel's per-column barriers
// dominate and fewer columns per panel let the look-ahead hide more of them.
std::int64_t lu_cuda_default_nb(std::int64_t n) {
  return n >= 24576 ? 1024 : n >= 12288 ? 512 : n >= 8192 ? 256 : n >= 2048 ? 128 : 64;
}

std::int64_t lu_cuda_nb(std::int64_t n, const LuTuning& tuning) {
  if (tuning.nb < 0 || tuning.nb > LuTuning::kMaxNb)
    throw UsageError("cuda-blocked: panel width nb=" + std::to_string(tuning.nb) + " not in 0.." +
                     std::to_string(LuTuning::kMaxNb));
  return tuning.nb > 0 ? tuning.nb : lu_cuda_default_nb(n);
}

template <class T>
std::unique_ptr<Runner> make_lu_cuda_blocked(const LuProblem<T>& p) {
  return std::make_unique<BlockedRunner<T>>(p);
}

#define MM_LU_CUDA_BLOCKED(T) \
  template std::unique_ptr<Runner> make_lu_cuda_blocked<T>(const LuProblem<T>&);
MM_FOR_VALUE_TYPES(MM_LU_CUDA_BLOCKED)

}  // namespace mm
