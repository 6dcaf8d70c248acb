// mmjacobi's GPU ranks: each rank's slab on its GPU (StencilSlabCuda), the halo planes staged
// through pinned host memory and sent by MPI, the change reduced on the device, then across
// the ranks.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <span>

#include "dist/room_engine.hpp"
#include "dist/sweep_loop.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/jacobi_cuda.hpp"
#endif

namespace mm::dist {

#ifdef MM_HAVE_CUDA

namespace {

// As SlabJacobi, on the device: each iteration queues on a second stream the exchange of the
// slab's two boundary planes, then the sweeps of the two planes next to the halo, all beside
// the first stream's sweep of the planes that need no halo; the next iteration waits for both.
// Staged, the planes go to pinned host memory, are sent by MPI and come back. With NCCL they go
// from one GPU's memory to the other's, and the host waits for nothing but the checked changes
// that decide the stop. Each is read while the GPU sweeps the iteration after it
// (lagged_sweep_loop). The norm: each rank's squared change as the kernel reduces it
// (one-process cuda-norm's order within a launch; the launches of one iteration added in a fixed
// order), the ranks' values gathered exactly (a vector of one entry a rank) and added in rank
// order. One rank sweeping the whole grid is cuda-norm's launch: grid and norm bit for bit.
template <class T>
class GpuSlabEngine final : public RoomEngine<T> {
 public:
  GpuSlabEngine(const Comm& comm, const HeatedRoom& room, const SlabSplit& s,
                const JacobiTuning& tuning, std::shared_ptr<const GpuRanks> nccl)
      : comm_(comm),
        s_(s),
        halo_(comm, s),
        nccl_(std::move(nccl)),
        given_(tuning),
        sums_(static_cast<std::size_t>(comm.size())) {
    if (!s.empty()) dev_ = std::make_unique<StencilSlabCuda<T>>(room, s.k0, s.k1, tuning);
  }

  void prepare() override {
    if (dev_) {
      dev_->reset();
      dev_->synchronize();
    }
    started_ = true;
  }
  JacobiResult run(const JacobiStop& stop) override {
    if (!started_ && dev_) dev_->reset();  // not prepared: the run sets the starting grid
    started_ = false;
    exchange_s_ = allreduce_s_ = 0;
    const bool lo = s_.lower >= 0, hi = s_.upper >= 0, halo = lo || hi;
    const std::int64_t in0 = s_.k0 + lo, in1 = std::max(in0, s_.k1 - hi);
    // One iteration queued; SET 0 or 1: its change into that set of slots, -1: none.
    const auto iterate = [&](int set) {
      if (!dev_) return;
      const auto slot = [set](int i) { return set < 0 ? -1 : 3 * set + i; };
      if (!halo) {
        dev_->sweep(in0, in1, slot(0));
      } else {
        // The halo on the exchange's stream (after the sweeps so far), then the sweeps of the
        // planes next to it there too, all beside the compute stream's sweep of the others:
        // NCCL from GPU to GPU, or staged through the host and sent by MPI.
        Stopwatch w;
        if (nccl_)
          dev_->exchange(lo, hi,
                         [&](void* stream, const T* out_lo, T* in_lo, const T* out_hi, T* in_hi) {
                           post_nccl(stream, out_lo, in_lo, out_hi, in_hi);
                         });
        else
          dev_->stage_out(lo, hi);
        exchange_s_ += w.seconds();
        dev_->sweep(in0, in1, slot(0));
        if (!nccl_) {
          w.restart();
          dev_->wait_staged();
          halo_.start(dev_->send_plane(0), dev_->recv_plane(0), dev_->send_plane(1),
                      dev_->recv_plane(1));
          halo_.finish();
          dev_->stage_in(lo, hi);
          exchange_s_ += w.seconds();
        }
        if (lo) dev_->sweep(s_.k0, s_.k0 + 1, slot(1), true);
        // (One plane between two halos: swept once, above.)
        if (hi && s_.k1 - 1 >= in1) dev_->sweep(s_.k1 - 1, s_.k1, slot(2), true);
        dev_->await_exchange();
      }
      dev_->swap();
      if (set >= 0) dev_->mark(set);
    };
    // The whole grid's squared change of the iteration that wrote SET (collective).
    const auto norm2 = [&](int set) {
      const double mine = dev_ ? dev_->change(set) : 0;  // the wait: not the reduction's time
      Stopwatch w;
      std::fill(sums_.begin(), sums_.end(), 0.0);
      sums_[static_cast<std::size_t>(comm_.rank())] = mine;
      comm_.allreduce(sums_.data(), sums_.size(), Op::sum);  // one term an entry: exact
      double total = 0;
      for (const double v : sums_) total += v;
      allreduce_s_ += w.seconds();
      return total;
    };
    const JacobiResult res = lagged_sweep_loop(stop, iterate, norm2, [&] {
      if (dev_) dev_->swap();
    });
    if (dev_) dev_->synchronize();
    return res;
  }

  // --comm nccl: the slab's boundary planes OUT_LO / OUT_HI to the ranks below and above, theirs
  // into the halo planes IN_LO / IN_HI (null where there is no rank that way), queued on STREAM.
  void post_nccl(void* stream, const T* out_lo, T* in_lo, const T* out_hi, T* in_hi) const {
    std::array<GpuRanks::PeerMessages, 2> peers;
    std::size_t n = 0;
    if (out_lo) peers[n++] = {s_.lower, out_lo, in_lo};
    if (out_hi) peers[n++] = {s_.upper, out_hi, in_hi};
    nccl_->nccl_exchange(stream, scalar_of<T>::value, static_cast<std::size_t>(s_.plane_size()),
                         std::span(peers.data(), n));
  }

  std::vector<T> output_planes() override {
    std::vector<T> out(static_cast<std::size_t>((s_.out1 - s_.out0) * s_.plane_size()));
    if (dev_ && !out.empty()) dev_->download(s_.out0, s_.out1, out.data());
    return out;
  }
  double exchange_seconds() const override { return exchange_s_; }
  double allreduce_seconds() const override { return allreduce_s_; }
  std::int64_t halo_values() const override { return halo_.halo_values(); }
  std::int64_t points() const override {
    const std::int64_t m = s_.n - 2;
    return s_.planes() * (s_.dim == 3 ? m * m : m);
  }
  JacobiTuning tuning() const override { return dev_ ? dev_->tuning() : given_; }

 private:
  Comm comm_;
  SlabSplit s_;
  SlabHalo<T> halo_;                      // --comm mpi: the staged planes' messages
  std::shared_ptr<const GpuRanks> nccl_;  // null: the planes staged and sent by MPI
  std::unique_ptr<StencilSlabCuda<T>> dev_;
  JacobiTuning given_;    // a rank without planes: the tuning as given
  bool started_ = false;  // prepare() since the last run
  std::vector<double> sums_;
  double exchange_s_ = 0, allreduce_s_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<RoomEngine<T>> gpu_slab_engine(const Comm& comm, const HeatedRoom& room,
                                               const SlabSplit& s, const JacobiTuning& tuning,
                                               std::shared_ptr<const GpuRanks> nccl) {
  return std::make_unique<GpuSlabEngine<T>>(comm, room, s, tuning, std::move(nccl));
}

#else

template <class T>
std::unique_ptr<RoomEngine<T>> gpu_slab_engine(const Comm&, const HeatedRoom&, const SlabSplit&,
                                               const JacobiTuning&,
                                               std::shared_ptr<const GpuRanks>) {
  throw DeviceError("--device cuda: built without CUDA (MM_WITH_CUDA=OFF or no nvcc)");
}

#endif

template std::unique_ptr<RoomEngine<float>> gpu_slab_engine<float>(const Comm&, const HeatedRoom&,
                                                                   const SlabSplit&,
                                                                   const JacobiTuning&,
                                                                   std::shared_ptr<const GpuRanks>);
template std::unique_ptr<RoomEngine<double>> gpu_slab_engine<double>(
    const Comm&, const HeatedRoom&, const SlabSplit&, const JacobiTuning&,
    std::shared_ptr<const GpuRanks>);

}  // namespace mm::dist
