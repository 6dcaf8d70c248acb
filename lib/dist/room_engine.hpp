// mmjacobi's distributed run seen from one rank, whichever the split (slabs, boxes) and the
// device (CPU, GPU): one interface for jacobi_tool.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dist/box.hpp"
#include "dist/gpu.hpp"
#include "dist/slab.hpp"
#include "jacobi.hpp"

namespace mm::dist {

template <class T>
class RoomEngine {
 public:
  virtual ~RoomEngine() = default;
  // Sets the starting grid for the next run (GPU ranks: the slab's starting planes copied, and
  // waited for), so that the run's timing is the sweeps'. Called before each run.
  virtual void prepare() = 0;
  // A run from the starting grid; collective.
  virtual JacobiResult run(const JacobiStop& stop) = 0;
  // After run(): the planes [out0, out1) of the output's slab split, the rank's part of the
  // output; collective (boxes: one alltoallv).
  virtual std::vector<T> output_planes() = 0;
  // The last run's seconds in the halo exchange outside the overlap, and in the norm's
  // reductions (waits for slower ranks included).
  virtual double exchange_seconds() const = 0;
  virtual double allreduce_seconds() const = 0;
  // Values this rank receives an exchange; interior points it updates.
  virtual std::int64_t halo_values() const = 0;
  virtual std::int64_t points() const = 0;
  // GPU ranks: the tuning this rank's sweeps ran under, resolved (rank 0's is the record's);
  // CPU ranks take none.
  virtual JacobiTuning tuning() const { return {}; }
};

// CPU ranks in slabs (SlabJacobi) or boxes (BoxJacobi, OUT the slab split that writes).
template <class T>
std::unique_ptr<RoomEngine<T>> slab_engine(const Comm& comm, const HeatedRoom& room,
                                           const SlabSplit& s);
template <class T>
std::unique_ptr<RoomEngine<T>> box_engine(const Comm& comm, const HeatedRoom& room,
                                          const BoxSplit& s, const SlabSplit& out);

// GPU ranks in slabs (slab_gpu.cpp): each rank's slab on its GPU (open_gpu_ranks first),
// cuda-norm's sweep, the halo planes staged through pinned host memory and sent by MPI, or with
// NCCL (GPU ranks opened with --comm nccl) sent between the GPUs' memories on the device.
// DeviceError without CUDA or when the slab does not fit.
template <class T>
std::unique_ptr<RoomEngine<T>> gpu_slab_engine(const Comm& comm, const HeatedRoom& room,
                                               const SlabSplit& s, const JacobiTuning& tuning,
                                               std::shared_ptr<const GpuRanks> nccl = nullptr);

}  // namespace mm::dist
