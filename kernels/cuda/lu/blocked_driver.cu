// CUDA LU: cuda-blocked (recursive panels of cooperative leaves, cuBLAS TRSM and GEMM,
// look-ahead on a second stream), cuda-hybrid (a kernel per operation of each column step),
// and mmsolve's cuda-blocked substitution.
#include <algorithm>
#include <climits>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/leaf_plan.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/lu/row_major_blas.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using cuda::Buffer;
using cuda::lu::Index;
using cuda::lu::kMaxPivots;
using cuda::lu::kNoZeroPivot;

using namespace cuda::lu::host;

void check_int_size(Index n, const char* impl) {
  if (n > INT_MAX / 2) throw DeviceError(std::string(impl) + ": n beyond 32-bit indices");
}

// INFO as the kernels leave it (kNoZeroPivot, or the 0-based column of the first exact zero
// pivot): NumericalError naming the column, as the CPU code words it. Waits for the device.
void check_zero_pivot(const Buffer<unsigned long long>& info) {
  unsigned long long v = 0;
  MM_CUDA(cudaMemcpy(&v, info.get(), sizeof v, cudaMemcpyDeviceToHost));
  if (v != kNoZeroPivot) throw NumericalError(zero_pivot_message(static_cast<Index>(v)));
}

// The kernels' 0-based pivots into LAPACK's 1-based OUT (as many as IPIV holds).
void download_pivots(const Buffer<int>& ipiv, std::vector<std::int64_t>& out) {
  std::vector<int> p(ipiv.size());
  ipiv.download(p.data(), p.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[i] = p[i] + 1;
}

// ---- cuda-blocked ----------------------------------------------------------------------------

// The factorization engine: device pivots, the zero-pivot flag and the scratch, two streams
// (P: panels, high priority, so that a panel's blocks are scheduled ahead of the update's;
// U: swaps, TRSM and GEMM) with a cuBLAS handle each.
template <class T>
class BlockedLu {
 public:
  BlockedLu(Index n, Index nb)
      : n_(static_cast<int>(n)),
        nb_(static_cast<int>(nb)),
        panel_(true),
        update_(false),
        ipiv_(static_cast<std::size_t>(n)),
        info_(1),
        pairs_(4 * kMaxPivots),
        scratch_(cuda::lu::leaf_prepare<T>(n)),
        profile_(env_on("MM_LU_PROFILE", false)),
        use_graph_(env_on("MM_LU_GRAPH", n <= kGraphMaxN) && !profile_.on()),
        workspace_(2 * kWorkspace) {
    // cublasSetStream resets the workspace: set it after. A workspace of our own keeps
    // cuBLAS from allocating while a graph is captured.
    MM_CUDA(cublasSetStream(hp_.get(), panel_.get()));
    MM_CUDA(cublasSetStream(hu_.get(), update_.get()));
    MM_CUDA(cublasSetWorkspace(hp_.get(), workspace_.get(), kWorkspace));
    MM_CUDA(cublasSetWorkspace(hu_.get(), workspace_.get() + kWorkspace, kWorkspace));
  }

  // Factors the n x n matrix A (device) in place, ordered after the work on stream 0 so
  // far, and stream 0's later work after it. The work for one A is captured once as a graph
  // and replayed (every launch of it depends only on n, nb and A's address).
  void factor(T* a) {
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

  // factor()'s work, begun and ended on U.
  void enqueue(T* a) {
    const cudaStream_t P = panel_.get(), U = update_.get();
    const int n = n_, nb = nb_;
    MM_CUDA(cudaMemsetAsync(info_.get(), 0xff, sizeof(unsigned long long), U));
    fence_.order(U, P);
    panel(a, 0, n, std::min(nb, n), 0, std::min(nb, n));
    for (int j0 = 0; j0 < n; j0 += nb) {
      const int jb = std::min(nb, n - j0), right = j0 + jb;
      // panel j0 factored (the span: how long U idles for it)
      profile_.span(Profile::wait, U, [&] { fence_.order(P, U); });
      profile_.span(Profile::swaps, U,
                    [&] { cuda::lu::pivot_pairs(ipiv_.get(), j0, right, pairs_.get(), U); });
      if (right < n) {
        // Look-ahead: the next panel's columns first, then that panel on P while U updates
        // the rest. They touch disjoint columns; the next panel's own swaps reach the
        // columns left and right of it at the next step.
        const int nb2 = std::min(nb, n - right);
        profile_.span(Profile::next, U, [&] { update(a, j0, jb, right, right + nb2); });
        fence_.order(U, P);
        panel(a, right, n - right, nb2, right, right + nb2);
        profile_.span(Profile::rest, U, [&] { update(a, j0, jb, right + nb2, n); });
      }
      profile_.span(Profile::swaps, U,
                    [&] { cuda::lu::gather_rows(a, n, 0, j0, pairs_.get(), 2 * jb, U); });
    }
  }

  // Solves A X = B in place on X (n x k, device) with the factors LU of the last factor():
  // the row swaps in chunks, then L Y = PB and U X = Y by cuBLAS TRSM.
  void solve(const T* lu, T* x, Index k) {
    const cudaStream_t U = update_.get();
    fence_.order(kLegacy, U);
    for (int k0 = 0; k0 < n_; k0 += kMaxPivots) {
      const int k1 = std::min(n_, k0 + kMaxPivots);
      cuda::lu::pivot_pairs(ipiv_.get(), k0, k1, pairs_.get(), U);
      cuda::lu::gather_rows(x, k, 0, k, pairs_.get(), 2 * (k1 - k0), U);
    }
    trsm_lower_unit(hu_.get(), n_, k, lu, n_, x, k);
    trsm_upper(hu_.get(), n_, k, lu, n_, x, k);
    fence_.order(U, kLegacy);
  }

  // Throws where the last run met an exact zero pivot (waits for it).
  void check() const { check_zero_pivot(info_); }

  // LAPACK's 1-based pivots.
  void pivots(std::vector<std::int64_t>& out) const { download_pivots(ipiv_, out); }

 private:
  // Recursive panel on P: the left half, then the right half's U rows by TRSM and its rows
  // below by GEMM, then the right half. The leaves swap across the whole panel [pc0, pc1).
  void panel(T* a, int g0, int m, int w, int pc0, int pc1) {
    // Narrower leaves where only those fit a cluster's shared memory (tall panels).
    const int lw = cuda::lu::leaf_width(scratch_, m);
    if (w <= lw) {
      profile_.span(
          Profile::leaf, panel_.get(),
          [&] {
            cuda::lu::leaf_factor(a, n_, g0, m, w, pc0, pc1, ipiv_.get(), info_.get(), scratch_,
                                  panel_.get());
          },
          m, w);
      return;
    }
    // The left half a whole number of leaves where that splits w.
    const int half = (w / 2 + lw - 1) / lw * lw;
    const int w1 = half < w ? half : w / 2, w2 = w - w1;
    panel(a, g0, m, w1, pc0, pc1);
    profile_.span(Profile::panel_blas, panel_.get(), [&] {
      solve_and_update(hp_.get(), a, n_, g0, w1, g0 + w1, g0 + w1 + w2, m - w1);
    });
    panel(a, g0 + w1, m - w1, w2, pc0, pc1);
  }

  // On U, columns [c0, c1) after the panel at j0 (width jb): its swaps, U's block row by
  // TRSM, and the rows below by GEMM.
  void update(T* a, int j0, int jb, int c0, int c1) {
    if (c1 <= c0) return;
    const int right = j0 + jb;
    const Index n = n_;
    cuda::lu::gather_rows(a, n, c0, c1, pairs_.get(), 2 * jb, update_.get());
    solve_and_update(hu_.get(), a, n, j0, jb, c0, c1, n - right);
  }

  int n_, nb_;
  Stream panel_, update_;  // before the handles: destroyed after them
  cuda::Cublas hp_, hu_;
  Fence fence_;
  Buffer<int> ipiv_;
  Buffer<unsigned long long> info_;
  Buffer<int> pairs_;
  cuda::lu::LeafScratch<T> scratch_;
  Profile profile_;
  bool use_graph_;
  // A graph's kernels lose the panel stream's priority: it pays where launches dominate
  // (n = 4096: 2 % faster), not where the look-ahead does (n = 16384: 5 % slower).
  static constexpr Index kGraphMaxN = 4096;
  static constexpr std::size_t kWorkspace = std::size_t{16} << 20;  // per handle
  Buffer<unsigned char> workspace_;
  Graph graph_;  // after the buffers it names: destroyed before them
  const T* graph_a_ = nullptr;
};

template <class T>
class BlockedRunner final : public cuda::CudaRunner {
 public:
  BlockedRunner(const LuProblem<T>& p, Index nb)
      : p_(p), n_(p.a->rows), nb_(nb > 0 ? nb : lu_cuda_default_nb(p.a->rows)) {
    check_int_size(n_, "cuda-blocked");
    if (nb_ > kMaxPivots) throw UsageError("cuda-blocked: panel width over 256");
  }
  void upload() override {
    a_ = Buffer<T>(p_.a->data.data(), p_.a->data.size());
    lu_ = Buffer<T>(p_.a->data.size());
    lu_.fill_bytes(0xff);  // poison: the factorization must write every element
    if (n_ > 0) engine_ = std::make_unique<BlockedLu<T>>(n_, nb_);
  }
  void download() override {
    lu_.download(p_.lu->data.data(), p_.lu->data.size());
    if (engine_) engine_->pivots(*p_.ipiv);
  }

 protected:
  // A fresh copy of A (timed, as the CPU runners' copy is), factored in place.
  void launch() override {
    if (!engine_) return;
    MM_CUDA(cudaMemcpyAsync(lu_.get(), a_.get(), a_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    engine_->factor(lu_.get());
  }

  void after() override {
    if (engine_) engine_->check();
  }

 private:
  LuProblem<T> p_;
  Index n_, nb_;
  Buffer<T> a_, lu_;
  std::unique_ptr<BlockedLu<T>> engine_;
};

template <class T>
class BlockedSolveRunner final : public cuda::CudaRunner {
 public:
  BlockedSolveRunner(const Dense<T>& a, const Dense<T>& b, Dense<T>& x, SolveReport& report)
      : a_host_(a), b_host_(b), x_host_(x), report_(report) {
    check_int_size(a.rows, "cuda-blocked");
  }
  void upload() override {
    a_ = Buffer<T>(a_host_.data.data(), a_host_.data.size());
    b_ = Buffer<T>(b_host_.data.data(), b_host_.data.size());
    lu_ = Buffer<T>(a_host_.data.size());
    x_ = Buffer<T>(b_host_.data.size());
    x_.fill_bytes(0xff);
    if (a_host_.rows > 0) engine_ = std::make_unique<BlockedLu<T>>(a_host_.rows, nb());
  }
  void download() override { x_.download(x_host_.data.data(), x_host_.data.size()); }

 protected:
  void launch() override {
    if (!engine_) return;
    MM_CUDA(cudaMemcpyAsync(lu_.get(), a_.get(), a_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    engine_->factor(lu_.get());
    MM_CUDA(cudaMemcpyAsync(x_.get(), b_.get(), b_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    if (b_host_.cols > 0) engine_->solve(lu_.get(), x_.get(), b_host_.cols);
  }
  void before() override { report_ = SolveReport{}; }
  void after() override {
    if (engine_) engine_->check();
    report_.flops = lu_flops<T>(a_host_.rows) + lu_solve_flops<T>(a_host_.rows, b_host_.cols);
  }

 private:
  Index nb() const { return lu_cuda_default_nb(a_host_.rows); }
  const Dense<T>& a_host_;
  const Dense<T>& b_host_;
  Dense<T>& x_host_;
  SolveReport& report_;
  Buffer<T> a_, b_, lu_, x_;
  std::unique_ptr<BlockedLu<T>> engine_;
};

// ---- cuda-hybrid ---------------------------------------------------------------------------

template <class T>
class HybridRunner final : public cuda::CudaRunner {
 public:
  explicit HybridRunner(const LuProblem<T>& p) : p_(p), n_(p.a->rows) {
    check_int_size(n_, "cuda-hybrid");
  }
  void upload() override {
    a_ = Buffer<T>(p_.a->data.data(), p_.a->data.size());
    lu_ = Buffer<T>(p_.a->data.size());
    lu_.fill_bytes(0xff);
    ipiv_ = Buffer<int>(static_cast<std::size_t>(n_));
    info_ = Buffer<unsigned long long>(1);
  }
  void download() override {
    lu_.download(p_.lu->data.data(), p_.lu->data.size());
    download_pivots(ipiv_, *p_.ipiv);
  }

 protected:
  void launch() override {
    if (n_ == 0) return;
    MM_CUDA(cudaMemcpyAsync(lu_.get(), a_.get(), a_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    MM_CUDA(cudaMemsetAsync(info_.get(), 0xff, sizeof(unsigned long long), kLegacy));
    for (Index k = 0; k < n_; ++k)
      cuda::lu::hybrid_step(lu_.get(), n_, k, ipiv_.get(), info_.get(), kLegacy);
  }

  void after() override {
    if (n_ > 0) check_zero_pivot(info_);
  }

 private:
  LuProblem<T> p_;
  Index n_;
  Buffer<T> a_, lu_;
  Buffer<int> ipiv_;
  Buffer<unsigned long long> info_;
};

}  // namespace

// 256 where the trailing GEMMs are large (their rank-256 updates run near cuBLAS's peak and
// the panel is a small part of a step); narrower below, where the panel's per-column
// barriers dominate and fewer columns per panel let the look-ahead hide more of them.
std::int64_t lu_cuda_default_nb(std::int64_t n) {
  return n >= 8192 ? 256 : n >= 2048 ? 128 : 64;
}

template <class T>
LuLeafPlan lu_cuda_leaf_plan(std::int64_t m, int max_blocks, std::size_t smem, int target_rows,
                             int max_rows, int reg_rows) {
  cuda::lu::ClusterLeaf l{max_blocks, smem, target_rows, max_rows};
  l.reg_rows = reg_rows;
  const cuda::lu::ClusterPlan p = cuda::lu::cluster_plan<T>(l, m);
  return {p.width, p.blocks, p.rows, p.smem, p.reg};
}

template <class T>
std::unique_ptr<Runner> make_lu_cuda_blocked(const LuProblem<T>& p, std::int64_t nb) {
  return std::make_unique<BlockedRunner<T>>(p, nb);
}
template <class T>
std::unique_ptr<Runner> make_lu_cuda_hybrid(const LuProblem<T>& p) {
  return std::make_unique<HybridRunner<T>>(p);
}
template <class T>
std::unique_ptr<Runner> make_lu_solve_cuda_blocked(const Dense<T>& a, const Dense<T>& b,
                                                   Dense<T>& x, SolveReport& report) {
  return std::make_unique<BlockedSolveRunner<T>>(a, b, x, report);
}

#define MM_LU_CUDA(T)                                                                              \
  template LuLeafPlan lu_cuda_leaf_plan<T>(std::int64_t, int, std::size_t, int, int, int);         \
  template std::unique_ptr<Runner> make_lu_cuda_blocked<T>(const LuProblem<T>&, std::int64_t);     \
  template std::unique_ptr<Runner> make_lu_cuda_hybrid<T>(const LuProblem<T>&);                    \
  template std::unique_ptr<Runner> make_lu_solve_cuda_blocked<T>(const Dense<T>&, const Dense<T>&, \
                                                                 Dense<T>&, SolveReport&);
MM_FOR_VALUE_TYPES(MM_LU_CUDA)

}  // namespace mm
