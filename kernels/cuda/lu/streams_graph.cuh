// The legacy stream's name and a captured CUDA graph, for cuda-blocked's engine (its streams
// and the event ordering them: cuda::Stream and cuda::Event::order, cuda_util.cuh).
#pragma once

#include <optional>

#include "cuda/cuda_util.cuh"

namespace mm::cuda::lu::host {

inline constexpr cudaStream_t kLegacy{};  // stream 0: the CudaRunner's events and the copies

// A captured graph (the end of a stream's capture) and its instance, released with their owner
// (cuda::Handle).
class CapturedGraph : public Handle<cudaGraph_t, cudaGraphDestroy> {
 public:
  explicit CapturedGraph(cudaStream_t s) { MM_CUDA(cudaStreamEndCapture(s, &h_)); }
};
class GraphExec : public Handle<cudaGraphExec_t, cudaGraphExecDestroy> {
 public:
  explicit GraphExec(cudaGraph_t g) { MM_CUDA(cudaGraphInstantiate(&h_, g, 0)); }
};

// One captured stream's work, replayed whole by one launch.
class Graph {
 public:
  // Captures what ENQUEUE puts on S (and on the streams it forks from S and joins back).
  template <class F>
  void capture(cudaStream_t s, F&& enqueue) {
    exec_.reset();
    graph_.reset();
    MM_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t g{};  // leave the stream out of capture mode; the error is the first one
      if (cudaStreamEndCapture(s, &g) == cudaSuccess && g) cudaGraphDestroy(g);
      throw;
    }
    graph_.emplace(s);
    exec_.emplace(graph_->get());
  }
  bool ready() const { return exec_.has_value(); }
  void launch(cudaStream_t s) { MM_CUDA(cudaGraphLaunch(exec_->get(), s)); }

 private:
  std::optional<CapturedGraph> graph_;
  std::optional<GraphExec> exec_;
};

}  // namespace mm::cuda::lu::host
