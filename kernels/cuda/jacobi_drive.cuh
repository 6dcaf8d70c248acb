// The host side of the CUDA Jacobi runs: the change slots read by the host at checks only,
// and the loop that queues the sweeps (used by kernels/cuda/jacobi.cu's two runners).
#pragma once

#include <cmath>

#include "cuda/cuda_util.cuh"
#include "jacobi.hpp"

namespace mm::jacobi_host {

// Pinned host memory for the two change slots (an asynchronous copy needs it).
class PinnedDoubles {
 public:
  // Mapped: the device writes it directly (through its device address).
  explicit PinnedDoubles(std::size_t n) {
    MM_CUDA(cudaHostAlloc(&p_, n * sizeof(double), cudaHostAllocMapped));
    MM_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), p_, 0));
  }
  ~PinnedDoubles() { cudaFreeHost(p_); }
  PinnedDoubles(const PinnedDoubles&) = delete;
  PinnedDoubles& operator=(const PinnedDoubles&) = delete;
  double* get() const { return p_; }
  double* device() const { return dev_; }

 private:
  double* p_ = nullptr;
  double* dev_ = nullptr;
};

// The squared change of checked iterations in two slots, so the host can read iteration k's
// while the GPU runs k+1. Copied: device slots, each copied to pinned host memory behind an
// event. Direct: the kernel writes the pinned host slot itself (one plain store of its last
// block), and only the event follows it in the stream: no copy between two sweeps.
class ChangeSlots {
 public:
  explicit ChangeSlots(bool direct = false) : dev_(2), host_(2), direct_(direct) {
    dev_.fill_bytes(0);
  }
  double* slot(int s) const { return (direct_ ? host_.device() : dev_.get()) + s; }
  void fetch(int s) {
    if (!direct_)
      MM_CUDA(
          cudaMemcpyAsync(host_.get() + s, dev_.get() + s, sizeof(double), cudaMemcpyDeviceToHost));
    ready_[s].record();
  }
  double wait(int s) const {
    MM_CUDA(cudaEventSynchronize(ready_[s].get()));
    return static_cast<volatile const double*>(host_.get())[s];
  }

 private:
  cuda::Buffer<double> dev_;
  PinnedDoubles host_;
  bool direct_;
  cuda::Event ready_[2];
};

// Runs the iterations from x_0 in buffer 0: STEP(src, slot) launches iteration k from buffer
// SRC (0 or 1) into the other one, its squared change into SLOT (-1: not computed). The host
// waits only for a checked change, and only once the next iteration is queued; when that
// change stops the run, the queued iteration wrote the other buffer and x_k is intact.
// Nothing is waited for between checks, nor before the end without a tolerance.
template <class Step>
JacobiResult drive(const JacobiStop& stop, ChangeSlots& slots, Step&& step, int& result_buf) {
  JacobiResult res;
  int cur = 0;
  bool pending = false;
  std::int64_t pend_k = 0;
  int pend_slot = 0, pend_buf = 0, last_slot = 0;
  for (std::int64_t k = 1; k <= stop.max_iter; ++k) {
    const bool check = jacobi_checks(stop, k);
    const int slot = static_cast<int>(k & 1);  // never the pending one (that is k-1's)
    step(cur, check ? slot : -1);
    if (check) slots.fetch(slot);
    cur = 1 - cur;
    if (pending) {
      pending = false;
      res.norm = std::sqrt(slots.wait(pend_slot));
      if (res.norm <= stop.tol) {
        res.iterations = pend_k;
        res.converged = true;
        result_buf = pend_buf;
        return res;
      }
    }
    if (check) {
      last_slot = slot;
      if (stop.tol >= 0) pending = true, pend_k = k, pend_slot = slot, pend_buf = cur;
    }
  }
  // The last iteration is always checked.
  res.iterations = stop.max_iter;
  res.norm = std::sqrt(slots.wait(last_slot));
  res.converged = stop.tol >= 0 && res.norm <= stop.tol;
  result_buf = cur;
  return res;
}

}  // namespace mm::jacobi_host
