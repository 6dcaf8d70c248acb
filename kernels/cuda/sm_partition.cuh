// Streams confined to a part of the device's SMs (CUDA green contexts). The driver calls are
// reached through the runtime's entry points, so nothing links libcuda: the binaries still start
// where no driver is installed. cuda-blocked LU runs its panel on a small group of SMs and its
// trailing update on the rest, so that a panel's cluster launch never waits for SMs that the
// update's GEMM holds.
#pragma once

#include <cuda.h>

#include "cuda/cuda_util.cuh"

namespace mm::cuda {

// Throws DeviceError naming the driver call, file and line.
void check(CUresult r, const char* call, const char* file, int line);

// The device's SMs as two green contexts: a group of at least COUNT SMs placed so that it can
// run the largest thread-block clusters, and the rest. Throws DeviceError where the driver
// cannot split them so (older drivers, MPS, too few SMs).
class SmPartition {
 public:
  explicit SmPartition(int count);
  ~SmPartition();
  SmPartition(const SmPartition&) = delete;
  SmPartition& operator=(const SmPartition&) = delete;
  CUgreenCtx group() const { return group_; }
  CUgreenCtx rest() const { return rest_; }
  int group_sms() const { return group_sms_; }
  int rest_sms() const { return rest_sms_; }

 private:
  CUgreenCtx group_{}, rest_{};
  int group_sms_ = 0, rest_sms_ = 0;
};

// A non-blocking stream of the highest or lowest priority in green context G, or, where G is
// null, in the primary context; or the legacy default stream (not owned). An event recorded
// on a stream must come from the stream's context: new_event() makes those.
class CtxStream {
 public:
  CtxStream(bool high, CUgreenCtx g = nullptr);
  static CtxStream legacy() { return CtxStream(); }
  ~CtxStream();
  CtxStream(CtxStream&& o) noexcept : s_(o.s_), ctx_(o.ctx_), owned_(o.owned_) { o.owned_ = false; }
  CtxStream(const CtxStream&) = delete;
  CtxStream& operator=(const CtxStream&) = delete;
  cudaStream_t get() const { return s_; }
  bool green() const { return ctx_ != nullptr; }
  // A new event of this stream's context, with or without timing; the caller destroys it.
  cudaEvent_t new_event(bool timing) const;
  // Runs F with this stream's context current (kernel attributes, occupancy queries).
  template <class F>
  void in_context(F&& f) const {
    push();
    try {
      f();
    } catch (...) {
      pop();
      throw;
    }
    pop();
  }

 private:
  CtxStream() = default;
  void push() const;
  void pop() const;
  cudaStream_t s_{};
  CUcontext ctx_{};  // null: the primary context
  bool owned_ = false;
};

}  // namespace mm::cuda
