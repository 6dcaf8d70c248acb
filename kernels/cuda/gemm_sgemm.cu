// FP32 GEMM on the CUDA cores (FFMA, full single precision), C = alpha*A*B row-major: a block
// tile fed by a multi-stage cp.async pipeline (A transposed on its way into shared memory),
// warp tiles of 4x4 register blocks, fragments double-buffered in registers.
#include <climits>

#include "cuda/cuda_util.cuh"
#include "cuda/gemm_sgemm.hpp"

namespace mm {

namespace {

using Index = std::int64_t;

// ---- asynchronous copies into shared memory -------------------------------------------------

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// BYTES (4 or 16) from global to shared; SRC_BYTES of them read (BYTES, or 0: nothing is read
// and the destination is zeroed, for the parts of a tile outside the matrix). The 4-byte form
// lets a thread scatter single floats, which is how A is transposed on the way in.
template <int BYTES>
__device__ __forceinline__ void cp_async(void* dst, const void* src, int src_bytes) {
  static_assert(BYTES == 16 || BYTES == 4);
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

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
// are single floats: copy e of the block takes row (e / 8) % BM and k (e / 8 / BM) * 8 + e % 8,
// so a warp reads 4 rows x 8 consecutive k (whole 32-byte sectors) and, with the row length
// = 4 (mod 32 banks), writes 32 different banks (4 * k + row). B's copies are 16 bytes along
// its rows when N is a multiple of 4 (VEC), single floats otherwise.
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
  static constexpr int A_COPIES = BM * BK / THREADS;  // single floats of A a thread a slice
  static constexpr int B_VECS = BK * BN / 4 / THREADS, B_COPIES = BK * BN / THREADS;
  static_assert(32 % LANES_M == 0 && TM % 4 == 0 && TN % 4 == 0);
  static_assert(BM == WARPS_M * WM && BN == WARPS_N * WN, "warps cover the block tile");
  static_assert(BK % 8 == 0 && LDA % 32 == 4, "A's transposing copies free of bank conflicts");
  static_assert(BM * BK % THREADS == 0 && BK * BN % (4 * THREADS) == 0, "whole copies a thread");
  static_assert(BM % (THREADS / 8) == 0, "a thread's A copies: one row offset, k offsets of 8");
  static_assert(STAGES >= 2);
};

// Rows of tiles are taken GROUP at a time, column by column within the group, so the blocks
// running together share panels of A and of B in L2.
constexpr Index kGroup = 8;

// ---- the kernel -----------------------------------------------------------------------------

template <class S, bool VEC>
__global__ void __launch_bounds__(S::THREADS, S::BLOCKS_PER_SM)
    sgemm_kernel(Index m, Index n, Index k, const float* __restrict__ a,
                 const float* __restrict__ b, float* __restrict__ c, float alpha) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  float* smem = reinterpret_cast<float*>(smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / S::WARPS_N, wn = warp % S::WARPS_N;
  const int ly = lane / S::LANES_N, lx = lane % S::LANES_N;

  const Index tiles_m = (m + S::BM - 1) / S::BM, tiles_n = (n + S::BN - 1) / S::BN;
  const Index per_group = kGroup * tiles_n, first = blockIdx.x / per_group * kGroup;
  const Index rows_here = tiles_m - first < kGroup ? tiles_m - first : kGroup;
  const Index in = blockIdx.x % per_group;
  const Index bm = (first + in % rows_here) * S::BM, bn = in / rows_here * S::BN;

  // One k slice of A and of B into stage BUF. This thread's A copies share row tid / 8 plus
  // a multiple of THREADS / 8 and k tid % 8 plus a multiple of 8 (see SgemmShape). A slice
  // wholly inside the matrices (all but the edges) takes the copies without bounds tests.
  const Index a_row = bm + tid / 8;
  const int a_k = tid % 8;
  const bool tile_in = bm + S::BM <= m && bn + S::BN <= n;
  const auto load_stage = [&](int buf, Index k0) {
    float* as = smem + buf * S::STAGE;
    float* bs = as + S::BK * S::LDA;
    constexpr int R = S::THREADS / 8;
    if (tile_in && k0 + S::BK <= k) {
#pragma unroll
      for (int j = 0; j < S::A_COPIES; ++j) {
        const int dr = j * R % S::BM, dk = j * R / S::BM * 8;  // compile-time after unrolling
        cp_async<4>(as + (a_k + dk) * S::LDA + tid / 8 + dr, a + (a_row + dr) * k + k0 + a_k + dk,
                    4);
      }
      if constexpr (VEC) {
#pragma unroll
        for (int j = 0; j < S::B_VECS; ++j) {
          const int e = j * S::THREADS + tid, r = e / (S::BN / 4), col = e % (S::BN / 4) * 4;
          cp_async<16>(bs + r * S::LDB + col, b + (k0 + r) * n + bn + col, 16);
        }
      } else {
#pragma unroll
        for (int j = 0; j < S::B_COPIES; ++j) {
          const int e = j * S::THREADS + tid, r = e / S::BN, col = e % S::BN;
          cp_async<4>(bs + r * S::LDB + col, b + (k0 + r) * n + bn + col, 4);
        }
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < S::A_COPIES; ++j) {
      const int dr = j * R % S::BM, dk = j * R / S::BM * 8;
      const Index gr = a_row + dr, gc = k0 + a_k + dk;
      const bool ok = gr < m && gc < k;
      cp_async<4>(as + (a_k + dk) * S::LDA + tid / 8 + dr, ok ? a + gr * k + gc : a, ok ? 4 : 0);
    }
    if constexpr (VEC) {
#pragma unroll
      for (int j = 0; j < S::B_VECS; ++j) {
        const int e = j * S::THREADS + tid, r = e / (S::BN / 4), col = e % (S::BN / 4) * 4;
        const Index gr = k0 + r, gc = bn + col;
        const bool ok = gr < k && gc < n;  // N % 4 == 0: the whole vector is in or out
        cp_async<16>(bs + r * S::LDB + col, ok ? b + gr * n + gc : b, ok ? 16 : 0);
      }
    } else {
#pragma unroll
      for (int j = 0; j < S::B_COPIES; ++j) {
        const int e = j * S::THREADS + tid, r = e / S::BN, col = e % S::BN;
        const Index gr = k0 + r, gc = bn + col;
        const bool ok = gr < k && gc < n;
        cp_async<4>(bs + r * S::LDB + col, ok ? b + gr * n + gc : b, ok ? 4 : 0);
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

  const Index ktiles = (k + S::BK - 1) / S::BK;
#pragma unroll
  for (int s = 0; s < S::STAGES - 1; ++s) {
    if (s < ktiles) load_stage(s, s * Index{S::BK});
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
  for (Index kt = 0; kt < ktiles; ++kt) {
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
        if (kt + S::STAGES - 1 < ktiles) load_stage(ws, (kt + S::STAGES - 1) * S::BK);
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
    if (row >= m) continue;
#pragma unroll
    for (int h = 0; h < S::TN / 4; ++h) {
      const Index col = bn + wn * S::WN + h * 4 * S::LANES_N + lx * 4;
      const float v[4] = {alpha * acc[i][4 * h], alpha * acc[i][4 * h + 1],
                          alpha * acc[i][4 * h + 2], alpha * acc[i][4 * h + 3]};
      if constexpr (VEC) {  // N % 4 == 0: col < n means all 4 are inside, 16-byte aligned
        if (col < n)
          *reinterpret_cast<float4*>(c + row * n + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (col + e < n) c[row * n + col + e] = v[e];
      }
    }
  }
}

// ---- the configurations and the Runner ------------------------------------------------------

// 128x128 block, 8 warps of 32x64 (4x8 lanes of 8x8), slices of 8 in 3 stages (25 KB of
// shared memory), at most 128 registers so that two blocks share a multiprocessor.
using Shape128K8 = SgemmShape<128, 128, 8, 4, 2, 4, 8, 8, 3, 2>;
// The same with 8 warps of 64x32 (8x4 lanes of 8x8).
using Shape128W64 = SgemmShape<128, 128, 8, 2, 4, 8, 8, 8, 3, 2>;
// The same with slices of 16 (half the barriers; 50 KB a block).
using Shape128K16 = SgemmShape<128, 128, 16, 4, 2, 4, 8, 8, 3, 2>;
// 128x256 block, 8 warps of 64x64 (8x4 lanes of 8x16: 6 loads per 128 FFMAs instead of 4 per
// 64), one block a multiprocessor with up to 255 registers.
using Shape256 = SgemmShape<128, 256, 8, 2, 4, 8, 8, 16, 3, 1>;

template <class S>
void launch_shape(Index m, Index n, Index k, const float* a, const float* b, float* c,
                  float alpha) {
  const Index tiles = ((m + S::BM - 1) / S::BM) * ((n + S::BN - 1) / S::BN);
  if (tiles > INT_MAX)
    throw DeviceError("gemm: " + std::to_string(tiles) + " blocks exceed the grid");
  const auto grid = static_cast<unsigned>(tiles);
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

class SgemmRunner final : public cuda::CudaRunner {
 public:
  SgemmRunner(const GemmProblem<float>& p, SgemmConfig cfg) : p_(p), cfg_(cfg) {
    gemm_check_shapes(*p.a, *p.b, *p.c);
  }

  void upload() override {
    a_ = cuda::Buffer<float>(p_.a->data.data(), p_.a->data.size());
    b_ = cuda::Buffer<float>(p_.b->data.data(), p_.b->data.size());
    c_ = cuda::Buffer<float>(p_.c->data.size());
    c_.fill_bytes(0xff);  // poison (NaN): every element must be written
    switch (cfg_) {
      case SgemmConfig::b128x128k8:
        prepare_shape<Shape128K8>();
        break;
      case SgemmConfig::b128x128w64:
        prepare_shape<Shape128W64>();
        break;
      case SgemmConfig::b128x128k16:
        prepare_shape<Shape128K16>();
        break;
      case SgemmConfig::b128x256k8:
        prepare_shape<Shape256>();
        break;
    }
  }

  void download() override { c_.download(p_.c->data.data(), p_.c->data.size()); }

 protected:
  void launch() override {
    const Index m = p_.a->rows, n = p_.b->cols, k = p_.a->cols;
    if (m == 0 || n == 0) return;
    const float *a = a_.get(), *b = b_.get();
    float* c = c_.get();
    switch (cfg_) {
      case SgemmConfig::b128x128k8:
        launch_shape<Shape128K8>(m, n, k, a, b, c, p_.alpha);
        break;
      case SgemmConfig::b128x128w64:
        launch_shape<Shape128W64>(m, n, k, a, b, c, p_.alpha);
        break;
      case SgemmConfig::b128x128k16:
        launch_shape<Shape128K16>(m, n, k, a, b, c, p_.alpha);
        break;
      case SgemmConfig::b128x256k8:
        launch_shape<Shape256>(m, n, k, a, b, c, p_.alpha);
        break;
    }
  }

 private:
  GemmProblem<float> p_;
  SgemmConfig cfg_;
  cuda::Buffer<float> a_, b_, c_;
};

}  // namespace

std::unique_ptr<Runner> make_gemm_sgemm(const GemmProblem<float>& p, SgemmConfig cfg) {
  return std::make_unique<SgemmRunner>(p, cfg);
}

}  // namespace mm
