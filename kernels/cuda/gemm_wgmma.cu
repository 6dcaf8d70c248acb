// TF32 GEMM on Hopper's warpgroup tensor cores (wgmma, sm_90a), C = alpha*A*B row-major: TMA
// tile loads into a multi-stage shared ring completing on mbarriers, one producer warp and two
// consumer warpgroups, FP32 accumulators in registers.
//
// TF32 wgmma reads both operands K-major from shared memory. A (m x k, k contiguous) is; B
// (k x n, n contiguous) is not, so each run first writes B^T (n x kp, kp = k rounded up to 4)
// into a scratch buffer, rounding B to TF32 (nearest) on the way: one pass over k*n values,
// timed with the product. A goes to the tensor cores as stored (they truncate it to TF32:
// 1 + 0.75*2^-10 entered as 1 on the H100); when k is not a multiple of 4 its rows are copied to
// a pitch of kp (a tensor map's row pitch must be a multiple of 16 bytes), rounded to nearest.
// Edges: the copy engine zero-fills tile parts outside the tensors, and the epilogue stores only
// the elements inside C.
#include <cuda.h>  // CUtensorMap and its enums (types only: the encoder comes by entry point)
#include <cudaTypedefs.h>

#include <algorithm>
#include <climits>
#include <string>

#include "cuda/cuda_util.cuh"
#include "cuda/gemm_cuda.hpp"
#include "cuda/wgmma.cuh"

namespace mm {

namespace {

using Index = std::int64_t;
namespace sm90 = cuda::sm90;

// ---- tuning constants ------------------------------------------------------------------------

// Block tile BM x BN x BK: BK = 32 floats = one 128-byte swizzled row per tile row. Two consumer
// warpgroups take 64 rows each (m64nBNk8 instructions, BN/2 accumulators a thread); warpgroup 0
// is the producer (one thread issues the copies). STAGES of the shared ring.
constexpr int kBM = 128, kBK = 32, kThreads = 384, kConsumerWarps = 8;
constexpr int kGroupRows = 8;  // tile rows walked together (L2 reuse of B's panels)
template <int BN>
struct WgmmaShape {
  static constexpr int STAGES = BN == 256 ? 4 : 6;
  static constexpr int A_BYTES = kBM * kBK * 4, B_BYTES = BN * kBK * 4;
  static constexpr int RING = STAGES * (A_BYTES + B_BYTES);
  // The ring, its 2*STAGES barriers, and slack to align the ring to 1024 bytes (the swizzle's
  // period: TMA and wgmma agree on the pattern only from such a base).
  static constexpr int SMEM = RING + 16 * STAGES + 1024;
  static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0);
};

// ---- the product kernel ----------------------------------------------------------------------

template <int BN>
__global__ void __launch_bounds__(kThreads, 1)
    tf32_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_bt, float* __restrict__ c, int m,
                      int n, int k_tiles, float alpha, int tiles_m, int tiles_n) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using S = WgmmaShape<BN>;
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t base = (sm90::smem_u32(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t ring_a = base, ring_b = base + S::STAGES * S::A_BYTES;
  const std::uint32_t full = base + S::RING, empty = full + 8 * S::STAGES;

  // Tile order: groups of kGroupRows tile rows, down each column of the group first, so the
  // blocks resident together share a few panels of A and of B^T in L2.
  const int t = static_cast<int>(blockIdx.x), per_group = kGroupRows * tiles_n;
  const int first_m = (t / per_group) * kGroupRows;
  const int rows_here = min(tiles_m - first_m, kGroupRows);
  const int tm = first_m + (t % per_group) % rows_here, tn = (t % per_group) / rows_here;
  const int bm = tm * kBM, bn = tn * BN;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S::STAGES; ++s) {
      sm90::mbar_init(full + 8 * s, 1);                // the producer's expect_tx arrival
      sm90::mbar_init(empty + 8 * s, kConsumerWarps);  // each consumer warp, slot read
    }
    sm90::mbar_init_fence();
  }
  __syncthreads();

  const int wg = static_cast<int>(threadIdx.x) / 128;
  if (wg == 0) {
    // Producer: a single thread keeps the ring full.
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      sm90::tma_prefetch_map(&map_a);
      sm90::tma_prefetch_map(&map_bt);
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % S::STAGES;
        sm90::mbar_wait(empty + 8 * s, ((kt / S::STAGES) & 1) ^ 1);
        sm90::mbar_arrive_expect_tx(full + 8 * s, S::A_BYTES + S::B_BYTES);
        sm90::tma_load_2d(ring_a + s * S::A_BYTES, &map_a, kt * kBK, bm, full + 8 * s);
        sm90::tma_load_2d(ring_b + s * S::B_BYTES, &map_bt, kt * kBK, bn, full + 8 * s);
      }
    }
  } else {
    // Consumers: warpgroup cw multiplies rows 64cw..64cw+63 of the A tile by the B^T tile.
    sm90::setmaxnreg_inc<232>();
    const int cw = wg - 1, lane = static_cast<int>(threadIdx.x) % 32;
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int s = kt % S::STAGES;
      sm90::mbar_wait(full + 8 * s, (kt / S::STAGES) & 1);
      const std::uint32_t a0 = ring_a + s * S::A_BYTES + cw * 64 * 128,
                          b0 = ring_b + s * S::B_BYTES;
      sm90::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / 8; ++kk)
        sm90::wgmma_tf32(d, sm90::desc_k128(a0 + 32 * kk), sm90::desc_k128(b0 + 32 * kk));
      sm90::wgmma_commit();
      // The previous slice's MMAs are done with its slot: hand it back to the producer.
      sm90::wgmma_wait<1>();
      if (kt > 0 && lane == 0) sm90::mbar_arrive(empty + 8 * ((kt - 1) % S::STAGES));
    }
    sm90::wgmma_wait<0>();
    sm90::fence_regs(d);

    // Epilogue straight from the fragments: d[4j + 2h + e] = D(r + 8h, 8j + 2(l%4) + e).
    const int w = (static_cast<int>(threadIdx.x) % 128) / 32;
    const Index r0 = bm + 64 * cw + 16 * w + lane / 4;
    const bool pairs = n % 2 == 0;  // then (row*n + even col) floats are 8-byte aligned
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const Index col = bn + 8 * j + 2 * (lane % 4);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const Index row = r0 + 8 * h;
        if (row >= m) continue;
        const float v0 = alpha * d[4 * j + 2 * h], v1 = alpha * d[4 * j + 2 * h + 1];
        float* p = c + row * n + col;
        if (pairs && col + 1 < n) {
          *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
        } else {
          if (col < n) p[0] = v0;
          if (col + 1 < n) p[1] = v1;
        }
      }
    }
  }
#else
  // Built without sm_90a's instructions (another architecture): never launched (the runner
  // falls back to the wmma kernel off compute capability 9.0).
  __trap();
#endif
}

// ---- operand preparation ---------------------------------------------------------------------

__device__ __forceinline__ float round_tf32(float x) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

// BT (n x kp) = B^T (B: k x n), rounded to TF32, zero in columns k..kp-1: 64x64 tiles through
// shared memory, 256 threads, each moving four 16-byte vectors each way (several loads in flight:
// 32x32 tiles of single floats moved 2.4 TB/s on the H100, its copy 3.0). VEC: n % 4 == 0, so
// each row of B is read as whole, aligned vectors (rows of BT always are: kp % 4 == 0). The
// pitch of 65 leaves at most 2-way bank conflicts on either side.
template <bool VEC>
__global__ void __launch_bounds__(256)
    transpose_round_kernel(const float* __restrict__ b, float* __restrict__ bt, Index k, Index n,
                           Index kp, Index tiles_n) {
  __shared__ float tile[64][65];
  const Index p0 = (blockIdx.x / tiles_n) * 64, j0 = (blockIdx.x % tiles_n) * 64;
  const int q = static_cast<int>(threadIdx.x) % 16, r0 = static_cast<int>(threadIdx.x) / 16;
#pragma unroll
  for (int r = r0; r < 64; r += 16) {  // rows p0 + r of B, columns j0 + 4q .. + 3
    const Index p = p0 + r, j = j0 + 4 * q;
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    if constexpr (VEC) {
      if (p < k && j < n) {
        const float4 x = __ldg(reinterpret_cast<const float4*>(b + p * n + j));
        v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
      }
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (p < k && j + e < n) v[e] = b[p * n + j + e];
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) tile[r][4 * q + e] = round_tf32(v[e]);
  }
  __syncthreads();
#pragma unroll
  for (int r = r0; r < 64; r += 16) {  // rows j0 + r of BT, columns p0 + 4q .. + 3
    const Index j = j0 + r, p = p0 + 4 * q;
    if (j < n && p < kp)
      *reinterpret_cast<float4*>(bt + j * kp + p) =
          make_float4(tile[4 * q][r], tile[4 * q + 1][r], tile[4 * q + 2][r], tile[4 * q + 3][r]);
  }
}

// AP (m x kp) = A (m x k) rounded to TF32, zero in columns k..kp-1 (only when k % 4 != 0).
__global__ void __launch_bounds__(256)
    pad_round_kernel(const float* __restrict__ a, float* __restrict__ ap, Index m, Index k,
                     Index kp) {
  const Index total = m * kp;
  for (Index e = blockIdx.x * Index{256} + threadIdx.x; e < total; e += Index{256} * gridDim.x) {
    const Index i = e / kp, p = e % kp;
    ap[e] = p < k ? round_tf32(a[i * k + p]) : 0.f;
  }
}

// ---- host side -------------------------------------------------------------------------------

// cuTensorMapEncodeTiled from the driver, found once through the runtime (no libcuda link).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    MM_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q));
    if (q != cudaDriverEntryPointSuccess || !p)
      throw DeviceError("cuda-tf32: the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// Map of a ROWS x KP row-major float matrix at P, boxes of 32 (k) x BOX_ROWS, 128-byte swizzle.
CUtensorMap k_major_map(const float* p, Index rows, Index kp, int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(kp), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(kp) * sizeof(float)};
  const cuuint32_t box[2] = {kBK, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t steps[2] = {1, 1};
  const CUresult r = tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(p), dims, strides, box, steps,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw DeviceError("cuda-tf32: cuTensorMapEncodeTiled failed (CUresult " + std::to_string(r) +
                      ") for " + std::to_string(rows) + " x " + std::to_string(kp));
  return map;
}

unsigned grid_of(Index blocks, const char* what) {
  return cuda::grid_1d(std::max<Index>(blocks, 1), std::string("cuda-tf32 ") + what);
}

template <int BN>
class Tf32WgmmaRunner final : public cuda::CudaRunner {
  using S = WgmmaShape<BN>;

 public:
  explicit Tf32WgmmaRunner(const GemmProblem<float>& p) : p_(p) {
    gemm_check_shapes(*p.a, *p.b, *p.c);
  }

  void upload() override {
    const Index m = p_.a->rows, n = p_.b->cols, k = p_.a->cols;
    kp_ = (k + 3) / 4 * 4;
    if (m > INT_MAX || n > INT_MAX || kp_ > INT_MAX)  // the kernel's and the copy engine's ints
      throw DeviceError("cuda-tf32: dimensions beyond 2^31 - 1");
    a_ = cuda::Buffer<float>(p_.a->data.data(), p_.a->data.size());
    b_ = cuda::Buffer<float>(p_.b->data.data(), p_.b->data.size());
    c_ = cuda::Buffer<float>(p_.c->data.size());
    c_.fill_bytes(0xff);  // poison (NaN): every element must be written
    if (m == 0 || n == 0 || k == 0) return;
    if (kp_ != k) ap_ = cuda::Buffer<float>(static_cast<std::size_t>(m * kp_));
    bt_ = cuda::Buffer<float>(static_cast<std::size_t>(n * kp_));
    map_a_ = k_major_map(kp_ != k ? ap_.get() : a_.get(), m, kp_, kBM);
    map_bt_ = k_major_map(bt_.get(), n, kp_, BN);
    MM_CUDA(cudaFuncSetAttribute(tf32_wgmma_kernel<BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 S::SMEM));
  }

  void download() override { c_.download(p_.c->data.data(), p_.c->data.size()); }

 protected:
  void launch() override {
    const Index m = p_.a->rows, n = p_.b->cols, k = p_.a->cols;
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum
      MM_CUDA(cudaMemsetAsync(c_.get(), 0, c_.size() * sizeof(float)));
      return;
    }
    if (kp_ != k) {
      pad_round_kernel<<<grid_of(std::min<Index>((m * kp_ + 255) / 256, 8192), "pad"), 256>>>(
          a_.get(), ap_.get(), m, k, kp_);
      MM_CUDA_LAUNCHED("gemm pad_round_kernel");
    }
    const Index t64n = (n + 63) / 64;
    const unsigned tg = grid_of(t64n * ((kp_ + 63) / 64), "transpose");
    if (n % 4 == 0)
      transpose_round_kernel<true><<<tg, 256>>>(b_.get(), bt_.get(), k, n, kp_, t64n);
    else
      transpose_round_kernel<false><<<tg, 256>>>(b_.get(), bt_.get(), k, n, kp_, t64n);
    MM_CUDA_LAUNCHED("gemm transpose_round_kernel");
    const Index tiles_m = (m + kBM - 1) / kBM, tiles_n = (n + BN - 1) / BN;
    tf32_wgmma_kernel<BN><<<grid_of(tiles_m * tiles_n, "the product"), kThreads, S::SMEM>>>(
        map_a_, map_bt_, c_.get(), static_cast<int>(m), static_cast<int>(n),
        static_cast<int>((kp_ + kBK - 1) / kBK), p_.alpha, static_cast<int>(tiles_m),
        static_cast<int>(tiles_n));
    MM_CUDA_LAUNCHED("gemm tf32_wgmma_kernel");
  }

 private:
  GemmProblem<float> p_;
  Index kp_ = 0;
  cuda::Buffer<float> a_, b_, c_, ap_, bt_;
  CUtensorMap map_a_{}, map_bt_{};
};

bool is_sm90() {
  int dev = 0, major = 0, minor = 0;
  MM_CUDA(cudaGetDevice(&dev));
  MM_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  MM_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return major == 9 && minor == 0;
}

}  // namespace

std::unique_ptr<Runner> make_gemm_tf32_wgmma(const GemmProblem<float>& p, WgmmaTile tile) {
  // sm_90a machine code runs on compute capability 9.0 only: elsewhere the wmma TF32 kernel.
  if (!is_sm90()) return make_gemm_cuda(p, GemmCudaKernel::tensor);
  if (tile == WgmmaTile::t128x128) return std::make_unique<Tf32WgmmaRunner<128>>(p);
  return std::make_unique<Tf32WgmmaRunner<256>>(p);
}

}  // namespace mm
