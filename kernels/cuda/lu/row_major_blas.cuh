// Host plumbing of cuda-blocked (kernels/cuda/lu.cu): cuBLAS TRSM and GEMM on row-major
// blocks, streams ordered by events, a captured CUDA graph, switches from the environment and
// the MM_LU_PROFILE breakdown of device time.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/leaf_plan.cuh"

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

// ---- streams -------------------------------------------------------------------------------

// Non-blocking: no implicit ordering with the legacy default stream, which the runner's
// timing events and copies use; the order is stated by events (order() below).
class Stream {
 public:
  explicit Stream(bool high) {
    int least = 0, greatest = 0;
    MM_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    MM_CUDA(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, high ? greatest : least));
  }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

class Fence {
 public:
  Fence() { MM_CUDA(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~Fence() { cudaEventDestroy(e_); }
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;
  // Work enqueued on AFTER from now on waits for the work enqueued on BEFORE so far.
  void order(cudaStream_t before, cudaStream_t after) {
    MM_CUDA(cudaEventRecord(e_, before));
    MM_CUDA(cudaStreamWaitEvent(after, e_, 0));
  }

 private:
  cudaEvent_t e_{};
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
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (runs_ == 0) return;
    std::fprintf(stderr,
                 "lu profile n=%d nb=%d runs=%d, ms per run: leaf %.3f (%d leaves), panel "
                 "trsm+gemm %.3f, pairs+left swaps %.3f, next panel's update %.3f, the rest's "
                 "update %.3f, the update stream idle for panels %.3f\n",
                 n_, nb_, runs_, ms_[leaf] / runs_, count_[leaf] / runs_, ms_[panel_blas] / runs_,
                 ms_[swaps] / runs_, ms_[next] / runs_, ms_[rest] / runs_, ms_[wait] / runs_);
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
  void span(Kind k, cudaStream_t s, F&& f, int m = 0, int w = 0) {
    if (!on_) return f();
    const cudaEvent_t a = event(), b = event();
    MM_CUDA(cudaEventRecord(a, s));
    f();
    MM_CUDA(cudaEventRecord(b, s));
    spans_.push_back({k, a, b, m, w});
  }

 private:
  struct Span {
    Kind kind;
    cudaEvent_t start, stop;
    int m, w;
  };
  static constexpr int kBuckets = 8;  // leaves of m <= 1024, 2048, ... rows; the last: any
  cudaEvent_t event() {
    if (next_ == events_.size()) {
      cudaEvent_t e{};
      MM_CUDA(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return events_[next_++];
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
    next_ = 0;
  }
  bool on_;
  int n_ = 0, nb_ = 0, runs_ = 0;
  double ms_[kinds] = {};
  int count_[kinds] = {};
  double leaf_ms_[kBuckets] = {};
  long leaf_cols_[kBuckets] = {};
  std::vector<cudaEvent_t> events_;
  std::size_t next_ = 0;
  std::vector<Span> spans_;
};

}  // namespace mm::cuda::lu::host
