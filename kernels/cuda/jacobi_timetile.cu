// The time-tiled CUDA heated-room runner (cuda-timetile): passes of up to K sweeps through
// memory (stencil_timetile.cuh, shaped by timetile_plan.hpp), driven by a host loop that reads
// the change only at checks (jacobi_drive.cuh); cuda-norm's march (stencil_march.cuh) for the
// 2D room and, with --tune norm=plain, for each checked pass's last sweep.
#include <stdexcept>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/jacobi_drive.cuh"
#include "cuda/jacobi_kernels.cuh"
#include "cuda/jacobi_timetile.hpp"
#include "cuda/l2_policy.cuh"
#include "cuda/stencil_march.cuh"
#include "cuda/stencil_plan.hpp"
#include "cuda/stencil_rows.hpp"
#include "cuda/stencil_timetile.cuh"
#include "cuda/timetile_plan.hpp"
#include "mm/error.hpp"

namespace mm {

namespace {

using jacobi_host::ChangeSlots;
using stencil::Room;

template <class T>
class TimeTileRunner final : public cuda::CudaRunner {
  using MarchFn = stencil::MarchFn<T>;
  using TileFn = void (*)(Room, const T*, T*, T, T, timetile::Split, double*, double*, unsigned*);
  static constexpr int kMaxLevels = timetile::max_levels(sizeof(T));

 public:
  explicit TimeTileRunner(const StencilProblem<T>& p) : p_(p) {
    const HeatedRoom& r = p.room;
    room_ = stencil::room_of(r);
    vec_ = stencil::march_vector(sizeof(T), r.n);
    if (p.time_tile < 0 || p.time_tile > kMaxLevels)
      throw std::invalid_argument("cuda-timetile: time_tile " + std::to_string(p.time_tile) +
                                  " out of 0.." + std::to_string(kMaxLevels));
    k_ = r.dim != 3 ? 1 : p.time_tile > 0 ? p.time_tile : stencil_time_tile_default();
    plain_checks_ = r.dim == 3 && p.tuning.norm == 2;
    jacobi_host::require_room_memory(p.room, sizeof(T));
  }

  void upload() override {
    grid_.allocate(p_.room);
    const std::int64_t sms = cuda::multiprocessors();
    std::int64_t blocks = 1;
    if (p_.room.dim == 2 || plain_checks_) {
      // cuda-norm's launch under its default tuning: its change, bit for bit.
      plain_ = stencil::plan_march_rows<T>(p_.room, vec_, JacobiTuning{});
      blocks = std::max(blocks, plain_.blocks());
    }
    if (p_.room.dim == 3)
      for (int l = 1; l <= k_; ++l) {  // a pass cut short by a check takes fewer levels
        const std::size_t shared =
            timetile::shared_bytes(sizeof(T), l, timetile::pairs_aligned(p_.room.n));
        int per_sm = 0;
        for (const bool norm : {false, true})
          MM_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(tile_fn(l, norm)),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared)));
        MM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tile_fn(l, true),
                                                              timetile::kThreads, shared));
        if (per_sm < 1) throw DeviceError("cuda-timetile: the time-tiled sweep does not fit");
        tiles_[l] =
            timetile::plan(p_.room, sizeof(T), l, p_.tuning.chunks, per_sm * sms, p_.tuning.split);
        blocks = std::max(blocks, tiles_[l].blocks());
      }
    partials_ = cuda::Buffer<double>(static_cast<std::size_t>(blocks));
    counter_ = cuda::Buffer<unsigned>(1);
    counter_.fill_bytes(0);
    unread_ = cuda::Buffer<double>(1);
    slots_ = std::make_unique<ChangeSlots>(true);  // the last block writes the host's slot
    graph_ = jacobi_host::RunGraph::wanted(p_.stop, p_.tuning.launch);
  }

  void download() override { grid_.download(result_, p_.u); }

  // How the runs are launched; 3D: how the K-level sweep's blocks share the columns (its chunks;
  // where even_split, the split too) and how a check's change is computed (2D runs cuda-norm's
  // sweep under its default tuning).
  nlohmann::json tuning() const override {
    if (!slots_) return nlohmann::json::object();
    JacobiTuning used;
    used.launch = jacobi_host::RunGraph::launch_of(graph_.get());
    if (p_.room.dim != 3) return used.to_json();
    const timetile::TileLaunch& t = tiles_[k_];
    used.chunks = static_cast<int>(t.gz);  // 0 (not shown) under the even split
    if (timetile::even_split(k_)) used.split = t.even() ? 2 : 1;
    used.norm = plain_checks_ ? 2 : 1;
    return used.to_json();
  }

 protected:
  // x_0 every run, queued ahead of the timed launch: the record's work is the sweeps' alone.
  // A run as one graph is captured here too, at the first run.
  void before() override {
    if (!slots_) upload();
    grid_.start();
    jacobi_host::capture_passes(p_.stop, k_, in_place(), step(), graph_.get());
  }
  void launch() override {
    *p_.result =
        jacobi_host::drive_passes(p_.stop, k_, *slots_, in_place(), step(), result_, graph_.get());
  }
  // The lines its plain sweeps kept where they load with evict_last (cuda::release_kept_lines).
  void after() override { cuda::release_kept_lines(stencil::march_l2_last(plain_)); }

 private:
  auto in_place() const {
    return [this](const JacobiPass& p) { return plain_checks_ && p.check && p.sweeps > 1; };
  }
  auto step() {
    return
        [this](int src, const JacobiPass& p, int slot, cudaStream_t s) { pass(src, p, slot, s); };
  }

  // Pass P from buffer SRC on STREAM, its change into SLOT (-1: none); in two launches (the
  // result back in SRC) when a checked pass ends with a plain sweep.
  void pass(int src, const JacobiPass& p, int slot, cudaStream_t stream) {
    double* s = slot < 0 ? nullptr : slots_->slot(slot);
    if (p_.room.dim == 2) return plain(src, s, p.last, stream);  // one sweep a pass
    if (s && plain_checks_) {
      if (p.sweeps == 1) return plain(src, s, p.last, stream);
      tiled(src, static_cast<int>(p.sweeps) - 1, nullptr, stream);
      return plain(1 - src, s, p.last, stream);
    }
    tiled(src, static_cast<int>(p.sweeps), s, stream);
  }

  // Where the sweep without the change ran slower than the one with it, every pass runs the one
  // with it, a pass without a check its change into a slot nobody reads. ptxas schedules the two
  // differently. Fraction of the copy bound at N = 256 / 384 / 512 / 768, the change every K
  // against only at the last sweep:
  // - double at 4 levels, H100: at 512 1.51 against 1.26 (0.83-0.87 at every N; at 64 x 48
  //   tiles the one without spills 112 bytes);
  // - H200 (bench/results/issue16_twentyseventh_pass_*.md): double at 3 levels 1.10 / 1.30 /
  //   1.34 / 1.28 against 0.96 / 1.12 / 1.16 / 1.14; single at 2 0.77 / 0.95 / 1.03 / 1.04
  //   against 0.55 / 0.67 / 0.72 / 0.77, at 3 0.92 / 1.10 / 1.20 / 1.13 against 0.77 / 0.92 /
  //   1.00 / 0.95.
  // Single at 4 levels (pinned_masks) is the other way round: 1.09 / 1.37 / 1.26 / 1.30 without
  // the change against 0.98 / 1.28 / 1.18 / 1.24 with it.
  static constexpr bool norm_always(int l) {
    return sizeof(T) == 8 ? l == 3 || l == 4 : l == 2 || l == 3;
  }

  // L sweeps from buffer SRC into the other one, on STREAM.
  void tiled(int src, int l, double* slot, cudaStream_t stream) {
    const timetile::TileLaunch& t = tiles_[l];
    // A 1D grid where the kernel marches the Split, else one block a chunk of a column.
    const dim3 grid = timetile::even_split(l)
                          ? dim3(static_cast<unsigned>(t.blocks()))
                          : dim3(static_cast<unsigned>(t.gx), static_cast<unsigned>(t.gy),
                                 static_cast<unsigned>(t.gz));
    if (!slot && norm_always(l)) slot = unread_.get();
    tile_fn(l, slot != nullptr)<<<grid, timetile::kThreads, t.shared, stream>>>(
        room_, grid_[src], grid_[1 - src], static_cast<T>(p_.room.h2f), inv(), t.split, slot,
        partials_.get(), counter_.get());
    MM_CUDA_LAUNCHED("jacobi timetile3_sweep");
  }

  // One cuda-norm sweep from buffer SRC into the other one on STREAM, making ITERATION (marching as
  // cuda-norm's would: the same change).
  void plain(int src, double* slot, std::int64_t iteration, cudaStream_t stream) {
    const bool down = stencil::march_down(plain_, iteration);
    const MarchFn fn = slot ? march_fn<true>(down) : march_fn<false>(down);
    stencil::launch_march<T>(fn, plain_, stream, true, room_, grid_[src], grid_[1 - src],
                             static_cast<T>(p_.room.h2f), inv(),
                             {slot, partials_.get(), counter_.get()});
  }

  T inv() const { return p_.room.dim == 3 ? T(1) / T(6) : T(1) / T(4); }

  // cuda-norm's sweep under its default tuning (as planned: plain_).
  template <bool NORM>
  MarchFn march_fn(bool down) const {
    return stencil::march_launch_fn<T, NORM>(p_.room.dim, vec_, plain_, down);
  }

  // The time-tiled sweep of L levels for N even or not (EVEN): its shape as timetile_plan.hpp
  // says, with two points a thread and N even the pair one access in memory; with the change
  // (NORM) or, where norm_always, with it whatever NORM.
  template <int L, bool EVEN>
  static TileFn tile_fn_for(bool norm) {
    constexpr timetile::Shape s = timetile::shape(sizeof(T), L, EVEN);
    constexpr bool vec = EVEN && s.points == 2;
    if constexpr (norm_always(L)) {
      return &timetile::timetile3_sweep<T, L, s.points, s.rows, true, vec>;
    } else {
      return norm ? &timetile::timetile3_sweep<T, L, s.points, s.rows, true, vec>
                  : &timetile::timetile3_sweep<T, L, s.points, s.rows, false, vec>;
    }
  }
  template <int L = 1>
  TileFn tile_fn_from(int l, bool norm) const {
    if constexpr (L > kMaxLevels) {
      throw std::logic_error("cuda-timetile: no sweep of " + std::to_string(l) + " levels");
    } else {
      if (l != L) return tile_fn_from<L + 1>(l, norm);
      return timetile::pairs_aligned(p_.room.n) ? tile_fn_for<L, true>(norm)
                                                : tile_fn_for<L, false>(norm);
    }
  }
  TileFn tile_fn(int l, bool norm) const { return tile_fn_from(l, norm); }

  StencilProblem<T> p_;
  Room room_{};
  int vec_ = 1, k_ = 1, result_ = 0;
  bool plain_checks_ = false;
  jacobi_kernels::RoomGrids<T> grid_;
  cuda::Buffer<double> partials_, unread_;
  cuda::Buffer<unsigned> counter_;
  std::unique_ptr<ChangeSlots> slots_;
  std::unique_ptr<jacobi_host::RunGraph> graph_;  // a run as one graph (null: launched as it goes)
  stencil::Launch plain_;
  timetile::TileLaunch tiles_[kMaxLevels + 1];
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_stencil_timetile_cuda(const StencilProblem<T>& p) {
  return std::make_unique<TimeTileRunner<T>>(p);
}

template std::unique_ptr<Runner> make_stencil_timetile_cuda<float>(const StencilProblem<float>&);
template std::unique_ptr<Runner> make_stencil_timetile_cuda<double>(const StencilProblem<double>&);

}  // namespace mm
