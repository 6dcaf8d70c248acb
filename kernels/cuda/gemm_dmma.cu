// FP64 GEMM on the tensor cores through mma.sync (DMMA), C = alpha*A*B row-major: a block
// tile fed by a multi-stage cp.async pipeline, warp tiles of fragments held in registers.
#include <algorithm>
#include <climits>

#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.cuh"
#include "cuda/gemm_cuda.hpp"
#include "cuda/gemm_runner.cuh"

namespace mm {

namespace {

using Index = std::int64_t;

// ---- the MMA instructions -------------------------------------------------------------------
//
// Shape MM x 8 x MK (MM 8: m8n8k4, sm_80; MM 16: m16n8k{4,8,16}, sm_90). With g = lane / 4
// and t = lane % 4 (PTX ISA, "matrix fragments for mma.m16n8k*" with .f64):
//   a[j * (MM/8) + h] = A(g + 8h, t + 4j)      j < MK/4, h < MM/8
//   b[j]              = B(t + 4j, g)
//   c[2h + e]         = C(g + 8h, 2t + e)      e < 2
template <int MM, int MK>
struct Dmma {
  static constexpr int A = (MM / 8) * (MK / 4), B = MK / 4, C = MM / 4;
};

template <int MM, int MK>
__device__ __forceinline__ void dmma(double (&c)[Dmma<MM, MK>::C],
                                     const double (&a)[Dmma<MM, MK>::A],
                                     const double (&b)[Dmma<MM, MK>::B]) {
  if constexpr (MM == 8 && MK == 4) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a[0]), "d"(b[0]));
  } else if constexpr (MM == 16 && MK == 4) {
    asm volatile(
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  } else if constexpr (MM == 16 && MK == 8) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else {
    static_assert(MM == 16 && MK == 16, "m8n8k4 or m16n8k{4,8,16}");
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
}

using cuda::cp_async;
using cuda::cp_async_commit;
using cuda::cp_async_wait;

// ---- the kernel -----------------------------------------------------------------------------
//
// Block tile BM x BN, k in slices of BK through STAGES shared buffers; warps of WM x WN, each a
// grid of (WM/MM) x (WN/8) accumulator fragments in registers. Shared layout per stage: A as
// [BM][BK + 4] and B as [BK][BN + 4] doubles. The pad of 4 doubles (32 bytes) puts the 4
// groups g of a fragment load 4 banks apart, so the 16 lanes of each half warp (g = 0..3 x
// t = 0..3) read 16 different 8-byte bank pairs: A at g*(BK+4) + t, B at t*(BN+4) + g, both
// with the row stride = 4 (mod 16). Rows stay 16-byte aligned for cp.async.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MM_, int MK_>
struct DmmaShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr int MM = MM_, MK = MK_;
  static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int MI = WM / MM, NI = WN / 8;
  static constexpr int LDA = BK + 4, LDB = BN + 4;
  static constexpr int STAGE = BM * LDA + BK * LDB;  // doubles
  static constexpr std::size_t BYTES = std::size_t{STAGES} * STAGE * sizeof(double);
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % MM == 0 && WN % 8 == 0 && BK % MK == 0);
  static_assert(LDA % 16 == 4 || LDA % 16 == 12, "fragment loads free of bank conflicts");
  static_assert(LDB % 16 == 4 || LDB % 16 == 12, "fragment loads free of bank conflicts");
  static_assert(BM * BK % (2 * THREADS) == 0 && BK * BN % (2 * THREADS) == 0,
                "whole 16-byte copies per thread");
  static_assert(STAGES >= 2);
};

// Rows of tiles are taken GROUP at a time, column by column within the group, so the blocks
// running together share panels of A and of B in L2.
constexpr Index kGroup = 8;

template <class S, bool VEC>
__global__ void __launch_bounds__(S::THREADS, 1)
    dmma_kernel(Index m, Index n, Index k, const double* __restrict__ a,
                const double* __restrict__ b, double* __restrict__ c, double alpha) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  double* smem = reinterpret_cast<double*>(smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int wm = warp / S::WARPS_N, wn = warp % S::WARPS_N;

  const Index tiles_m = (m + S::BM - 1) / S::BM, tiles_n = (n + S::BN - 1) / S::BN;
  const Index per_group = kGroup * tiles_n, first = blockIdx.x / per_group * kGroup;
  const Index rows_here = tiles_m - first < kGroup ? tiles_m - first : kGroup;
  const Index in = blockIdx.x % per_group;
  const Index bm = (first + in % rows_here) * S::BM, bn = in / rows_here * S::BN;

  // One k slice of A and of B into stage BUF, each thread a fixed set of 16-byte chunks
  // (VEC: K and N even, so a chunk is wholly inside or outside) or of single doubles.
  const auto load_stage = [&](int buf, Index k0) {
    double* as = smem + buf * S::STAGE;
    double* bs = as + S::BM * S::LDA;
    constexpr int E = VEC ? 2 : 1;
#pragma unroll
    for (int q = 0; q < S::BM * S::BK / E / S::THREADS; ++q) {
      const int v = q * S::THREADS + tid, r = v / (S::BK / E), col = v % (S::BK / E) * E;
      const Index gr = bm + r, gc = k0 + col;
      const bool ok = gr < m && gc < k;
      cp_async<8 * E>(as + r * S::LDA + col, ok ? a + gr * k + gc : a, ok ? 8 * E : 0);
    }
#pragma unroll
    for (int q = 0; q < S::BK * S::BN / E / S::THREADS; ++q) {
      const int v = q * S::THREADS + tid, r = v / (S::BN / E), col = v % (S::BN / E) * E;
      const Index gr = k0 + r, gc = bn + col;
      const bool ok = gr < k && gc < n;
      cp_async<8 * E>(bs + r * S::LDB + col, ok ? b + gr * n + gc : b, ok ? 8 * E : 0);
    }
  };

  double acc[S::MI][S::NI][Dmma<S::MM, S::MK>::C];
#pragma unroll
  for (int i = 0; i < S::MI; ++i)
#pragma unroll
    for (int j = 0; j < S::NI; ++j)
#pragma unroll
      for (int e = 0; e < Dmma<S::MM, S::MK>::C; ++e) acc[i][j][e] = 0;

  const Index ktiles = (k + S::BK - 1) / S::BK;
#pragma unroll
  for (int s = 0; s < S::STAGES - 1; ++s) {
    if (s < ktiles) load_stage(s, s * Index{S::BK});
    cp_async_commit();  // empty groups too: the count in the wait below stays uniform
  }
  for (Index kt = 0; kt < ktiles; ++kt) {
    // Slice kt has landed (at most STAGES-2 newer groups pending); after the barrier every
    // thread sees it, and every thread is done with slice kt-1, whose buffer is refilled next.
    cp_async_wait<S::STAGES - 2>();
    __syncthreads();
    const Index next = kt + S::STAGES - 1;
    if (next < ktiles) load_stage(static_cast<int>(next % S::STAGES), next * S::BK);
    cp_async_commit();

    const double* as = smem + static_cast<int>(kt % S::STAGES) * S::STAGE + wm * S::WM * S::LDA;
    const double* bs =
        smem + static_cast<int>(kt % S::STAGES) * S::STAGE + S::BM * S::LDA + wn * S::WN;
#pragma unroll
    for (int kk = 0; kk < S::BK; kk += S::MK) {
      double fa[S::MI][Dmma<S::MM, S::MK>::A], fb[S::NI][Dmma<S::MM, S::MK>::B];
#pragma unroll
      for (int i = 0; i < S::MI; ++i)
#pragma unroll
        for (int j = 0; j < S::MK / 4; ++j)
#pragma unroll
          for (int h = 0; h < S::MM / 8; ++h)
            fa[i][j * (S::MM / 8) + h] = as[(i * S::MM + g + 8 * h) * S::LDA + kk + t + 4 * j];
#pragma unroll
      for (int nn = 0; nn < S::NI; ++nn)
#pragma unroll
        for (int j = 0; j < S::MK / 4; ++j) fb[nn][j] = bs[(kk + t + 4 * j) * S::LDB + nn * 8 + g];
#pragma unroll
      for (int i = 0; i < S::MI; ++i)
#pragma unroll
        for (int nn = 0; nn < S::NI; ++nn) dmma<S::MM, S::MK>(acc[i][nn], fa[i], fb[nn]);
    }
  }
  cp_async_wait<0>();  // nothing real is pending (only empty groups); leave none behind

  // Straight from the registers: each lane owns pairs of adjacent columns (2t, 2t+1).
#pragma unroll
  for (int i = 0; i < S::MI; ++i)
#pragma unroll
    for (int h = 0; h < S::MM / 8; ++h) {
      const Index row = bm + wm * S::WM + i * S::MM + g + 8 * h;
      if (row >= m) continue;
#pragma unroll
      for (int nn = 0; nn < S::NI; ++nn) {
        const Index col = bn + wn * S::WN + nn * 8 + 2 * t;
        const double v0 = alpha * acc[i][nn][2 * h], v1 = alpha * acc[i][nn][2 * h + 1];
        if constexpr (VEC) {  // N even: col even and col < n imply col + 1 < n, 16-byte aligned
          if (col < n) *reinterpret_cast<double2*>(c + row * n + col) = make_double2(v0, v1);
        } else {
          if (col < n) c[row * n + col] = v0;
          if (col + 1 < n) c[row * n + col + 1] = v1;
        }
      }
    }
}

// ---- the configurations and the Runner ---------------------------------------------------------

// 128x128 block, 8 warps of 64x32 each (per k step of 4 a warp loads 12 fragment doubles a
// lane for 16 MMAs), one block per multiprocessor. Measured on the H200 at n = 8192 (cuBLAS
// DGEMM 57.6 TFLOP/s): k slices of 32 in 3 stages (209 KB of shared memory) 48.3 TFLOP/s
// (0.84x); slices of 16 in 4 stages (146 KB) 45.7 (0.79x); the same with m16n8k8 / m16n8k16
// 43.7 / 43.8, on a 128x64 block of 4 warps (two blocks per SM) 44.3; with m8n8k4 (twice the
// MMA instructions, each B fragment loaded for 8 rows instead of 16) 27.0 (0.47x).
using ShapeBK32 = DmmaShape<128, 128, 32, 64, 32, 3, 16, 4>;
using ShapeBK16 = DmmaShape<128, 128, 16, 64, 32, 4, 16, 4>;
using Shape884 = DmmaShape<128, 128, 16, 64, 32, 4, 8, 4>;

template <class S>
void launch_shape(Index m, Index n, Index k, const double* a, const double* b, double* c,
                  double alpha) {
  const unsigned grid = cuda::grid_1d(cuda::output_tiles(m, n, S::BM, S::BN), "gemm");
  if (k % 2 == 0 && n % 2 == 0)
    dmma_kernel<S, true><<<grid, S::THREADS, S::BYTES>>>(m, n, k, a, b, c, alpha);
  else
    dmma_kernel<S, false><<<grid, S::THREADS, S::BYTES>>>(m, n, k, a, b, c, alpha);
  MM_CUDA_LAUNCHED("gemm dmma_kernel");
}

template <class S>
void allow_shared() {  // above the 48 KB default: asked for explicitly
  const int bytes = static_cast<int>(S::BYTES);
  MM_CUDA(cudaFuncSetAttribute(dmma_kernel<S, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               bytes));
  MM_CUDA(cudaFuncSetAttribute(dmma_kernel<S, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               bytes));
}

template <class S>
std::unique_ptr<Runner> make_shape(const GemmProblem<double>& p) {
  return std::make_unique<cuda::ShapedGemmRunner<double>>(p, allow_shared<S>, launch_shape<S>);
}

}  // namespace

std::unique_ptr<Runner> make_gemm_dmma(const GemmProblem<double>& p, DmmaConfig cfg) {
  switch (cfg) {
    case DmmaConfig::bk16:
      return make_shape<ShapeBK16>(p);
    case DmmaConfig::m8n8k4:
      return make_shape<Shape884>(p);
    case DmmaConfig::bk32:
      break;
  }
  return make_shape<ShapeBK32>(p);
}

}  // namespace mm
