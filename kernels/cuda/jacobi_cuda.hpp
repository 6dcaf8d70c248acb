// Host-side declarations of the CUDA Jacobi runners (defined in kernels/cuda/jacobi.cu),
// registered in kernels/jacobi_impls.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "jacobi.hpp"

namespace mm {

// naive: a thread per point, consecutive threads along the slowest index (uncoalesced on
// purpose); coalesced: threads along x, 2D tiles over (x, y) marching along z; partials: the
// coalesced sweep with the change reduced by block partials and a final kernel; march: 8- or
// 16-byte vectors along x, warps side by side over whole rows, 1 row of y per thread (ry2: 2,
// ry4: 4; col: 2 rows, one warp along x and 8 along y), three planes in registers marching
// along z, each block's change left as a partial that the next launch's first block sums into
// pinned host memory (kernels/cuda/stencil_march.cuh).
enum class StencilCudaKernel { naive, coalesced, partials, march, march_ry2, march_ry4, march_col };

template <class T>
std::unique_ptr<Runner> make_stencil_cuda(const StencilProblem<T>& p, StencilCudaKernel k);

// The fused system sweep: a group of lanes per row, the change reduced in the same kernel.
template <class I, class T>
std::unique_ptr<Runner> make_jacobi_cuda(const JacobiProblem<I, T>& p);

// A slab of the heated room on the GPU, for a distributed run (lib/dist): the planes K0 - 1 .. K1
// of the grid (2D: rows), the rank's planes [K0, K1) and the halo or wall plane either side, in
// two device buffers; cuda-norm's marching sweep (one row a thread) over a range of planes at a
// time, queued on a stream of its own; the halo planes staged through pinned host planes on a
// second stream; each range's squared change reduced on the device into one of three slots of
// one of two sets (mapped host memory), so that the host reads one iteration's while the GPU
// sweeps the next. The whole grid as one range (K0 = 1, K1 = N - 1) is cuda-norm's launch,
// the same grid and norm bit for bit (kernels/cuda/jacobi_slab.cu).
template <class T>
class StencilSlabCuda {
 public:
  // DeviceError (exit 4) when three slabs (two buffers, the starting planes) exceed the free
  // device memory.
  StencilSlabCuda(const HeatedRoom& room, std::int64_t k0, std::int64_t k1,
                  const JacobiTuning& tuning);
  ~StencilSlabCuda();
  StencilSlabCuda(const StencilSlabCuda&) = delete;
  StencilSlabCuda& operator=(const StencilSlabCuda&) = delete;

  // Queues the starting planes into buffer 0, which becomes the current one.
  void reset();
  // Queues the copies of the current buffer's planes K0 (LOWER) and K1 - 1 (UPPER) into the
  // pinned send planes, after every sweep queued so far; wait_staged() waits for them.
  void stage_out(bool lower, bool upper);
  void wait_staged();
  // Pinned host planes: SIDE 0 the lower, 1 the upper.
  T* send_plane(int side) const;
  T* recv_plane(int side) const;
  // Queues the pinned receive planes into the current buffer's planes K0 - 1 (LOWER) and K1
  // (UPPER) on the second stream, after the copies out: sweeps queued beside (sweep's BESIDE)
  // run after them, those on the compute stream once await_exchange() is called.
  void stage_in(bool lower, bool upper);
  // The exchange in device memory (--comm nccl): POST(stream, send lower, receive lower, send
  // upper, receive upper) queues it on a second stream (a cudaStream_t) after every sweep queued
  // so far: the current buffer's planes K0 and K1 - 1 out, its planes K0 - 1 and K1 in (null
  // where LOWER / UPPER is false). Sweeps queued after await_exchange() wait for it (and for
  // the second stream's sweeps); those queued before run beside it. Nothing waits on the host.
  using DevicePost = std::function<void(void*, const T*, T*, const T*, T*)>;
  void exchange(bool lower, bool upper, const DevicePost& post);
  void await_exchange();
  // Queues the sweep of planes [P0, P1) from the current buffer into the other; SLOT 0..5: its
  // squared change into that slot (set SLOT / 3), -1: none. BESIDE: on the exchange's stream,
  // after it (the planes next to the halo, while the compute stream sweeps the others); sweeps
  // on the compute stream after await_exchange() wait for it.
  void sweep(std::int64_t p0, std::int64_t p1, int slot, bool beside = false);
  // The other buffer becomes the current one (after an iteration's sweeps).
  void swap();
  // Marks the sweeps queued so far as those that write set SET (0 or 1) of the slots.
  void mark(int set);
  // Waits for the sweeps marked SET, not for those queued after them; (slot 0 + slot 1) +
  // slot 2 of the set, in that order (a slot not written since the last call: 0), and the
  // set's slots zeroed.
  double change(int set);
  // Waits for the work queued on both streams.
  void synchronize();
  // Planes [P0, P1) of the current buffer (after synchronize()).
  void download(std::int64_t p0, std::int64_t p1, T* host) const;
  // The tuning of the widest range swept so far, as its launch resolved it (cuda-norm's keys:
  // the record's); before any sweep, the tuning given.
  JacobiTuning tuning() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mm
