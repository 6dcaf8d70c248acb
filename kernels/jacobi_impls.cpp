// The Jacobi implementations by name, best first for each device: the system family
// (cpu, ref, cuda) and the heated-room stencil family (cpu-stencil, ref-stencil, cuda-*).
#include <algorithm>

#include "device.hpp"
#include "instantiate.hpp"
#include "jacobi.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/jacobi_cuda.hpp"
#include "cuda/jacobi_timetile.hpp"
#endif

namespace mm {

namespace {

template <class I, class T>
class RefRunner final : public Runner {
 public:
  explicit RefRunner(const JacobiProblem<I, T>& p) : p_(p) {}
  void run() override { *p_.result = jacobi_ref(*p_.a, p_.b, p_.x, p_.stop); }

 private:
  JacobiProblem<I, T> p_;
};

// The split into off-diagonal part and 1/diag is set-up, done once before the timed runs.
template <class I, class T>
class CpuRunner final : public Runner {
 public:
  explicit CpuRunner(const JacobiProblem<I, T>& p) : p_(p) {
    jacobi_split_diagonal(*p.a, off_, inv_);
  }
  void run() override { *p_.result = jacobi_cpu(off_, inv_, p_.b, p_.x, old_, p_.stop); }

 private:
  JacobiProblem<I, T> p_;
  Csr<I, T> off_;
  std::vector<T> inv_, old_;
};

// The caller's grid is one of the two buffers; the runner owns the other.
template <class T>
class StencilRunner final : public Runner {
 public:
  StencilRunner(const StencilProblem<T>& p, StencilSweep<T> sweep)
      : p_(p), sweep_(sweep), other_(static_cast<std::size_t>(p.room.points())) {}
  void run() override {
    *p_.result = stencil_iterate(p_.room, sweep_, p_.u, other_.data(), p_.stop);
  }
  // The grids set to the initial grid outside the timing: the record's work is the sweeps'.
  double timed_run() override {
    heated_room_init(p_.room, p_.u);
    heated_room_init(p_.room, other_.data());
    Stopwatch w;
    *p_.result = stencil_iterate_set(p_.room, sweep_, p_.u, other_.data(), p_.stop);
    return w.seconds();
  }

 private:
  StencilProblem<T> p_;
  StencilSweep<T> sweep_;
  std::vector<T> other_;
};

template <class R, class I, class T>
JacobiMake<I, T> make() {
  return [](const JacobiProblem<I, T>& p) -> std::unique_ptr<Runner> {
    return std::make_unique<R>(p);
  };
}

template <class T>
StencilMake<T> make_stencil(StencilSweep<T> sweep) {
  return [sweep](const StencilProblem<T>& p) -> std::unique_ptr<Runner> {
    return std::make_unique<StencilRunner<T>>(p, sweep);
  };
}

}  // namespace

const TuneKeys& JacobiTuning::keys() {
  static const TuneKeys k{
      "jacobi stencil",
      "--poisson2d/3d on the GPU: the marching sweeps (cuda-norm, -ry2, -ry4, -col), "
      "cuda-timetile (chunks, norm, split); every CUDA run, A b on cuda too (launch)",
      {{"warps", "8|16|32",
        "warps a block of the 3D sweep: side by side along x over whole rows (at most 8; 16 "
        "with ahead=tma), the rest along y; fewer where the warps along x do not divide it; "
        "32 with ahead=tma only, the others take 16 (2D: 4, fixed)",
        "8; tma: the fewest whole rows of 16 or more; where memory is rich (H200) 8 (single: two "
        "rows of 6 warps or more), or 32 where those blocks march half a column or more and "
        "fill one wave, hold as many warps a multiprocessor, or replace one-row blocks of rows "
        "off the 128-byte lines"},
       {"chunks", "0..65535",
        "chunks of planes (2D: rows) each column of tiles is cut into, one block marching "
        "each; the wave-fill rule takes the fewest whose blocks fill the GPU's block slots to "
        "95% (up to four waves); cuda-timetile's rule the fewest steps a multiprocessor",
        "0: the wave-fill rule"},
       {"norm", "fused|plain",
        "cuda-timetile: a checked pass's change computed in its last level, summed in the "
        "time-tiled sweep's own order (fused), or by a last sweep of cuda-norm's, its change "
        "bit for bit (plain: one more pass through memory a check)",
        "fused"},
       {"ahead", "off|regs|tma",
        "cuda-norm's 3D sweep: each step's loads issued at that step (off), one step ahead "
        "into registers (regs: two steps' loads in flight a thread, more registers, fewer "
        "blocks), or several planes ahead by the copy engine into shared memory (tma; rows of "
        "16-byte vectors, else the device's choice of the two)",
        "16-byte vectors (N even in double, a multiple of 4 in single): tma; else by device: "
        "regs, off where memory is rich (H200)"},
       {"stages", "3..12", "ahead=tma: planes in a block's ring of shared-memory stages",
        "3, 4 where one block fills a multiprocessor"},
       {"order", "up|alternate|zigzag",
        "cuda-norm's 3D sweep: every sweep marches up z, or the even iterations march down "
        "(alternate: a sweep starts on the planes the last one wrote, still in L2), or so and "
        "the odd chunks of a column the other way (zigzag, ahead=tma: two chunks meet at their "
        "shared planes, read once; else alternate); the same grid, the change of a sweep down "
        "summed in another order",
        "alternate, up where the kernels marching down hold fewer blocks resident; zigzag (tma) "
        "where memory is rich (H200) and its chunks are of 64 planes or fewer"},
       {"split", "chunks|even",
        "cuda-timetile at 4 levels: each column of tiles cut into chunks, a block marching "
        "each (chunks), or the columns' planes in equal shares, one a block the GPU holds at "
        "once, a share reaching over into the next column (even: one wave, no tail); fewer "
        "levels take chunks",
        "even where it makes fewer steps than the chunks (chunks not given)"},
       {"l2", "normal|last",
        "cuda-norm's 3D sweep by tma: its stages' loads kept in L2 as usual (normal) or evicted "
        "last (last: the rows a block loads, read again by the blocks beside it, outlast the "
        "results written beside them); the same grid and change",
        "last where memory is rich (H200), a grid is more than twice the L2 and the order is not "
        "zigzag, else normal"},
       {"launch", "stream|graph",
        "every CUDA run (the cuda-* stencils, A b on cuda): its sweeps launched one by one as "
        "the host loop goes (stream), or a run without a tolerance captured once as a CUDA "
        "graph and replayed each run (graph: one launch a run, set up outside the timing); a "
        "run with a tolerance reads its change as it goes and takes stream; the same grid and "
        "change",
        "graph where the run has no tolerance, else stream"},
       {"plan", "rule|search",
        "cuda-norm: its plan (stages, chunks) from the rules for the GPU's size and the "
        "kernel's occupancy (rule), or searched on this GPU at upload: each plan of 3 or 4 "
        "stages and the rule's or 1..8 chunks (those keys not given) timed over a few short "
        "runs, the fastest kept where it beats the rule's by 1% (search: its cost in the h2d "
        "phase); the same grid, the change summed in the plan's order",
        "rule"}}};
  return k;
}

JacobiTuning JacobiTuning::from(const TuneArgs& args) {
  JacobiTuning t;
  const TuneKey &warps = keys().key("warps"), &chunks = keys().key("chunks"),
                &split = keys().key("split"), &norm = keys().key("norm"),
                &ahead = keys().key("ahead"), &stages = keys().key("stages"),
                &order = keys().key("order"), &l2 = keys().key("l2"),
                &launch = keys().key("launch"), &plan = keys().key("plan");
  if (const auto v = args.get(warps)) t.warps = tune_int_of(warps, *v, {8, 16, 32});
  if (const auto v = args.get(chunks)) t.chunks = tune_int(chunks, *v, 0, 65535);
  if (const auto v = args.get(split))
    t.split = 1 + static_cast<int>(tune_choice(split, *v, {"chunks", "even"}));
  if (const auto v = args.get(norm))
    t.norm = 1 + static_cast<int>(tune_choice(norm, *v, {"fused", "plain"}));
  if (const auto v = args.get(ahead))
    t.ahead = 1 + static_cast<int>(tune_choice(ahead, *v, {"off", "regs", "tma"}));
  if (const auto v = args.get(stages)) t.stages = tune_int(stages, *v, 3, 12);
  if (const auto v = args.get(order))
    t.order = 1 + static_cast<int>(tune_choice(order, *v, {"up", "alternate", "zigzag"}));
  if (const auto v = args.get(l2))
    t.l2 = 1 + static_cast<int>(tune_choice(l2, *v, {"normal", "last"}));
  if (const auto v = args.get(launch))
    t.launch = 1 + static_cast<int>(tune_choice(launch, *v, {"stream", "graph"}));
  if (const auto v = args.get(plan))
    t.plan = 1 + static_cast<int>(tune_choice(plan, *v, {"rule", "search"}));
  return t;
}

nlohmann::json JacobiTuning::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  if (warps) j["warps"] = warps;
  if (chunks) j["chunks"] = chunks;
  if (split) j["split"] = split == 2 ? "even" : "chunks";
  if (norm) j["norm"] = norm == 2 ? "plain" : "fused";
  if (ahead) j["ahead"] = ahead == 3 ? "tma" : ahead == 2 ? "regs" : "off";
  if (stages) j["stages"] = stages;
  if (order) j["order"] = order == 3 ? "zigzag" : order == 2 ? "alternate" : "up";
  if (l2) j["l2"] = l2 == 2 ? "last" : "normal";
  if (launch) j["launch"] = launch == 2 ? "graph" : "stream";
  if (plan) j["plan"] = plan == 2 ? "search" : "rule";
  return j;
}

// The code's choice of K for cuda-timetile: 4 in both precisions on both GPUs. Effective
// fraction of the single-sweep copy bound at N = 256 / 384 / 512 / 768, K = 4 against K = 3, the
// change every K, one call each GPU:
//  - H100 at dd26ab0 (bench/results/issue16_fortyeighth_pass_2026-12-02_dd26ab0.md): double
//    1.91 / 2.24 / 2.39 / 2.41 against 1.53 / 1.80 / 1.87 / 1.87; single 1.56 / 1.91 / 1.95 /
//    2.05 against 1.30 / 1.55 / 1.70 / 1.68. Single kept K = 3 on the H100 from the eighth pass
//    (1.26 / 1.51 / 1.63 / 1.50 against K = 4's 1.25 / 1.57 / 1.44 / 1.62) until this
//    measurement: K = 4 has since gained the even split and fewer instructions a step.
//  - H200 (bench/results/issue16_fortyfourth_pass_*.md, issue16_fortysixth_pass_*.md): double
//    1.37 / 1.72 / 1.89 / 1.92; single 1.12-1.13 / 1.48 / 1.50 / 1.60, K = 4 the best K.
// The passes are bound by the multiprocessors, not by memory: both GPUs reach about the same
// absolute rate, so the H100's fractions of its smaller copy bound are the higher.
int stencil_time_tile_default() {
  return 4;
}

StencilPasses stencil_time_tile_passes(const JacobiStop& s, std::int64_t iterations, int k,
                                       bool plain_checks) {
  StencilPasses p;
  for (std::int64_t done = 0; done < iterations;) {
    const std::int64_t sweeps = stencil_pass_sweeps(s, done, k);
    done += sweeps;
    if (plain_checks && jacobi_checks(s, done))
      p.plain += 1, p.tiled += sweeps > 1;
    else
      p.tiled += 1;
  }
  return p;
}

template <class I, class T>
const ImplList<JacobiMake<I, T>>& jacobi_impls() {
  static const ImplList<JacobiMake<I, T>> list = [] {
    ImplList<JacobiMake<I, T>> l;
    l.push_back({"cpu", Device::cpu,
                 "OpenMP, rows split by nonzeros, update and change in one pass",
                 make<CpuRunner<I, T>, I, T>()});
    l.push_back(
        {"ref", Device::cpu, "serial reference, plain CSR loops", make<RefRunner<I, T>, I, T>()});
#ifdef MM_HAVE_CUDA
    l.push_back({"cuda", Device::cuda,
                 "lanes per row, update and change in one kernel, change read at checks only",
                 [](const JacobiProblem<I, T>& p) { return make_jacobi_cuda(p); }});
#endif
    return l;
  }();
  return list;
}

template <class T>
const ImplList<StencilMake<T>>& stencil_impls() {
  static const ImplList<StencilMake<T>> list = [] {
    ImplList<StencilMake<T>> l;
    l.push_back(
        {"cpu-stencil", Device::cpu,
         "--poisson2d/3d: OpenMP over the slowest index, vectorised rows, change in the same pass",
         make_stencil<T>(&stencil_sweep_cpu<T>)});
    l.push_back({"ref-stencil", Device::cpu, "--poisson2d/3d: serial loop nest",
                 make_stencil<T>(&stencil_sweep_ref<T>)});
#ifdef MM_HAVE_CUDA
    auto cuda = [](StencilCudaKernel k) -> StencilMake<T> {
      return [k](const StencilProblem<T>& p) { return make_stencil_cuda(p, k); };
    };
    l.push_back({"cuda-norm", Device::cuda,
                 "--poisson2d/3d: 8/16-byte vectors along x, whole rows a block, 3 planes in "
                 "registers marching along z (3D: the next plane's loads one step ahead), "
                 "change reduced in the same kernel",
                 cuda(StencilCudaKernel::march)});
    // Shapes of cuda-norm's march that lose to its one row a thread (3D, N = 256, double, on
    // an H200: 0.74, 0.61 and 0.74 of the copy bandwidth where cuda-norm reaches 0.81; the
    // same order at 384 and 512): experimental, kept for that comparison.
    l.push_back({"cuda-norm-ry2", Device::cuda, "--poisson2d/3d: cuda-norm, 2 rows of y a thread",
                 cuda(StencilCudaKernel::march_ry2), ImplKind::experimental});
    l.push_back({"cuda-norm-ry4", Device::cuda, "--poisson2d/3d: cuda-norm, 4 rows of y a thread",
                 cuda(StencilCudaKernel::march_ry4), ImplKind::experimental});
    l.push_back({"cuda-norm-col", Device::cuda,
                 "--poisson2d/3d: cuda-norm-ry2 on tiles of 64 doubles x 16 rows (a warp along x)",
                 cuda(StencilCudaKernel::march_col), ImplKind::experimental});
    // Passes of K sweeps: at K = 4 (the default) 1.91 / 2.24 / 2.39 / 2.41 of the single-sweep
    // copy bound in effective updates at N = 256 / 384 / 512 / 768 in double on the H100 (single
    // 1.56 / 1.91 / 1.95 / 2.05), where cuda-norm reaches 0.96 / 0.96 / 0.96 / 0.95; on the H200
    // 1.37 / 1.72 / 1.89 / 1.92 (single 1.12 / 1.48 / 1.50 / 1.60), cuda-norm 0.93 / 0.96 / 0.95
    // / 0.90 (bench/results/issue16_fortyeighth_pass_*.md, issue16_fortyfourth_pass_*.md).
    // Not the default: its change is computed every K sweeps only.
    l.push_back({"cuda-timetile", Device::cuda,
                 "--poisson3d: K sweeps a pass through memory (--time-tile K), 64 x 32-64 tiles "
                 "with a halo of K marching along z, the grid bit for bit cuda-norm's (2D: "
                 "cuda-norm's sweep)",
                 [](const StencilProblem<T>& p) { return make_stencil_timetile_cuda(p); }});
    l.push_back({"cuda-partials", Device::cuda,
                 "--poisson2d/3d: coalesced, change by block partials + final kernel on the GPU",
                 cuda(StencilCudaKernel::partials)});
    l.push_back({"cuda-coalesced", Device::cuda,
                 "--poisson2d/3d: threads along x, 32x8 tiles marching along z, atomic change",
                 cuda(StencilCudaKernel::coalesced)});
    l.push_back({"cuda-naive", Device::cuda,
                 "--poisson2d/3d: threads along the slowest index (uncoalesced), atomic change",
                 cuda(StencilCudaKernel::naive)});
#endif
    return l;
  }();
  return list;
}

#define MM_JACOBI_IMPLS(I, T) template const ImplList<JacobiMake<I, T>>& jacobi_impls<I, T>();
MM_FOR_INDEX_VALUE_TYPES(MM_JACOBI_IMPLS)
template const ImplList<StencilMake<float>>& stencil_impls<float>();
template const ImplList<StencilMake<double>>& stencil_impls<double>();

}  // namespace mm
