// FP32 GEMM on the CUDA cores (FFMA, full single precision), C = alpha*A*B row-major: a block
// tile fed by a multi-stage cp.async pipeline (A transposed on its way into shared memory),
// warp tiles of 4x4 register blocks, fragments double-buffered in registers.
#include <climits>

#include "cuda/cp_async.cuh"
#include "cuda/cuda_util.cuh"
#include "cuda/gemm_runner.cuh"
#include "cuda/gemm_sgemm.hpp"

namespace mm {

namespace {

using Index = std::int64_t;

using cuda::cp_async;
using cuda::cp_async_commit;
using cuda::cp_async_wait;

// ---- the shapes -----------------------------------------------------------------------------
//
// Block tile BM x BN, k in slices of BK through STAGES shared buffers; WARPS_M x WARPS_N warps,
// each a WM x WN warp tile of LANES_M x LANES_N lanes, each lane TM x TN values in 4x4 blocks:
// lane (ly, lx) holds rows g*4*LANES_M + 4*ly + (0..3) and columns h*4*LANES_N + 4*lx + (0..3)
// of its warp tile. So one 16-byte shared load per 4 rows (or columns) per k: the lanes of a
// warp read 4*LANES_M (4*LANES_N) contiguous floats of a k row, each address shared by the
// lanes of one row (column) of the lane grid: broadcasts, no bank conflicts.
//
// Shared layout per stage: A transposed, [BK][BM + 4], then B as it is, [BK][BN]. A's copies
// are single floats (so A is transposed on the way): thread t copies rows t / 8 + R r of the
// tile (R = THREADS / 8) at k t % 8 + 8 g, so that each copy instruction of a warp reads 4 rows
// x 8 consecutive k (whole 32-byte sectors; a mapping with each thread on one row, its sources
// one pointer, ran at 0.82x cuBLAS instead of 0.89x on the H100: 4 to 8 times the sectors per
// instruction) and, with the row length = 4 (mod 32 banks), writes 32 different banks (4 k +
// row). The rows' sources are one pointer apart by R rows. B's copies are 16 bytes along its
// rows when N is a multiple of 4 (VEC; TPB threads a row of the slice, each VB vectors of one
// row), single floats otherwise.
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int LANES_M_, int TM_, int TN_,
          int STAGES_, int BLOCKS_PER_SM_>
struct SgemmShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
  static constexpr int LANES_M = LANES_M_, LANES_N = 32 / LANES_M_, TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_, BLOCKS_PER_SM = BLOCKS_PER_SM_;
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = LANES_M * TM, WN = LANES_N * TN;
  static constexpr int LDA = BM + 4, LDB = BN;
  static constexpr int STAGE = BK * (LDA + LDB);  // floats
  static constexpr std::size_t BYTES = std::size_t{STAGES} * STAGE * sizeof(float);
  static constexpr int R = THREADS / 8;                        // rows between a thread's A copies
  static constexpr int TPB = THREADS / BK, VB = BN / 4 / TPB;  // threads a row of B, vectors each
  static constexpr int B_COPIES = BK * BN / THREADS;           // single floats of B (not VEC)
  __host__ __device__ static constexpr int b_c(int v) { return v * 4 * TPB; }
  static_assert(32 % LANES_M == 0 && TM % 4 == 0 && TN % 4 == 0);
  static_assert(BM == WARPS_M * WM && BN == WARPS_N * WN, "warps cover the block tile");
  static_assert(BK % 8 == 0 && BM % R == 0 && LDA % 32 == 4,
                "A's transposing copies: whole sectors, free of bank conflicts");
  static_assert(THREADS % BK == 0 && BN / 4 % TPB == 0 && BK * BN % THREADS == 0,
                "B's copies: whole rows of vectors");
  static_assert(STAGES >= 2);
};

// Rows of tiles are taken GROUP at a time, column by column within the group, so the blocks
// running together share panels of A and of B in L2.
constexpr Index kGroup = 8;

// ---- the kernel -----------------------------------------------------------------------------

// The block tile at (BM0, BN0). FULL: the tile lies inside C, K is a multiple of BK, N of 4
// and R rows of A span fewer than INT_MAX floats (every tile but the edges of ordinary
// shapes): no bounds tests at all, and none of their values live through the loop. Otherwise
// every copy and store is tested (zero-filled outside the matrices).
template <class S, bool VEC, bool FULL>
__device__ __forceinline__ void sgemm_tile(Index m, Index n, Index k, const float* __restrict__ a,
                                           const float* __restrict__ b, float* __restrict__ c,
                                           float alpha, Index bm, Index bn, float* smem) {
  static_assert(VEC || !FULL);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / S::WARPS_N, wn = warp % S::WARPS_N;
  const int ly = lane / S::LANES_N, lx = lane % S::LANES_N;

  // One k slice of A and of B into stage BUF (the mapping: see SgemmShape). FULL: slices are
  // copied in order, a_src and b_src pointing at this thread's first float of A and vector of B
  // of the next slice; its other A rows are a_rows apart, the rest at offsets fixed at compile
  // time.
  const int a_r = tid / 8, a_k = tid % 8, b_r = tid / S::TPB, b_c = tid % S::TPB * 4;
  const int a_rows = FULL ? static_cast<int>(S::R * k) : 0;
  const float* a_src = a + (bm + a_r) * k + a_k;  // FULL only
  const float* b_src = b + b_r * n + bn + b_c;
  const auto load_stage = [&](int buf, int slice) {
    float* as = smem + buf * S::STAGE + a_k * S::LDA + a_r;
    float* bs = smem + buf * S::STAGE + S::BK * S::LDA + b_r * S::LDB + b_c;
    if constexpr (FULL) {
      const float* p = a_src;
#pragma unroll
      for (int r = 0; r < S::BM / S::R; ++r, p += a_rows)
#pragma unroll
        for (int g = 0; g < S::BK / 8; ++g)
          cp_async<4>(as + 8 * g * S::LDA + r * S::R, p + 8 * g, 4);
#pragma unroll
      for (int v = 0; v < S::VB; ++v) cp_async<16>(bs + S::b_c(v), b_src + S::b_c(v), 16);
      a_src += S::BK;
      b_src += S::BK * n;
    } else {
      const Index k0 = Index{slice} * S::BK;
#pragma unroll
      for (int r = 0; r < S::BM / S::R; ++r)
#pragma unroll
        for (int g = 0; g < S::BK / 8; ++g) {
          const Index ar = bm + a_r + r * S::R, kk = k0 + a_k + 8 * g;
          const bool ok = ar < m && kk < k;
          cp_async<4>(as + 8 * g * S::LDA + r * S::R, ok ? a + ar * k + kk : a, ok ? 4 : 0);
        }
      if constexpr (VEC) {
        const Index br = k0 + b_r;
#pragma unroll
        for (int v = 0; v < S::VB; ++v) {
          const Index col = bn + b_c + S::b_c(v);
          const bool ok = br < k && col < n;  // N % 4 == 0: the whole vector is in or out
          cp_async<16>(bs + S::b_c(v), ok ? b + br * n + col : b, ok ? 16 : 0);
        }
      } else {  // single floats, the block's copy e at row e / BN, column e % BN
        float* bs0 = smem + buf * S::STAGE + S::BK * S::LDA;
#pragma unroll
        for (int j = 0; j < S::B_COPIES; ++j) {
          const int e = j * S::THREADS + tid, r = e / S::BN, col = e % S::BN;
          const Index br = k0 + r, gc = bn + col;
          const bool ok = br < k && gc < n;
          cp_async<4>(bs0 + r * S::LDB + col, ok ? b + br * n + gc : b, ok ? 4 : 0);
        }
      }
    }
  };

  // This lane's fragments of k row Q of a stage: TM values of A^T, TN of B, 16 bytes a load.
  const int a_off = wm * S::WM + ly * 4, b_off = S::BK * S::LDA + wn * S::WN + lx * 4;
  const auto load_frags = [&](float(&fa)[S::TM], float(&fb)[S::TN], const float* st, int q) {
#pragma unroll
    for (int g = 0; g < S::TM / 4; ++g) {
      const float4 v =
          *reinterpret_cast<const float4*>(st + q * S::LDA + a_off + g * 4 * S::LANES_M);
      fa[4 * g] = v.x, fa[4 * g + 1] = v.y, fa[4 * g + 2] = v.z, fa[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < S::TN / 4; ++h) {
      const float4 v =
          *reinterpret_cast<const float4*>(st + q * S::LDB + b_off + h * 4 * S::LANES_N);
      fb[4 * h] = v.x, fb[4 * h + 1] = v.y, fb[4 * h + 2] = v.z, fb[4 * h + 3] = v.w;
    }
  };

  float acc[S::TM][S::TN];
#pragma unroll
  for (int i = 0; i < S::TM; ++i)
#pragma unroll
    for (int j = 0; j < S::TN; ++j) acc[i][j] = 0.f;

  const int ktiles = static_cast<int>((k + S::BK - 1) / S::BK);  // launch_shape: < INT_MAX
#pragma unroll
  for (int s = 0; s < S::STAGES - 1; ++s) {
    if (s < ktiles) load_stage(s, s);
    cp_async_commit();  // empty groups too: the count in the waits below stays uniform
  }
  cp_async_wait<S::STAGES - 2>();
  __syncthreads();

  // Slice kt is read from stage rs; slice kt + STAGES - 1 is copied into stage ws, the one
  // slice kt - 1 was read from. The wait and barrier come before the last k row of a slice,
  // so that the first fragments of the next slice load while the last row's FFMAs run: after
  // the barrier the next slice has landed for every thread, and every thread has read its
  // last fragments of slice kt - 1 (loaded at row BK - 2 of the previous slice, before the
  // previous barrier), so its stage may be refilled at row 0.
  float fa[2][S::TM], fb[2][S::TN];
  int rs = 0, ws = S::STAGES - 1;
  const float* rd = smem;
  load_frags(fa[0], fb[0], rd, 0);
  for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
    for (int q = 0; q < S::BK; ++q) {
      if (q == S::BK - 1) {
        cp_async_wait<S::STAGES - 2>();
        __syncthreads();
        rs = rs + 1 == S::STAGES ? 0 : rs + 1;
        rd = smem + rs * S::STAGE;
      }
      load_frags(fa[(q + 1) % 2], fb[(q + 1) % 2], rd, (q + 1) % S::BK);
      if (q == 0) {
        if (kt + S::STAGES - 1 < ktiles) load_stage(ws, kt + S::STAGES - 1);
        cp_async_commit();
        ws = ws + 1 == S::STAGES ? 0 : ws + 1;
      }
#pragma unroll
      for (int i = 0; i < S::TM; ++i)
#pragma unroll
        for (int j = 0; j < S::TN; ++j) acc[i][j] = fmaf(fa[q % 2][i], fb[q % 2][j], acc[i][j]);
    }
  }
  cp_async_wait<0>();  // nothing real is pending (only empty groups); leave none behind

  // Straight from the registers, 4 consecutive columns a store.
#pragma unroll
  for (int i = 0; i < S::TM; ++i) {
    const Index row = bm + wm * S::WM + i / 4 * 4 * S::LANES_M + ly * 4 + i % 4;
    if (!FULL && row >= m) continue;
#pragma unroll
    for (int h = 0; h < S::TN / 4; ++h) {
      const Index col = bn + wn * S::WN + h * 4 * S::LANES_N + lx * 4;
      const float v[4] = {alpha * acc[i][4 * h], alpha * acc[i][4 * h + 1],
                          alpha * acc[i][4 * h + 2], alpha * acc[i][4 * h + 3]};
      if constexpr (VEC) {  // N % 4 == 0: col < n means all 4 are inside, 16-byte aligned
        if (FULL || col < n)
          *reinterpret_cast<float4*>(c + row * n + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (col + e < n) c[row * n + col + e] = v[e];
      }
    }
  }
}

template <class S, bool VEC>
__global__ void __launch_bounds__(S::THREADS, S::BLOCKS_PER_SM)
    sgemm_kernel(Index m, Index n, Index k, const float* __restrict__ a,
                 const float* __restrict__ b, float* __restrict__ c, float alpha) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  float* smem = reinterpret_cast<float*>(smem_raw);
  const Index tiles_m = (m + S::BM - 1) / S::BM, tiles_n = (n + S::BN - 1) / S::BN;
  const Index per_group = kGroup * tiles_n, first = blockIdx.x / per_group * kGroup;
  const Index rows_here = tiles_m - first < kGroup ? tiles_m - first : kGroup;
  const Index in = blockIdx.x % per_group;
  const Index bm = (first + in % rows_here) * S::BM, bn = in / rows_here * S::BN;
  if constexpr (VEC) {
    if (bm + S::BM <= m && bn + S::BN <= n && k % S::BK == 0 && k <= INT_MAX / S::R) {
      sgemm_tile<S, true, true>(m, n, k, a, b, c, alpha, bm, bn, smem);
      return;
    }
  }
  sgemm_tile<S, VEC, false>(m, n, k, a, b, c, alpha, bm, bn, smem);
}

// ---- the configurations and the Runner ------------------------------------------------------
//
// Measured on an H100 (x cuBLAS SGEMM at n = 4096 / 8192, same run; bench/results/
// sgemm_h100_2026-11-25_e1119e3.md): the loop issues per k slice the FFMAs, 6 (8x16 a thread)
// or 4 (8x8) 16-byte shared loads a k row, the copies and the bookkeeping, and the rate
// followed the FFMA share of those instructions (SASS of the interior loop): 128x256 with k
// slices of 8 / 16 / 32: 91 / 93 / 94% of the instructions, 0.91-0.92 / 0.93 / 0.94-0.95x;
// 128x128 of 8x8 with slices of 16: 89%, 0.89 / 0.90 (slices of 8: 85%, 0.87; 4 stages: the
// same); 128x128 with 128 threads of 8x16: 0.83, with slices of 16 0.88 / 0.90. Slices of 32
// lose at n = 2048 (0.88 against 0.95 for 16: 128 blocks, one wave, a longer pipeline fill).

// 128x256 block, 8 warps of 64x64 (8x4 lanes of 8x16), k slices of 16 in 3 stages (74 KB of
// shared memory), one block a multiprocessor with up to 255 registers.
using Shape256K16 = SgemmShape<128, 256, 16, 2, 4, 8, 8, 16, 3, 1>;
// The same with slices of 32 (149 KB).
using Shape256K32 = SgemmShape<128, 256, 32, 2, 4, 8, 8, 16, 3, 1>;
// 128x128 block, 8 warps of 32x64 (4x8 lanes of 8x8), slices of 16 (50 KB), at most 128
// registers so that two blocks share a multiprocessor: more blocks for small products.
using Shape128K16 = SgemmShape<128, 128, 16, 4, 2, 4, 8, 8, 3, 2>;

template <class S>
void launch_shape(Index m, Index n, Index k, const float* a, const float* b, float* c,
                  float alpha) {
  const unsigned grid = cuda::grid_1d(cuda::output_tiles(m, n, S::BM, S::BN), "gemm");
  if ((k + S::BK - 1) / S::BK > INT_MAX)  // the kernel counts k slices in int
    throw DeviceError("gemm: k = " + std::to_string(k) + " is too long");
  if (n % 4 == 0)
    sgemm_kernel<S, true><<<grid, S::THREADS, S::BYTES>>>(m, n, k, a, b, c, alpha);
  else
    sgemm_kernel<S, false><<<grid, S::THREADS, S::BYTES>>>(m, n, k, a, b, c, alpha);
  MM_CUDA_LAUNCHED("gemm sgemm_kernel");
}

// Dynamic shared memory above the 48 KB default is asked for explicitly; the carveout leans
// to shared memory so that BLOCKS_PER_SM blocks fit.
template <class S>
void prepare_shape() {
  for (const auto f : {sgemm_kernel<S, true>, sgemm_kernel<S, false>}) {
    MM_CUDA(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(S::BYTES)));
    MM_CUDA(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared));
  }
}

template <class S>
std::unique_ptr<Runner> make_shape(const GemmProblem<float>& p) {
  return std::make_unique<cuda::ShapedGemmRunner<float>>(p, prepare_shape<S>, launch_shape<S>);
}

}  // namespace

std::unique_ptr<Runner> make_gemm_sgemm(const GemmProblem<float>& p, SgemmConfig cfg) {
  switch (cfg) {
    case SgemmConfig::b128x256k32:
      return make_shape<Shape256K32>(p);
    case SgemmConfig::b128x128k16:
      return make_shape<Shape128K16>(p);
    case SgemmConfig::b128x256k16:
      break;
  }
  return make_shape<Shape256K16>(p);
}

}  // namespace mm
