// CUDA Jacobi: the heated-room stencil runner (its plain kernels in jacobi_kernels.cuh, the
// vectorised marching ones in stencil_march.cuh, the launch shapes in stencil_plan.hpp) and the
// fused sparse-system runner, both driven by a host loop that reads the change only at checks,
// a run without a tolerance as one CUDA graph (jacobi_drive.cuh).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/jacobi_cuda.hpp"
#include "cuda/jacobi_drive.cuh"
#include "cuda/jacobi_kernels.cuh"
#include "cuda/l2_policy.cuh"
#include "cuda/stencil_march.cuh"
#include "cuda/stencil_plan.hpp"
#include "cuda/stencil_rows.hpp"
#include "instantiate.hpp"
#include "mm/error.hpp"
#include "mm/timing.hpp"

namespace mm {

namespace {

using namespace jacobi_kernels;
using cuda::dev_t;
using jacobi_host::ChangeSlots;
using jacobi_host::drive;
using stencil::ceil_div;

// ---- the stencil runner ------------------------------------------------------------------------

template <class T>
class StencilCudaRunner final : public cuda::CudaRunner {
  using MarchFn = stencil::MarchFn<T>;

 public:
  StencilCudaRunner(const StencilProblem<T>& p, StencilCudaKernel k) : p_(p), kernel_(k) {
    const HeatedRoom& r = p.room;
    room_ = stencil::room_of(r);
    vec_ = stencil::march_vector(sizeof(T), r.n);
    jacobi_host::require_room_memory(p.room, sizeof(T));
  }

  void upload() override {
    grid_.allocate(p_.room);
    last_ = p_.stop.max_iter;
    plan();
    // The marching sweeps' partials on two sides: a sweep's are summed by the next launch, which
    // writes its own on the other side.
    partials_ = cuda::Buffer<double>(2 * static_cast<std::size_t>(launch_.blocks()));
    slots_ = std::make_unique<ChangeSlots>(marching());
    graph_ = jacobi_host::RunGraph::wanted(p_.stop, p_.tuning.launch);
    if (p_.tuning.plan == 2 && kernel_ == StencilCudaKernel::march) search();
  }

  void download() override { grid_.download(result_, p_.u); }

  // The marching sweeps' warps (3D) and chunks as planned (in upload, which sets slots_), and
  // cuda-norm's plan key as given (searched: the plans timed and the search's seconds); the
  // launch of every kernel's runs (the others take no other key).
  nlohmann::json tuning() const override {
    if (!slots_) return nlohmann::json::object();
    JacobiTuning used = marching() ? stencil::march_tuning(launch_, p_.room.dim) : JacobiTuning{};
    used.launch = jacobi_host::RunGraph::launch_of(graph_.get());
    if (kernel_ == StencilCudaKernel::march) used.plan = p_.tuning.plan;  // as given
    nlohmann::json j = used.to_json();
    if (searched_) {  // the plan found by --tune plan=search: among how many, at what cost
      j["plans_tried"] = searched_;
      j["search_s"] = search_s_;
    }
    return j;
  }

 protected:
  // x_0 every run, queued ahead of the timed launch: the record's work is the sweeps' alone.
  // Timed with the sweeps, the fill (init_room, about 2 ms at N = 768 in either precision on
  // the H200) had cost jacobi_bench's 22-sweep runs 0.04 of the copy bound in double (0.86
  // against 0.90) and 0.08 in single (bench/results/issue16_fortieth_pass_*.md).
  // A run as one graph is captured here too, at the first run.
  void before() override {
    if (!slots_) upload();
    grid_.start();
    jacobi_host::capture(p_.stop, step(), graph_.get());
  }
  void launch() override { *p_.result = drive(p_.stop, *slots_, step(), result_, graph_.get()); }
  // The lines a sweep loading with evict_last kept, made normal again (cuda::release_kept_lines).
  void after() override { cuda::release_kept_lines(keeps_lines(launch_)); }

 private:
  bool keeps_lines(const stencil::Launch& l) const {
    return marching() && stencil::march_l2_last(l);
  }
  bool marching() const {
    return kernel_ == StencilCudaKernel::march || kernel_ == StencilCudaKernel::march_ry2 ||
           kernel_ == StencilCudaKernel::march_ry4 || kernel_ == StencilCudaKernel::march_col;
  }
  // Rows of y per thread of the 3D marching sweep.
  int rows_per_thread() const {
    return kernel_ == StencilCudaKernel::march_ry4 ? 4
           : kernel_ == StencilCudaKernel::march   ? 1
                                                   : 2;
  }

  // The wider rows a thread (3D, RY 2 or 4).
  template <int V, bool NORM>
  MarchFn march_as() const {
    return rows_per_thread() == 4 ? &stencil::march3v_sweep<T, V, 4, NORM>
                                  : &stencil::march3v_sweep<T, V, 2, NORM>;
  }
  // DOWN: marching down z (one row a thread only).
  template <bool NORM>
  MarchFn march_fn(bool down = false) const {
    if (p_.room.dim == 2 || rows_per_thread() == 1)
      return stencil::march_launch_fn<T, NORM>(p_.room.dim, vec_, launch_, down);
    if constexpr (sizeof(T) == 4)
      if (vec_ == 4) return march_as<4, NORM>();
    return vec_ == 2 ? march_as<2, NORM>() : march_as<1, NORM>();
  }

  // The launch shape of the sweep kernel (one partial a block), from the tuning for the
  // marching sweeps.
  void plan() {
    const std::int64_t sms = cuda::multiprocessors();
    if (kernel_ == StencilCudaKernel::march) {
      launch_ = stencil::plan_march_rows<T>(p_.room, vec_, p_.tuning);
    } else if (marching()) {
      launch_ = stencil::plan_march(p_.room, vec_, sizeof(T), rows_per_thread(),
                                    kernel_ == StencilCudaKernel::march_col, p_.tuning, sms,
                                    [this](int threads, std::size_t shared) {
                                      const MarchFn fn = march_fn<true>();
                                      return stencil::resident_blocks<T>(&fn, 1, threads, shared);
                                    });
    } else if (kernel_ == StencilCudaKernel::naive) {
      launch_ = stencil::plan_naive(p_.room);
    } else {
      launch_ = stencil::plan_tiled(p_.room, sms);
    }
    grid_dim_ = dim3(static_cast<unsigned>(launch_.gx), static_cast<unsigned>(launch_.gy),
                     static_cast<unsigned>(launch_.gz));
  }

  // --tune plan=search: each distinct plan of stencil::plan_candidates timed here, at upload, by
  // kSearchRuns runs of kSearchSweeps sweeps from x_0 (after one untimed), checked and launched
  // as the runs are (a graph where they are: the graph's gain differs by plan), each run's kept
  // lines released as after() does; the plan kept is plan_chosen's. Grid 1 is poisoned again
  // after, as allocate left it.
  void search() {
    const Stopwatch w;
    const JacobiStop trial{stencil::kSearchSweeps, -1, p_.stop.check_every};
    std::vector<stencil::Launch> plans;
    for (const JacobiTuning& t : stencil::plan_candidates(p_.tuning)) {
      const stencil::Launch l = stencil::plan_march_rows<T>(p_.room, vec_, t);
      const auto same = [&l](const stencil::Launch& q) { return stencil::same_plan(q, l); };
      if (std::none_of(plans.begin(), plans.end(), same)) plans.push_back(l);
    }
    std::int64_t most = 0;
    for (const stencil::Launch& l : plans) most = std::max(most, l.blocks());
    partials_ = cuda::Buffer<double>(2 * static_cast<std::size_t>(most));
    last_ = trial.max_iter;
    cuda::Event from, to;
    std::vector<double> seconds;
    for (const stencil::Launch& l : plans) {
      launch_ = l;
      const auto graph =
          jacobi_host::RunGraph::wanted(trial, jacobi_host::RunGraph::launch_of(graph_.get()));
      std::vector<double> runs;
      for (int run = 0; run <= stencil::kSearchRuns; ++run) {
        grid_.start();
        from.record();
        int buf = 0;
        drive(trial, *slots_, step(), buf, graph.get());
        to.record();
        const double s = cuda::elapsed(from, to);
        if (run) runs.push_back(s);
        cuda::release_kept_lines(keeps_lines(l));  // each run from an L2 that holds none
      }
      seconds.push_back(summarize(std::move(runs)).median);
    }
    launch_ = plans[stencil::plan_chosen(seconds)];
    last_ = p_.stop.max_iter;
    side_ = 0;
    before_slot_ = nullptr;
    grid_.poison();
    MM_CUDA(cudaDeviceSynchronize());
    searched_ = static_cast<int>(plans.size());
    search_s_ = w.seconds();
  }

  auto step() {
    return [this](int src, std::int64_t iteration, int slot, cudaStream_t stream) {
      sweep(src, iteration, slot, stream);
    };
  }

  // Iteration ITERATION (1-based) from buffer SRC, on STREAM.
  void sweep(int src, std::int64_t iteration, int slot, cudaStream_t stream) {
    double* s = slot < 0 ? nullptr : slots_->slot(slot);
    if (marching()) {
      // The last sweep of a run stopped by its tolerance leaves partials that nobody waits for.
      if (iteration == 1) before_slot_ = nullptr;
      const T inv = p_.room.dim == 3 ? T(1) / T(6) : T(1) / T(4);
      const bool down = stencil::march_down(launch_, iteration);
      const MarchFn fn = slot < 0 ? march_fn<false>(down) : march_fn<true>(down);
      // The change deferred (stencil::Change): this sweep sums the one before's, if checked.
      // A checked sweep's partials are on the side before side_ (it flipped after it).
      stencil::Change c;
      c.partials = side(side_);
      c.before = side(1 - side_);
      c.before_slot = before_slot_;
      stencil::launch_march<T>(fn, launch_, stream, true, room_, grid_[src], grid_[1 - src],
                               static_cast<T>(p_.room.h2f), inv, c);
      before_slot_ = s;
      if (!s) return;
      side_ = 1 - side_;
      if (iteration == last_) {  // no sweep follows: sum it now
        stencil::launch_sum_change(launch_, c.partials, s, stream);
        before_slot_ = nullptr;
      }
    } else if (slot < 0) {
      sweep_as<NormMode::none>(src, s, stream);
    } else if (kernel_ == StencilCudaKernel::partials) {
      sweep_as<NormMode::partial>(src, s, stream);
    } else {
      sweep_as<NormMode::atomic>(src, s, stream);
    }
  }

  template <NormMode M>
  void sweep_as(int src, double* slot, cudaStream_t stream) {
    const T* u = grid_[src];
    T* out = grid_[1 - src];
    const T srcv = static_cast<T>(p_.room.h2f);
    const T inv = p_.room.dim == 3 ? T(1) / T(6) : T(1) / T(4);
    double* partials = partials_.get();
    if constexpr (M == NormMode::atomic) MM_CUDA(cudaMemsetAsync(slot, 0, sizeof(double), stream));
    if (kernel_ == StencilCudaKernel::naive) {
      if (p_.room.dim == 3)
        naive_sweep<T, 3, M>
            <<<grid_dim_, kThreads, 0, stream>>>(room_, u, out, srcv, inv, slot, partials);
      else
        naive_sweep<T, 2, M>
            <<<grid_dim_, kThreads, 0, stream>>>(room_, u, out, srcv, inv, slot, partials);
      MM_CUDA_LAUNCHED("jacobi naive_sweep");
    } else if (p_.room.dim == 3) {
      march3_sweep<T, M><<<grid_dim_, kThreads, 0, stream>>>(room_, u, out, srcv, inv,
                                                             launch_.chunk, slot, partials);
      MM_CUDA_LAUNCHED("jacobi march3_sweep");
    } else {
      tile2_sweep<T, M>
          <<<grid_dim_, kThreads, 0, stream>>>(room_, u, out, srcv, inv, slot, partials);
      MM_CUDA_LAUNCHED("jacobi tile2_sweep");
    }
    if constexpr (M == NormMode::partial) {
      sum_partials<<<1, kReduceThreads, 0, stream>>>(partials, launch_.blocks(), slot);
      MM_CUDA_LAUNCHED("jacobi sum_partials");
    }
  }

  StencilProblem<T> p_;
  StencilCudaKernel kernel_;
  Room room_{};
  jacobi_kernels::RoomGrids<T> grid_;
  cuda::Buffer<double> partials_;
  std::unique_ptr<ChangeSlots> slots_;
  std::unique_ptr<jacobi_host::RunGraph> graph_;  // a run as one graph (null: launched as it goes)
  stencil::Launch launch_;
  dim3 grid_dim_;
  int vec_ = 1, result_ = 0;
  std::int64_t last_ = 0;  // the iteration of a run's last sweep (the search's: its own)
  int searched_ = 0;       // --tune plan=search: the plans timed (0: none searched)
  double search_s_ = 0;
  // The marching sweeps' deferred change: the side of partials_ the next checked sweep writes,
  // and the last sweep's slot (null: nothing to sum; else its partials are side 1 - side_).
  int side_ = 0;
  double* before_slot_ = nullptr;
  double* side(int k) { return partials_.get() + k * launch_.blocks(); }
};

// ---- the system runner ----------------------------------------------------------------------

template <class I, class T>
class JacobiCudaRunner final : public cuda::CudaRunner {
 public:
  explicit JacobiCudaRunner(const JacobiProblem<I, T>& p) : p_(p) {}

  // The split into off-diagonal part and 1/diag is set-up, as on the CPU.
  void upload() override {
    Csr<I, T> off;
    std::vector<T> inv;
    jacobi_split_diagonal(*p_.a, off, inv);
    rows_ = off.rows;
    const auto n = static_cast<std::size_t>(rows_);
    ptr_ = cuda::Buffer<I>(off.ptr.data(), off.ptr.size());
    idx_ = cuda::Buffer<I>(off.idx.data(), off.idx.size());
    val_ = cuda::Buffer<T>(off.val.data(), off.val.size());
    inv_ = cuda::Buffer<T>(inv.data(), n);
    b_ = cuda::Buffer<T>(p_.b, n);
    x_[0] = cuda::Buffer<T>(n);
    x_[1] = cuda::Buffer<T>(n);
    x_[1].fill_bytes(0xff);  // poison: every row must be written
    // Lanes per row from the mean off-diagonal count: few lanes idle on short rows.
    const double mean = rows_ ? static_cast<double>(off.nnz()) / static_cast<double>(rows_) : 0;
    width_ = mean > 16 ? 32 : mean > 8 ? 16 : mean > 4 ? 8 : 4;
    blocks_ = ceil_div(rows_ * width_, kThreads);
    partials_ = cuda::Buffer<double>(static_cast<std::size_t>(blocks_));
    slots_ = std::make_unique<ChangeSlots>();
    graph_ = jacobi_host::RunGraph::wanted(p_.stop, p_.tuning.launch);
  }

  void download() override { x_[result_].download(p_.x, static_cast<std::size_t>(rows_)); }

  // How the runs are launched (set in upload).
  nlohmann::json tuning() const override {
    if (!slots_) return nlohmann::json::object();
    JacobiTuning used;
    used.launch = jacobi_host::RunGraph::launch_of(graph_.get());
    return used.to_json();
  }

 protected:
  // x_0 = 0 every run, queued ahead of the timed launch (the record's work is the sweeps'); a
  // run as one graph is captured here too, at the first run.
  void before() override {
    if (!slots_) upload();
    if (rows_) MM_CUDA(cudaMemsetAsync(x_[0].get(), 0, x_[0].size() * sizeof(T)));
    jacobi_host::capture(p_.stop, step(), graph_.get());
  }
  void launch() override { *p_.result = drive(p_.stop, *slots_, step(), result_, graph_.get()); }

 private:
  auto step() {
    return
        [this](int src, std::int64_t, int slot, cudaStream_t stream) { sweep(src, slot, stream); };
  }

  // One sweep from buffer SRC on STREAM, its change into SLOT (-1: none).
  void sweep(int src, int slot, cudaStream_t stream) {
    if (rows_) {
      switch (width_) {
        case 4:
          sweep_as<4>(src, slot >= 0, stream);
          break;
        case 8:
          sweep_as<8>(src, slot >= 0, stream);
          break;
        case 16:
          sweep_as<16>(src, slot >= 0, stream);
          break;
        default:
          sweep_as<32>(src, slot >= 0, stream);
          break;
      }
    }
    if (slot >= 0) {  // zero rows: the change is 0, still written
      sum_partials<<<1, kReduceThreads, 0, stream>>>(partials_.get(), rows_ ? blocks_ : 0,
                                                     slots_->slot(slot));
      MM_CUDA_LAUNCHED("jacobi sum_partials");
    }
  }

  template <int W>
  void sweep_as(int src, bool norm, cudaStream_t stream) {
    using D = dev_t<T>;
    const D* xo = x_[src].dev();
    D* xn = x_[1 - src].dev();
    if (norm)
      system_sweep<W, true, I, D><<<blocks_, kThreads, 0, stream>>>(
          rows_, ptr_.get(), idx_.get(), val_.dev(), inv_.dev(), b_.dev(), xo, xn, partials_.get());
    else
      system_sweep<W, false, I, D><<<blocks_, kThreads, 0, stream>>>(
          rows_, ptr_.get(), idx_.get(), val_.dev(), inv_.dev(), b_.dev(), xo, xn, nullptr);
    MM_CUDA_LAUNCHED("jacobi system_sweep");
  }

  JacobiProblem<I, T> p_;
  std::int64_t rows_ = 0, blocks_ = 0;
  int width_ = 4, result_ = 0;
  cuda::Buffer<I> ptr_, idx_;
  cuda::Buffer<T> val_, inv_, b_, x_[2];
  cuda::Buffer<double> partials_;
  std::unique_ptr<ChangeSlots> slots_;
  std::unique_ptr<jacobi_host::RunGraph> graph_;  // a run as one graph (null: launched as it goes)
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_stencil_cuda(const StencilProblem<T>& p, StencilCudaKernel k) {
  return std::make_unique<StencilCudaRunner<T>>(p, k);
}

template <class I, class T>
std::unique_ptr<Runner> make_jacobi_cuda(const JacobiProblem<I, T>& p) {
  return std::make_unique<JacobiCudaRunner<I, T>>(p);
}

template std::unique_ptr<Runner> make_stencil_cuda<float>(const StencilProblem<float>&,
                                                          StencilCudaKernel);
template std::unique_ptr<Runner> make_stencil_cuda<double>(const StencilProblem<double>&,
                                                           StencilCudaKernel);
#define MM_JACOBI_CUDA(I, T) \
  template std::unique_ptr<Runner> make_jacobi_cuda<I, T>(const JacobiProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_JACOBI_CUDA)

}  // namespace mm
