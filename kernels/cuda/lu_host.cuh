// Host plumbing of cuda-blocked (kernels/cuda/lu.cu): cuBLAS TRSM and GEMM on row-major
// blocks, streams ordered by events, a captured CUDA graph, switches from the environment and
// the MM_LU_PROFILE breakdown of device time.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/lu_kernels.cuh"
#include "cuda/sm_partition.cuh"

namespace mm::cuda::lu::host {

// ---- cuBLAS on row-major blocks ----------------------------------------------------------
// A row-major block is its transpose column-major, so each call is the transposed problem.

inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const float* alpha, const float* a, int lda, float* b,
                              int ldb) {
  return cublasStrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n, alpha, a, lda, b, ldb);
}
inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const double* alpha, const double* a, int lda, double* b,
                              int ldb) {
  return cublasDtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n, alpha, a, lda, b, ldb);
}
// std::complex<R> and cuComplex / cuDoubleComplex share their layout (two R, real first).
inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const std::complex<float>* alpha, const std::complex<float>* a,
                              int lda, std::complex<float>* b, int ldb) {
  using Z = cuComplex;
  return cublasCtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n,
                     reinterpret_cast<const Z*>(alpha), reinterpret_cast<const Z*>(a), lda,
                     reinterpret_cast<Z*>(b), ldb);
}
inline cublasStatus_t trsm_cm(cublasHandle_t h, cublasFillMode_t uplo, cublasDiagType_t diag, int m,
                              int n, const std::complex<double>* alpha,
                              const std::complex<double>* a, int lda, std::complex<double>* b,
                              int ldb) {
  using Z = cuDoubleComplex;
  return cublasZtrsm(h, CUBLAS_SIDE_RIGHT, uplo, CUBLAS_OP_N, diag, m, n,
                     reinterpret_cast<const Z*>(alpha), reinterpret_cast<const Z*>(a), lda,
                     reinterpret_cast<Z*>(b), ldb);
}

inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k, const float* alpha,
                              const float* a, int lda, const float* b, int ldb, const float* beta,
                              float* c, int ldc) {
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k, const double* alpha,
                              const double* a, int lda, const double* b, int ldb,
                              const double* beta, double* c, int ldc) {
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k,
                              const std::complex<float>* alpha, const std::complex<float>* a,
                              int lda, const std::complex<float>* b, int ldb,
                              const std::complex<float>* beta, std::complex<float>* c, int ldc) {
  using Z = cuComplex;
  return cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, reinterpret_cast<const Z*>(alpha),
                     reinterpret_cast<const Z*>(a), lda, reinterpret_cast<const Z*>(b), ldb,
                     reinterpret_cast<const Z*>(beta), reinterpret_cast<Z*>(c), ldc);
}
inline cublasStatus_t gemm_cm(cublasHandle_t h, int m, int n, int k,
                              const std::complex<double>* alpha, const std::complex<double>* a,
                              int lda, const std::complex<double>* b, int ldb,
                              const std::complex<double>* beta, std::complex<double>* c, int ldc) {
  using Z = cuDoubleComplex;
  return cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, reinterpret_cast<const Z*>(alpha),
                     reinterpret_cast<const Z*>(a), lda, reinterpret_cast<const Z*>(b), ldb,
                     reinterpret_cast<const Z*>(beta), reinterpret_cast<Z*>(c), ldc);
}

// B (r x c) <- L^-1 B, L (r x r) unit lower: column-major B^T <- B^T L^-T, L^T upper.
template <class T>
void trsm_lower_unit(cublasHandle_t h, Index r, Index c, const T* l, Index ldl, T* b, Index ldb) {
  if (r == 0 || c == 0) return;
  const cuda::Scalar<T> one{T(1)};
  MM_CUDA(trsm_cm(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_UNIT, static_cast<int>(c),
                  static_cast<int>(r), one.ptr(), l, static_cast<int>(ldl), b,
                  static_cast<int>(ldb)));
}

// B (r x c) <- U^-1 B, U (r x r) upper: column-major B^T <- B^T U^-T, U^T lower.
template <class T>
void trsm_upper(cublasHandle_t h, Index r, Index c, const T* u, Index ldu, T* b, Index ldb) {
  if (r == 0 || c == 0) return;
  const cuda::Scalar<T> one{T(1)};
  MM_CUDA(trsm_cm(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, static_cast<int>(c),
                  static_cast<int>(r), one.ptr(), u, static_cast<int>(ldu), b,
                  static_cast<int>(ldb)));
}

// C (r x c) -= A (r x k) B (k x c): column-major C^T -= B^T A^T.
template <class T>
void gemm_sub(cublasHandle_t h, Index r, Index c, Index k, const T* a, Index lda, const T* b,
              Index ldb, T* cc, Index ldc) {
  if (r == 0 || c == 0 || k == 0) return;
  const cuda::Scalar<T> minus{T(-1)}, one{T(1)};
  MM_CUDA(gemm_cm(h, static_cast<int>(c), static_cast<int>(r), static_cast<int>(k), minus.ptr(), b,
                  static_cast<int>(ldb), a, static_cast<int>(lda), one.ptr(), cc,
                  static_cast<int>(ldc)));
}

// Right of the k x k unit lower block L at (r, r) of the row-major A (leading dimension ld),
// columns [c0, c1): their rows r .. r + k become U's by TRSM, then the BELOW rows under
// those are updated by GEMM with L's rows under it.
template <class T>
void solve_and_update(cublasHandle_t h, T* a, Index ld, Index r, Index k, Index c0, Index c1,
                      Index below) {
  trsm_lower_unit(h, k, c1 - c0, a + r * ld + r, ld, a + r * ld + c0, ld);
  gemm_sub(h, below, c1 - c0, k, a + (r + k) * ld + r, ld, a + r * ld + c0, ld,
           a + (r + k) * ld + c0, ld);
}

// ---- streams ----------------------------------------------------------------------------
// The engine's streams are CtxStreams (sm_partition.cuh): non-blocking, so no implicit
// ordering with the legacy default stream, which the runner's timing events and copies use;
// the order is stated by events (Fence below), each from its stream's context.

class Fence {
 public:
  Fence() = default;
  ~Fence() {
    for (const auto& [s, e] : events_) cudaEventDestroy(e);
  }
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;
  // Work enqueued on AFTER from now on waits for the work enqueued on BEFORE so far.
  void order(const CtxStream& before, const CtxStream& after) {
    const cudaEvent_t e = event(before);
    MM_CUDA(cudaEventRecord(e, before.get()));
    MM_CUDA(cudaStreamWaitEvent(after.get(), e, 0));
  }

 private:
  cudaEvent_t event(const CtxStream& s) {
    for (const auto& [owner, e] : events_)
      if (owner == &s) return e;
    events_.emplace_back(&s, s.new_event(false));
    return events_.back().second;
  }
  std::vector<std::pair<const CtxStream*, cudaEvent_t>> events_;
};

inline constexpr cudaStream_t kLegacy{};  // stream 0: the CudaRunner's events and the copies

// One captured stream's work, replayed whole by one launch.
class Graph {
 public:
  Graph() = default;
  ~Graph() { reset(); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  // Captures what ENQUEUE puts on S (and on the streams it forks from S and joins back).
  template <class F>
  void capture(cudaStream_t s, F&& enqueue) {
    reset();
    MM_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t g{};  // leave the stream out of capture mode; the error is the first one
      if (cudaStreamEndCapture(s, &g) == cudaSuccess && g) cudaGraphDestroy(g);
      throw;
    }
    MM_CUDA(cudaStreamEndCapture(s, &graph_));
    MM_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  bool ready() const { return exec_ != nullptr; }
  void launch(cudaStream_t s) { MM_CUDA(cudaGraphLaunch(exec_, s)); }

 private:
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    exec_ = nullptr, graph_ = nullptr;
  }
  cudaGraph_t graph_{};
  cudaGraphExec_t exec_{};
};

// A switch from the environment: unset or empty FALLBACK, "0" off, anything else on. Read by
// cuda-blocked when an engine is made: MM_LU_GRAPH (factor() as one CUDA graph, by default up
// to BlockedLu::kGraphMaxN) and MM_LU_PROFILE.
inline bool env_on(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) != "0" : fallback;
}

// MM_LU_PROFILE=1: where cuda-blocked's device time goes, summed by kind over the runs and
// printed to stderr when the engine goes (kinds overlap: they run on two streams). Each span
// is the time between events around the work on its stream, its waits for SMs included.
class Profile {
 public:
  enum Kind { leaf, panel_blas, swaps, next, rest, wait, kinds };
  explicit Profile(bool on) : on_(on) {}
  ~Profile() {
    if (!on_) return;
    try {
      collect();
    } catch (...) {
      return;  // a failed device: nothing to report
    }
    for (const Pool& p : pools_)
      for (cudaEvent_t e : p.events) cudaEventDestroy(e);
    if (runs_ == 0) return;
    std::fprintf(
        stderr,
        "lu profile n=%d nb=%d runs=%d, ms per run: leaf %.3f (%d leaves), panel "
        "trsm+gemm %.3f, pairs+left swaps %.3f, next panel's update %.3f, the rest's "
        "update %.3f, the update stream idle for panels %.3f; SMs: panel %d, update %d (0: all)\n",
        n_, nb_, runs_, ms_[leaf] / runs_, count_[leaf] / runs_, ms_[panel_blas] / runs_,
        ms_[swaps] / runs_, ms_[next] / runs_, ms_[rest] / runs_, ms_[wait] / runs_, panel_sms_,
        update_sms_);
    std::fprintf(stderr, "lu profile leaves by rows, us per column:");
    for (int b = 0; b < kBuckets; ++b)
      if (leaf_cols_[b] > 0)
        std::fprintf(stderr, " m<=%d %.2f (%ld columns)", 1024 << b,
                     1e3 * leaf_ms_[b] / leaf_cols_[b], leaf_cols_[b] / runs_);
    std::fprintf(stderr, "\n");
    try {
      cluster_leaf_clock_report();
    } catch (...) {
    }
  }
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  bool on() const { return on_; }
  void begin_run(int n, int nb) {
    if (!on_) return;
    collect();
    n_ = n, nb_ = nb, ++runs_;
  }
  // F's work on S, timed as K; a leaf's also by its M rows and W columns.
  template <class F>
  void span(Kind k, const CtxStream& s, F&& f, int m = 0, int w = 0) {
    if (!on_) return f();
    const cudaEvent_t a = event(s), b = event(s);
    MM_CUDA(cudaEventRecord(a, s.get()));
    f();
    MM_CUDA(cudaEventRecord(b, s.get()));
    spans_.push_back({k, a, b, m, w});
  }
  // Said with the report: the SMs the panel and the update run on (0: all).
  void partition(int panel_sms, int update_sms) {
    panel_sms_ = panel_sms, update_sms_ = update_sms;
  }

 private:
  struct Span {
    Kind kind;
    cudaEvent_t start, stop;
    int m, w;
  };
  static constexpr int kBuckets = 8;  // leaves of m <= 1024, 2048, ... rows; the last: any
  // Timing events of S's context, reused run after run.
  struct Pool {
    const CtxStream* stream;
    std::vector<cudaEvent_t> events;
    std::size_t next = 0;
  };
  cudaEvent_t event(const CtxStream& s) {
    Pool* p = nullptr;
    for (Pool& q : pools_)
      if (q.stream == &s) p = &q;
    if (!p) p = &pools_.emplace_back(Pool{&s, {}});
    if (p->next == p->events.size()) p->events.push_back(s.new_event(true));
    return p->events[p->next++];
  }
  void collect() {
    for (const Span& sp : spans_) {
      float ms = 0;
      MM_CUDA(cudaEventSynchronize(sp.stop));
      MM_CUDA(cudaEventElapsedTime(&ms, sp.start, sp.stop));
      ms_[sp.kind] += ms, ++count_[sp.kind];
      if (sp.kind == leaf) {
        int b = 0;
        while (b < kBuckets - 1 && sp.m > (1024 << b)) ++b;
        leaf_ms_[b] += ms, leaf_cols_[b] += sp.w;
      }
    }
    spans_.clear();
    for (Pool& p : pools_) p.next = 0;
  }
  bool on_;
  int n_ = 0, nb_ = 0, runs_ = 0;
  double ms_[kinds] = {};
  int count_[kinds] = {};
  double leaf_ms_[kBuckets] = {};
  long leaf_cols_[kBuckets] = {};
  int panel_sms_ = 0, update_sms_ = 0;
  std::vector<Pool> pools_;
  std::vector<Span> spans_;
};

}  // namespace mm::cuda::lu::host
