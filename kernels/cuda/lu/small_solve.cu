// cuda-blocked's small triangular solve: a warp per column of B, forward substitution in
// registers, L staged through shared memory 32 columns at a time.
#include "cuda/cp_async.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/lu/pdl.cuh"
#include "cuda/lu/small_solve.cuh"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm::cuda::lu {

namespace {

using detail::pdl_trigger;
using detail::pdl_wait;
using detail::with_pdl;

// Tuning. 16 columns of B a block (a warp each): 128 bytes of each row of B in double, and each
// chunk of L staged once for all 16. Up to kStages chunks of L (32 of its columns, the rows
// from the chunk's diagonal block down) in flight: the next ones load while one is used.
constexpr int kWarps = 16;
constexpr int kThreads = 32 * kWarps;
constexpr int kStages = 3;
// A staged row: 32 values and one more, so that lanes' rows hit distinct banks.
constexpr int kPad = 33;

// The stages a solve of 32 J rows uses, and its shared memory.
template <int J>
__host__ __device__ constexpr int stages() {
  return J < kStages ? J : kStages;
}
template <class D, int J>
constexpr std::size_t smem_bytes() {
  return static_cast<std::size_t>(stages<J>()) * 32 * J * kPad * sizeof(D);
}

// J: rows a lane, k <= 32 J. Lane q of warp w holds rows q, q + 32, ... of column c = the
// block's first + w. Chunk jb of L (its columns 32 jb .. 32 jb + 31, rows 32 jb .. k - 1) lands
// in stage jb % S; each of its 32 steps broadcasts row p = 32 jb + q, final, and subtracts it
// from the rows below.
template <class D, int J>
__global__ void __launch_bounds__(kThreads)
    solve_kernel(const D* __restrict__ l, Index ldl, D* __restrict__ b, Index ldb, int k,
                 Index cols) {
  constexpr int S = stages<J>(), R = 32 * J;
  pdl_wait();  // the panel stream's kernel before (pdl=on): finished, its writes visible
  pdl_trigger();
  extern __shared__ __align__(16) unsigned char smem[];
  D* const ring = reinterpret_cast<D*>(smem);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const Index c = static_cast<Index>(blockIdx.x) * kWarps + threadIdx.x / 32;
  const bool mine = c < cols;  // warps past B's last column stage L and wait, nothing more
  const int chunks = (k + 31) / 32;
  const auto load = [&](int jb) {  // then a commit, empty past the last chunk
    if (jb < chunks) {
      D* const dst = ring + (jb % S) * R * kPad;
      const int r0 = 32 * jb, w = k - r0 < 32 ? k - r0 : 32;
      for (int e = static_cast<int>(threadIdx.x); e < (k - r0) * 32; e += kThreads) {
        const int ii = e / 32, q = e % 32;
        if (q < w)
          cp_async<sizeof(D)>(dst + ii * kPad + q, l + (r0 + ii) * ldl + r0 + q, sizeof(D));
      }
    }
    cp_async_commit();
  };
  for (int s = 0; s < S; ++s) load(s);
  D x[J];
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int i = 32 * j + lane;
    x[j] = mine && i < k ? b[i * ldb + c] : D{};
  }
#pragma unroll
  for (int jb = 0; jb < J; ++jb) {
    if (32 * jb >= k) break;  // the block's threads alike
    cp_async_wait<S - 1>();
    __syncthreads();  // chunk jb landed, for every thread
    const D* const ch = ring + (jb % S) * R * kPad;
    const int q1 = k - 32 * jb < 32 ? k - 32 * jb : 32;
    if (mine) {
#pragma unroll 8
      for (int q = 0; q < q1; ++q) {
        const D u = __shfl_sync(0xffffffffu, x[jb], q);  // row 32 jb + q, final
#pragma unroll
        for (int j = jb; j < J; ++j) {
          const int i = 32 * j + lane;
          if ((j > jb || lane > q) && i < k) x[j] -= ch[(i - 32 * jb) * kPad + q] * u;
        }
      }
    }
    __syncthreads();  // stage jb % S read by every warp: free for chunk jb + S
    load(jb + S);
  }
  if (!mine) return;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int i = 32 * j + lane;
    if (i < k) b[i * ldb + c] = x[j];
  }
}

// KERNEL's launch of BLOCKS blocks of THREADS threads and SMEM bytes on ST, as a programmatic
// dependent of the stream's kernel before where PDL.
template <class K, class... Args>
void launch_on(K* kernel, unsigned blocks, int threads, std::size_t smem, cudaStream_t st, bool pdl,
               Args... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cudaLaunchAttribute attr[1]{};
  cfg.attrs = attr;
  with_pdl(cfg, attr, pdl);
  MM_CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// Lets each instantiation take its shared memory (above the 48 KB default from J = 4), once.
template <class D, int J>
void allow() {
  static const bool done = [] {
    MM_CUDA(cudaFuncSetAttribute(solve_kernel<D, J>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(smem_bytes<D, J>())));
    return true;
  }();
  (void)done;
}

template <class D, int J>
void launch(const D* l, Index ldl, D* b, Index ldb, int k, Index c, cudaStream_t st, bool pdl) {
  allow<D, J>();
  const auto blocks = static_cast<unsigned>((c + kWarps - 1) / kWarps);
  launch_on(solve_kernel<D, J>, blocks, kThreads, smem_bytes<D, J>(), st, pdl, l, ldl, b, ldb, k,
            c);
}

}  // namespace

template <class T>
void small_solve_prepare() {
  if constexpr (kSmallSolveTakes<T>) {
    allow<T, 1>();
    allow<T, 2>();
    allow<T, 4>();
    allow<T, 8>();
  }
}

template <class T>
void small_solve_lower_unit(const T* l, Index ldl, T* b, Index ldb, int k, Index c, cudaStream_t st,
                            bool pdl) {
  if constexpr (!kSmallSolveTakes<T>) {
    throw DeviceError("small_solve_lower_unit: real values only");
  } else {
    if (k <= 1 || c <= 0) return;  // row 0 stays
    if (k > kSmallSolveRows) throw DeviceError("small_solve_lower_unit: more than 256 rows");
    if (k <= 32)
      launch<T, 1>(l, ldl, b, ldb, k, c, st, pdl);
    else if (k <= 64)
      launch<T, 2>(l, ldl, b, ldb, k, c, st, pdl);
    else if (k <= 128)
      launch<T, 4>(l, ldl, b, ldb, k, c, st, pdl);
    else
      launch<T, 8>(l, ldl, b, ldb, k, c, st, pdl);
  }
}

#define MM_LU_SMALL_SOLVE(T)                                                                    \
  template void small_solve_prepare<T>();                                                       \
  template void small_solve_lower_unit<T>(const T*, Index, T*, Index, int, Index, cudaStream_t, \
                                          bool);
MM_FOR_VALUE_TYPES(MM_LU_SMALL_SOLVE)

}  // namespace mm::cuda::lu

namespace mm {

template <class T>
void lu_cuda_small_solve(Dense<T>& m, int k, std::int64_t c) {
  using namespace cuda::lu;
  if (!kSmallSolveTakes<T>) throw UsageError("lu_cuda_small_solve: real values only");
  if (k < 0 || k > kSmallSolveRows || k > m.rows || c < 0 || k + c > m.cols)
    throw UsageError("lu_cuda_small_solve: the block is not inside M");
  cuda::Buffer<T> d(m.data.data(), m.data.size());
  small_solve_lower_unit(d.get(), m.cols, d.get() + k, m.cols, k, c, cudaStreamLegacy);
  MM_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
  d.download(m.data.data(), m.data.size());
}

#define MM_LU_SMALL_SOLVE_TEST(T) \
  template void lu_cuda_small_solve<T>(Dense<T>&, int, std::int64_t);
MM_FOR_VALUE_TYPES(MM_LU_SMALL_SOLVE_TEST)

}  // namespace mm
