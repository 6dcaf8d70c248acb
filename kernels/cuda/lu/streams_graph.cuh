// The fence that orders cuda-blocked's streams (cuda::Stream) and a captured CUDA graph, for its
// engine.
#pragma once

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu::host {

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

}  // namespace mm::cuda::lu::host
