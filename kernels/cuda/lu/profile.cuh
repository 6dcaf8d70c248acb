// MM_LU_PROFILE's timing of cuda-blocked: device time by kind of work and leaf height.
#pragma once

#include <cstdio>
#include <vector>

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu {

// MM_LU_PROFILE=2: prints to stderr the push leaf's time per column by phase since the last
// report (nothing where no timed leaf ran). Defined in cluster_leaf.cu beside the push leaf,
// whose translation unit owns the device counters (no relocatable device code).
void cluster_leaf_clock_report();

}  // namespace mm::cuda::lu

namespace mm::cuda::lu::host {

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
