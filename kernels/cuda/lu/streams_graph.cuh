// The legacy stream's name and a captured CUDA graph, for cuda-blocked's engine (its streams
// and the event ordering them: cuda::Stream and cuda::Event::order, cuda_util.cuh).
#pragma once

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu::host {

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
