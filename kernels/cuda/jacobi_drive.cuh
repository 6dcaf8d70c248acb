// The host side of the CUDA Jacobi runs: the room's memory check, the change slots read by the
// host at checks only, a run without a tolerance captured as one CUDA graph, and the loop that
// queues the sweeps (jacobi_lagged_passes) in passes of up to K (the time-tiled runner,
// kernels/cuda/jacobi_timetile.cu) or one sweep a pass (drive: the runners of
// kernels/cuda/jacobi.cu).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cuda/cuda_util.cuh"
#include "jacobi.hpp"
#include "mm/error.hpp"

namespace mm::jacobi_host {

// A room whose two grids of VALUE_BYTES-byte values exceed the free device memory is refused
// (DeviceError, exit 4) with the bytes asked and free: called when a runner is made, before
// anything is allocated (cuda-norm's and cuda-timetile's runners).
inline void require_room_memory(const HeatedRoom& room, std::size_t value_bytes) {
  const long double need = 2.0L * static_cast<long double>(room.points()) * value_bytes;
  std::size_t free = 0, total = 0;
  MM_CUDA(cudaMemGetInfo(&free, &total));
  if (need <= static_cast<long double>(free)) return;
  std::ostringstream s;
  s << std::fixed << std::setprecision(0) << "out of device memory: asked " << need
    << " bytes (two " << room.n << "^" << room.dim << " grids of " << value_bytes
    << "-byte values), " << free << " free of " << total;
  throw DeviceError(s.str());
}

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
// while the GPU runs k+1; a slot holds PARTS values (launches of one iteration that each reduce
// their own: the GPU ranks' sweeps of a slab), summed in order when read. Copied: device slots,
// each copied to pinned host memory behind an event. Direct: a kernel writes the pinned host slot
// itself (one plain store of a last block: the sweep's, or with the change deferred, the next
// launch's: stencil::Change). A direct slot that every check waits for in order (a run with a
// tolerance: poll) is read by polling: armed with a value no kernel writes before its sweep is
// queued, then awaited until the store lands, so that nothing but kernels sits between two sweeps
// in the stream and a sweep launched as a programmatic dependent overlaps the checked one before
// it. Otherwise a check is fetched behind an event recorded on STREAM (the one the slot's
// launches end on), and only where it is waited for (with no tolerance, the last): an unread
// check adds nothing to the stream.
class ChangeSlots {
 public:
  explicit ChangeSlots(bool direct = false, int parts = 1, cudaStream_t stream = nullptr)
      : parts_(parts), dev_(2 * parts), host_(2 * parts), direct_(direct), stream_(stream) {
    if (parts < 1 || (parts > 1 && !direct))
      throw std::logic_error("ChangeSlots: several parts a slot are written directly only");
    dev_.fill_bytes(0);
    std::fill(host_.get(), host_.get() + 2 * parts, 0.0);
  }
  double* slot(int s, int part = 0) const {
    return (direct_ ? host_.device() : dev_.get()) + s * parts_ + part;
  }
  // Whether the checks of the run about to start are awaited by polling (direct slots of one
  // part, every check waited for in order).
  void poll(bool every_check_waited) { polled_ = direct_ && parts_ == 1 && every_check_waited; }
  // Before the sweep writing slot S is queued.
  void arm(int s) {
    if (polled_) bits(s) = kUnwritten;
  }
  // After it is queued; WAITED: whether wait(S) follows.
  void fetch(int s, bool waited) {
    if (polled_ || !waited) return;
    if (!direct_)
      MM_CUDA(cudaMemcpyAsync(host_.get() + s, dev_.get() + s, sizeof(double),
                              cudaMemcpyDeviceToHost, stream_));
    ready_[s].record(stream_);
  }
  // Slot S: its parts summed in order (((p0 + p1) + p2) ...). A slot of several parts is zeroed
  // once read, so that a part no launch wrote since counts 0.
  double wait(int s) const {
    if (!polled_) {
      MM_CUDA(cudaEventSynchronize(ready_[s].get()));
      volatile double* v = host_.get() + s * parts_;
      double sum = v[0];
      for (int i = 1; i < parts_; ++i) sum += v[i];
      if (parts_ > 1)
        for (int i = 0; i < parts_; ++i) v[i] = 0.0;
      return sum;
    }
    // A failed kernel never writes: the stream's state is asked now and then, and a stream done
    // with the slot still armed is an error rather than a hang.
    for (unsigned spin = 1;; ++spin) {
      const std::uint64_t b = bits(s);
      if (b != kUnwritten) return std::bit_cast<double>(b);
      if (spin % 4096 == 0) {
        const cudaError_t e = cudaStreamQuery(stream_);
        if (e == cudaSuccess && bits(s) == kUnwritten)
          throw DeviceError("the sweep's change never reached the host");
        if (e != cudaErrorNotReady && e != cudaSuccess) MM_CUDA(e);
      }
    }
  }

 private:
  // A signalling NaN: arithmetic gives quiet NaNs only, so no sum of squares equals it.
  static constexpr std::uint64_t kUnwritten = 0x7ff0'dead'0000'0001ull;
  volatile std::uint64_t& bits(int s) const {
    return reinterpret_cast<volatile std::uint64_t*>(host_.get())[s];
  }

  int parts_;
  cuda::Buffer<double> dev_;
  PinnedDoubles host_;
  bool direct_, polled_ = false;
  cudaStream_t stream_;
  cuda::Event ready_[2];
};

// A run without a tolerance as one CUDA graph (--tune launch=graph): its passes are the same on
// every run and its one change read is the last pass's, so the runner's passes are captured once
// (capture_passes, outside the timing) and each run replays them on the legacy stream, one
// launch a run rather than one or two a pass, the programmatic dependencies between them kept.
// The capture holds the runner's buffers: a runner keeps its buffers and its problem for life.
class RunGraph {
 public:
  // Whether the run STOP asks for is captured: no tolerance, some iterations.
  static bool fits(const JacobiStop& stop) { return stop.tol < 0 && stop.max_iter > 0; }
  // The graph a runner's runs of STOP take under LAUNCH (JacobiTuning::launch): none where they
  // are launched as they go (launch=stream, or a run the graph does not fit).
  static std::unique_ptr<RunGraph> wanted(const JacobiStop& stop, int launch) {
    if (launch == 1 || !fits(stop)) return nullptr;
    return std::make_unique<RunGraph>();
  }
  // The launch (JacobiTuning::launch) of a runner whose runs take GRAPH: 2 (graph) where there is
  // one, else 1 (stream).
  static int launch_of(const RunGraph* graph) { return graph ? 2 : 1; }

  // Captures once the passes QUEUE(stream) queues, their result (its norm still unread), the
  // slot of the last pass's change and the buffer holding the grid.
  template <class Queue>
  void capture(Queue&& queue) {
    if (exec_.get()) return;
    exec_ = cuda::GraphExec(stream_.get(), [&](cudaStream_t s) {
      result_ = queue(s, [this](int slot) {
        last_slot_ = slot;
        return 0.0;
      });
    });
  }
  // Replays the run on the legacy stream and reads its change from SLOTS.
  JacobiResult replay(ChangeSlots& slots, int& result_buf) const {
    exec_.launch(nullptr);
    slots.fetch(last_slot_, true);
    JacobiResult r = result_;
    r.norm = std::sqrt(slots.wait(last_slot_));
    result_buf = result_buf_;
    return r;
  }
  int& result_buf() { return result_buf_; }

 private:
  cuda::Stream stream_{cudaStreamNonBlocking};
  cuda::GraphExec exec_;
  JacobiResult result_;
  int last_slot_ = 0, result_buf_ = 0;
};

// The passes of jacobi_lagged_passes, STEP(src, pass, slot, stream) queuing each on STREAM, its
// change into SLOT of SLOTS; READ(slot) the change (from the caller: read at once, or noted by
// RunGraph's capture).
template <class InPlace, class Step, class Read>
JacobiResult queue_passes(const JacobiStop& stop, int k, ChangeSlots* slots, InPlace&& in_place,
                          Step&& step, cudaStream_t stream, Read&& read, int& result_buf) {
  return jacobi_lagged_passes(
      stop, k, in_place,
      [&](int src, const JacobiPass& p, int slot) {
        if (slots && slot >= 0) slots->arm(slot);
        step(src, p, slot, stream);
        if (slots && slot >= 0) slots->fetch(slot, stop.tol >= 0 || p.last == stop.max_iter);
      },
      read, result_buf);
}

// GRAPH (where given) captures STOP's run of drive_passes below, if RunGraph::fits it.
template <class InPlace, class Step>
void capture_passes(const JacobiStop& stop, int k, InPlace&& in_place, Step&& step,
                    RunGraph* graph) {
  if (!graph || !RunGraph::fits(stop)) return;
  graph->capture([&](cudaStream_t s, auto&& read) {
    return queue_passes(stop, k, nullptr, in_place, step, s, read, graph->result_buf());
  });
}

// jacobi_lagged_passes on the device: STEP(src, pass, slot, stream) queues a pass on STREAM, its
// change into SLOT of SLOTS, which the host reads at the checks that can stop the run only.
// With GRAPH, a run it fits replays the graph (captured here at the first run unless
// capture_passes did before); else the passes are queued one by one on the legacy stream.
template <class InPlace, class Step>
JacobiResult drive_passes(const JacobiStop& stop, int k, ChangeSlots& slots, InPlace&& in_place,
                          Step&& step, int& result_buf, RunGraph* graph = nullptr) {
  slots.poll(stop.tol >= 0);
  if (graph && RunGraph::fits(stop)) {
    capture_passes(stop, k, in_place, step, graph);
    return graph->replay(slots, result_buf);
  }
  return queue_passes(
      stop, k, &slots, in_place, step, nullptr, [&slots](int slot) { return slots.wait(slot); },
      result_buf);
}

// drive_passes (and capture_passes) one sweep a pass: STEP(src, k, slot, stream) queues
// iteration K (1-based) from buffer SRC (0 or 1) into the other one, its squared change into
// SLOT (-1: not computed); K = 1, no pass in place.
inline bool no_pass_in_place(const JacobiPass&) {
  return false;
}
template <class Step>
auto one_sweep_a_pass(Step& step) {
  return [&step](int src, const JacobiPass& p, int slot, cudaStream_t s) {
    step(src, p.last, slot, s);
  };
}
template <class Step>
JacobiResult drive(const JacobiStop& stop, ChangeSlots& slots, Step&& step, int& result_buf,
                   RunGraph* graph = nullptr) {
  return drive_passes(stop, 1, slots, no_pass_in_place, one_sweep_a_pass(step), result_buf, graph);
}
template <class Step>
void capture(const JacobiStop& stop, Step&& step, RunGraph* graph) {
  capture_passes(stop, 1, no_pass_in_place, one_sweep_a_pass(step), graph);
}

}  // namespace mm::jacobi_host
