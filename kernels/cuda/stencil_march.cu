// cuda-norm's marching sweeps of one row a thread: the one file that instantiates them, with
// their plan and launch (stencil_rows.hpp says why one).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/stencil_march.cuh"
#include "cuda/stencil_rows.hpp"

namespace mm::stencil {

namespace {

// The tma sweep's kernel: single's bounded for registers (kTmaSingleRegisters).
template <class T, int V, bool NORM, bool RANGE, bool DOWN, bool ZIGZAG>
MarchFn<T> march_tma_fn(bool l2_last) {
  if constexpr (sizeof(T) == 4)
    return l2_last ? &march3t_lean_sweep<T, V, NORM, RANGE, DOWN, ZIGZAG, true>
                   : &march3t_lean_sweep<T, V, NORM, RANGE, DOWN, ZIGZAG>;
  else
    return l2_last ? &march3t_sweep<T, V, NORM, RANGE, DOWN, ZIGZAG, true>
                   : &march3t_sweep<T, V, NORM, RANGE, DOWN, ZIGZAG>;
}

template <class T, int V, bool NORM, bool RANGE, bool DOWN>
MarchFn<T> march_row_in(Ahead a, bool zigzag, bool l2_last) {
  switch (a) {
    case Ahead::regs:
      return &march3v_sweep<T, V, 1, NORM, RANGE, true, DOWN>;
    case Ahead::tma:
      if constexpr (V * sizeof(T) == 16) {
        if constexpr (!RANGE)
          if (zigzag) return march_tma_fn<T, V, NORM, RANGE, DOWN, true>(l2_last);
        return march_tma_fn<T, V, NORM, RANGE, DOWN, false>(l2_last);
      }
      return &march3v_sweep<T, V, 1, NORM, RANGE, true, DOWN>;  // march_ahead never picks it
    default:
      return &march3v_sweep<T, V, 1, NORM, RANGE, false, DOWN>;
  }
}
template <class T, int V, bool NORM, bool RANGE>
MarchFn<T> march_row_as(int dim, Ahead a, bool down, bool zigzag, bool l2_last) {
  if (dim == 2) return &march2v_sweep<T, V, kMarch2Warps, NORM, RANGE>;
  if constexpr (!RANGE)
    if (down) return march_row_in<T, V, NORM, RANGE, true>(a, zigzag, l2_last);
  return march_row_in<T, V, NORM, RANGE, false>(a, zigzag, l2_last);
}

// Lets FN take BYTES of dynamic shared memory: raised, never lowered, as the limit is the
// function's, shared by every runner planned (a larger room's ring stays allowed).
template <class T>
void allow_shared(MarchFn<T> fn, std::size_t bytes) {
  cudaFuncAttributes at{};
  MM_CUDA(cudaFuncGetAttributes(&at, reinterpret_cast<const void*>(fn)));
  if (bytes > static_cast<std::size_t>(at.maxDynamicSharedSizeBytes))
    MM_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(fn),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(bytes)));
}

}  // namespace

template <class T, bool NORM, bool RANGE>
MarchFn<T> march_row_fn(int dim, int vec, Ahead a, bool down, bool zigzag, bool l2_last) {
  if constexpr (sizeof(T) == 4)
    if (vec == 4) return march_row_as<T, 4, NORM, RANGE>(dim, a, down, zigzag, l2_last);
  return vec == 2 ? march_row_as<T, 2, NORM, RANGE>(dim, a, down, zigzag, l2_last)
                  : march_row_as<T, 1, NORM, RANGE>(dim, a, down, zigzag, l2_last);
}

template <class T>
int resident_blocks(const MarchFn<T>* fns, std::size_t n, int threads, std::size_t shared) {
  int least = std::numeric_limits<int>::max();
  for (std::size_t i = 0; i < n; ++i) {
    if (shared) allow_shared(fns[i], shared);  // the occupancy asks for SHARED
    int per_sm = 0;
    MM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fns[i], threads, shared));
    least = std::min(least, per_sm);
  }
  return least;
}

// The plan takes the least occupancy of the kernels a run launches: with and without the
// change, marching up and down (a plan for more blocks than one of them holds leaves a wave of
// a few blocks: H200, N = 256, 0.75 of the copy against 0.90). Planning allows each kernel the
// shared memory of its launch (resident_blocks), so launch_march need not.
template <class T, bool RANGE>
Launch plan_march_rows(const HeatedRoom& room, int vec, const JacobiTuning& tuning,
                       std::int64_t planes) {
  JacobiTuning t = tuning;
  if (RANGE) t.order = 1;  // a slab's sweeps march up
  const Ahead a = march_ahead(t, sizeof(T), vec);
  const bool zigzag = !RANGE && t.order == 3 && a == Ahead::tma;
  // The L2 policy resolved once for a plan marching zigzag or not (ZZ): the kernels planned for
  // take it, and plan_march passes it on to the launch as given.
  const bool staged = room.dim == 3 && a == Ahead::tma;  // the policy is the tma stages'
  const auto resolved = [&](const JacobiTuning& as, bool zz) {
    JacobiTuning r = as;
    if (staged) r.l2 = march_l2(as, room, sizeof(T), gpu_memory_rich(), gpu_l2_bytes(), zz);
    return r;
  };
  const auto kernels = [&](bool down, bool zz, const JacobiTuning& as) {
    const bool last = staged && as.l2 == 2;
    return std::vector<MarchFn<T>>{march_row_fn<T, true, RANGE>(room.dim, vec, a, down, zz, last),
                                   march_row_fn<T, false, RANGE>(room.dim, vec, a, down, zz, last)};
  };
  const auto resident = [](const std::vector<MarchFn<T>>& fns, int threads, std::size_t shared) {
    return resident_blocks<T>(fns.data(), fns.size(), threads, shared);
  };
  const auto plan = [&](const std::vector<MarchFn<T>>& fns, const JacobiTuning& as) {
    return plan_march(
        room, vec, sizeof(T), 1, false, as, cuda::multiprocessors(),
        [&](int threads, std::size_t shared) { return resident(fns, threads, shared); }, planes);
  };
  // Planned for both directions (with or without zigzag's odd chunks the other way).
  const auto both = [&](bool zz, const JacobiTuning& given) {
    const JacobiTuning as = resolved(given, zz);
    std::vector<MarchFn<T>> fns = kernels(false, zz, as);
    const std::vector<MarchFn<T>> down = kernels(true, zz, as);
    fns.insert(fns.end(), down.begin(), down.end());
    return plan(fns, as);
  };
  const JacobiTuning straight = resolved(t, false);
  const std::vector<MarchFn<T>> up = kernels(false, false, straight);
  if (room.dim != 3 || march_order(t) < 2) return plan(up, straight);
  if (t.order >= 2) return both(zigzag, t);  // asked for
  // The code's choice: zigzag where its chunks are short (zigzag_wins), planned with its kernels.
  if (!RANGE && a == Ahead::tma && gpu_memory_rich()) {
    JacobiTuning z = t;
    z.order = 3;
    const Launch l = both(true, z);
    if (zigzag_wins(l)) return l;
  }
  const std::vector<MarchFn<T>> down = kernels(true, false, straight);
  // The code's choice: alternate where the kernels marching down (which may take more
  // registers) keep as many blocks resident as those marching up, else up (H100, N = 384 in
  // double, 18 warps: 58 registers down against 56 up, one block a multiprocessor against two;
  // 0.90 of the copy alternating against 0.96 up).
  Launch l = plan(up, straight);
  if (resident(down, l.threads, l.shared) < resident(up, l.threads, l.shared)) l.order = 1;
  return l;
}

// With DEPENDENT, the sweep's blocks may start (a tma sweep's set up their barriers) while the
// kernel before's last blocks finish, and wait for all of its memory before their first read
// (grid_dependency_wait). Only where the stream's previous operation is a kernel (not a
// distributed slab's, whose sweeps follow halo copies).
template <class T>
void launch_march(MarchFn<T> fn, const Launch& l, cudaStream_t stream, bool dependent,
                  const Room& room, const T* u, T* out, T src, T inv, const Change& c) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim =
      dim3(static_cast<unsigned>(l.gx), static_cast<unsigned>(l.gy), static_cast<unsigned>(l.gz));
  cfg.blockDim = dim3(static_cast<unsigned>(l.threads));
  cfg.dynamicSmemBytes = l.shared;
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  if (dependent) cfg.attrs = &attr, cfg.numAttrs = 1;
  const cudaError_t e =
      cudaLaunchKernelEx(&cfg, fn, room_for(room, l), u, out, src, inv, l.chunk, l.wx, c);
  if (e == cudaSuccess) return;
  // The launch against what the kernel takes, in the message.
  cudaGetLastError();
  cudaFuncAttributes at{};
  cudaFuncGetAttributes(&at, reinterpret_cast<const void*>(fn));
  const std::string what =
      "marching sweep launch: grid " + std::to_string(l.gx) + " x " + std::to_string(l.gy) + " x " +
      std::to_string(l.gz) + ", " + std::to_string(l.threads) + " threads, " +
      std::to_string(l.shared) + " dynamic shared bytes, ahead " + std::to_string(l.ahead) +
      ", order " + std::to_string(l.order) + " (the kernel: at most " +
      std::to_string(at.maxThreadsPerBlock) + " threads, " +
      std::to_string(at.maxDynamicSharedSizeBytes) + " dynamic shared bytes, " +
      std::to_string(at.sharedSizeBytes) + " static)";
  ::mm::cuda::check(e, what.c_str(), __FILE__, __LINE__);
}

namespace {

__global__ void sum_change_kernel(const double* partials, std::int64_t blocks, double* slot) {
  const double s = partials_sum<true>(partials, blocks);
  if (threadIdx.x == 0) *slot = s;
}

}  // namespace

void launch_sum_change(const Launch& l, const double* partials, double* slot, cudaStream_t stream) {
  sum_change_kernel<<<1, l.threads, 0, stream>>>(partials, l.blocks(), slot);
  MM_CUDA_LAUNCHED("stencil sum_change");
}

#define MM_STENCIL_ROWS(T)                                                                  \
  template MarchFn<T> march_row_fn<T, true, false>(int, int, Ahead, bool, bool, bool);      \
  template MarchFn<T> march_row_fn<T, false, false>(int, int, Ahead, bool, bool, bool);     \
  template MarchFn<T> march_row_fn<T, true, true>(int, int, Ahead, bool, bool, bool);       \
  template MarchFn<T> march_row_fn<T, false, true>(int, int, Ahead, bool, bool, bool);      \
  template int resident_blocks<T>(const MarchFn<T>*, std::size_t, int, std::size_t);        \
  template Launch plan_march_rows<T, false>(const HeatedRoom&, int, const JacobiTuning&,    \
                                            std::int64_t);                                  \
  template Launch plan_march_rows<T, true>(const HeatedRoom&, int, const JacobiTuning&,     \
                                           std::int64_t);                                   \
  template void launch_march<T>(MarchFn<T>, const Launch&, cudaStream_t, bool, const Room&, \
                                const T*, T*, T, T, const Change&);
MM_STENCIL_ROWS(float)
MM_STENCIL_ROWS(double)

}  // namespace mm::stencil
