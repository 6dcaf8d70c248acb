// OpenMP GEMM: a simple row-parallel variant and the cache/register blocked one with
// packing and micro-kernels chosen at run time (portable, AVX2+FMA, AVX-512).
#include "gemm.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <memory>
#include <new>

#include "cpu/gemm_packed.hpp"
#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm {

template <class T>
void gemm_cpu_rows(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta) {
  gemm_check_shapes(a, b, c);
  const std::int64_t n = b.cols, k = a.cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < a.rows; ++i) {
    T* __restrict ci = c.data.data() + i * n;
    if (beta == T{})
      std::fill(ci, ci + n, T{});
    else
      for (std::int64_t j = 0; j < n; ++j) ci[j] *= beta;
    for (std::int64_t p = 0; p < k; ++p) {
      const T s = alpha * a(i, p);
      const T* __restrict bp = b.data.data() + p * n;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) ci[j] += s * bp[j];
    }
  }
}

namespace {

// 64-byte aligned packing memory of one thread, grown on demand and kept between calls: the
// LU calls the product thousands of times on small blocks, where an allocation per call (an
// mmap and its page faults above 128 KiB) would show.
template <class T>
class Scratch {
 public:
  T* get(std::size_t n) {
    if (n > size_) {
      p_.reset(static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))));
      size_ = n;
    }
    return p_.get();
  }

 private:
  struct Free {
    void operator()(T* p) const { ::operator delete(p, std::align_val_t(64)); }
  };
  std::unique_ptr<T, Free> p_;
  std::size_t size_ = 0;
};

// The calling thread's buffer for packed A blocks (SLOT 0) or shared B panels (SLOT 1).
template <class T, int Slot>
T* thread_scratch(std::size_t n) {
  static thread_local Scratch<T> s;
  return s.get(n);
}

// C tile (MR x NR, row stride LDC) = alpha * (packed A sliver x packed B sliver) + beta*C,
// C not read when beta == 0. PA holds MR values per k, PB holds NR values per k.
template <class T>
using MicroKernel = void (*)(std::int64_t kc, const T* pa, const T* pb, T alpha, T beta, T* c,
                             std::int64_t ldc);

// ---- portable kernel: plain loops the compiler vectorizes for baseline x86-64 (SSE2) ----

template <class T>
inline void fma_into(T& acc, const T& a, const T& b) {
  if constexpr (is_complex_v<T>) {  // by hand: std::complex's operator* checks for NaN per call
    acc = T(acc.real() + a.real() * b.real() - a.imag() * b.imag(),
            acc.imag() + a.real() * b.imag() + a.imag() * b.real());
  } else {
    acc += a * b;
  }
}

template <class T, int MR, int NR>
void kernel_portable(std::int64_t kc, const T* __restrict pa, const T* __restrict pb, T alpha,
                     T beta, T* __restrict c, std::int64_t ldc) {
  T acc[MR][NR] = {};
  for (std::int64_t p = 0; p < kc; ++p, pa += MR, pb += NR)
    for (int i = 0; i < MR; ++i) {
      const T ai = pa[i];
#pragma omp simd
      for (int j = 0; j < NR; ++j) fma_into(acc[i][j], ai, pb[j]);
    }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j)
      c[i * ldc + j] = beta == T{} ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c[i * ldc + j];
}

// ---- SIMD kernels: one template per instruction set, traits per value type ---------------

#define MM_AVX2 __attribute__((target("avx2,fma"), always_inline)) static inline
#define MM_AVX512 __attribute__((target("avx512f"), always_inline)) static inline

struct Avx2Double {
  using V = __m256d;
  static constexpr int W = 4;
  MM_AVX2 V zero() { return _mm256_setzero_pd(); }
  MM_AVX2 V load(const double* p) { return _mm256_loadu_pd(p); }
  MM_AVX2 V set1(double x) { return _mm256_set1_pd(x); }
  MM_AVX2 V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  MM_AVX2 V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  MM_AVX2 void store(double* p, V v) { _mm256_storeu_pd(p, v); }
};
struct Avx2Float {
  using V = __m256;
  static constexpr int W = 8;
  MM_AVX2 V zero() { return _mm256_setzero_ps(); }
  MM_AVX2 V load(const float* p) { return _mm256_loadu_ps(p); }
  MM_AVX2 V set1(float x) { return _mm256_set1_ps(x); }
  MM_AVX2 V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  MM_AVX2 V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  MM_AVX2 void store(float* p, V v) { _mm256_storeu_ps(p, v); }
};
struct Avx512Double {
  using V = __m512d;
  static constexpr int W = 8;
  MM_AVX512 V zero() { return _mm512_setzero_pd(); }
  MM_AVX512 V load(const double* p) { return _mm512_loadu_pd(p); }
  MM_AVX512 V set1(double x) { return _mm512_set1_pd(x); }
  MM_AVX512 V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  MM_AVX512 V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  MM_AVX512 void store(double* p, V v) { _mm512_storeu_pd(p, v); }
};
struct Avx512Float {
  using V = __m512;
  static constexpr int W = 16;
  MM_AVX512 V zero() { return _mm512_setzero_ps(); }
  MM_AVX512 V load(const float* p) { return _mm512_loadu_ps(p); }
  MM_AVX512 V set1(float x) { return _mm512_set1_ps(x); }
  MM_AVX512 V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  MM_AVX512 V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  MM_AVX512 void store(float* p, V v) { _mm512_storeu_ps(p, v); }
};

// The body both SIMD kernels share: MR x NV vectors of accumulators stay in registers
// (MR*NV + NV + 1 of the 16 / 32 vector registers) over the whole packed K panel.
#define MM_SIMD_KERNEL_BODY                                                                        \
  using V = typename S::V;                                                                         \
  constexpr int NR = NV * S::W;                                                                    \
  V acc[MR][NV];                                                                                   \
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i)                                            \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) acc[i][v] = S::zero();                  \
  for (std::int64_t p = 0; p < kc; ++p, pa += MR, pb += NR) {                                      \
    V bv[NV];                                                                                      \
    _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) bv[v] = S::load(pb + v * S::W);           \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {                                        \
      const V ai = S::set1(pa[i]);                                                                 \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) acc[i][v] =                             \
          S::fma(ai, bv[v], acc[i][v]);                                                            \
    }                                                                                              \
  }                                                                                                \
  const V va = S::set1(alpha), vb = S::set1(beta);                                                 \
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i)                                            \
      _Pragma("GCC unroll 8") for (int v = 0; v < NV; ++v) {                                       \
    T* ct = c + i * ldc + v * S::W;                                                                \
    S::store(                                                                                      \
        ct, beta == T{} ? S::mul(va, acc[i][v]) : S::fma(vb, S::load(ct), S::mul(va, acc[i][v]))); \
  }

template <class S, class T, int MR, int NV>
__attribute__((target("avx2,fma"))) void kernel_avx2(std::int64_t kc, const T* __restrict pa,
                                                     const T* __restrict pb, T alpha, T beta,
                                                     T* __restrict c, std::int64_t ldc) {
  MM_SIMD_KERNEL_BODY
}

template <class S, class T, int MR, int NV>
__attribute__((target("avx512f"))) void kernel_avx512(std::int64_t kc, const T* __restrict pa,
                                                      const T* __restrict pb, T alpha, T beta,
                                                      T* __restrict c, std::int64_t ldc) {
  MM_SIMD_KERNEL_BODY
}

#undef MM_SIMD_KERNEL_BODY

// A kernel of the instruction set of traits S (AVX-512 when its vectors are 64 bytes).
template <class S, class T, int MR, int NV>
constexpr MicroKernel<T> simd_kernel() {
  if constexpr (sizeof(typename S::V) == 64)
    return kernel_avx512<S, T, MR, NV>;
  else
    return kernel_avx2<S, T, MR, NV>;
}

std::int64_t round_up(std::int64_t x, std::int64_t m) {
  return (x + m - 1) / m * m;
}

// Vectors per tile row for a product N columns wide: NV_MAX, except for a narrow product
// (under four full tiles: the LU panel's 16- to 64-column updates), which takes the width
// that pads the fewest columns: a 16-column update then runs an 8x16 tile, not an 8x24 one
// a third of which is padding.
int tile_vectors(std::int64_t n, int w, int nv_max) {
  int best = nv_max;
  if (n >= 4 * nv_max * w) return best;
  for (int nv = nv_max - 1; nv >= 1; --nv)
    if (round_up(n, nv * w) < round_up(n, best * w)) best = nv;
  return best;
}

// A micro-kernel with its tile (MR x NR) and cache blocking: KC (the K panel; an NR x KC
// sliver of B stays in L1 while the MC x KC block of A sits in L2), MC rows of A per block,
// NC columns of C per task (one packed A block serves them all).
template <class T>
struct Plan {
  MicroKernel<T> kernel;
  int mr, nr, kc, mc, nc;
  const char* isa;
};

// The SIMD plan of traits S: MR rows by up to NV_MAX vectors, narrower for a narrow product.
template <class S, class T, int MR, int NV_MAX>
Plan<T> simd_plan(std::int64_t n, const char* isa) {
  static_assert(NV_MAX >= 2 && NV_MAX <= 3);
  const int nv = tile_vectors(n, S::W, NV_MAX);
  const MicroKernel<T> k = nv == 1   ? simd_kernel<S, T, MR, 1>()
                           : nv == 2 ? simd_kernel<S, T, MR, 2>()
                                     : simd_kernel<S, T, MR, NV_MAX>();
  return {k, MR, nv * S::W, 256, 192, 1024, isa};
}

// The plan of kernel family K for a product N columns wide (the widest tile unless narrow).
template <class T>
Plan<T> plan_for(GemmKernel k, std::int64_t n = std::int64_t{1} << 62) {
  if (k == GemmKernel::best)
    k = gemm_kernel_supported(GemmKernel::avx512) ? GemmKernel::avx512
        : gemm_kernel_supported(GemmKernel::avx2) ? GemmKernel::avx2
                                                  : GemmKernel::portable;
  if (!gemm_kernel_supported(k))
    throw DeviceError("gemm: this CPU lacks the instructions of the chosen kernel");
  if constexpr (std::is_same_v<T, double>) {
    if (k == GemmKernel::avx512) return simd_plan<Avx512Double, double, 8, 3>(n, "avx512");
    if (k == GemmKernel::avx2) return simd_plan<Avx2Double, double, 6, 2>(n, "avx2");
    return {kernel_portable<double, 4, 4>, 4, 4, 256, 128, 1024, "portable"};
  } else if constexpr (std::is_same_v<T, float>) {
    if (k == GemmKernel::avx512) return simd_plan<Avx512Float, float, 8, 3>(n, "avx512");
    if (k == GemmKernel::avx2) return simd_plan<Avx2Float, float, 6, 2>(n, "avx2");
    return {kernel_portable<float, 4, 8>, 4, 8, 256, 128, 1024, "portable"};
  } else {  // complex: the portable kernel whatever the CPU
    return {kernel_portable<T, 2, 4>, 2, 4, 128, 96, 1024, "portable"};
  }
}

// The mb x kb block of A at A (row stride LDA) as MR-row slivers, MR values per k, the last
// sliver padded with zeros.
template <class T>
void pack_a(const T* a, std::int64_t lda, std::int64_t mb, std::int64_t kb, int mr,
            T* __restrict dst) {
  for (std::int64_t s = 0; s < mb; s += mr, dst += mr * kb) {
    const int rows = static_cast<int>(std::min<std::int64_t>(mr, mb - s));
    for (int i = 0; i < mr; ++i) {
      if (i >= rows) {
        for (std::int64_t p = 0; p < kb; ++p) dst[p * mr + i] = T{};
        continue;
      }
      const T* src = a + (s + i) * lda;
      for (std::int64_t p = 0; p < kb; ++p) dst[p * mr + i] = src[p];
    }
  }
}

// NR-column sliver number T of the kb x nb block of B at B (row stride LDB), NR values per
// k, padded with zeros past the last column.
template <class T>
void pack_b_sliver(const T* b, std::int64_t ldb, std::int64_t kb, std::int64_t nb, int nr,
                   std::int64_t t, T* __restrict dst) {
  const std::int64_t j = t * nr;
  const int cols = static_cast<int>(std::min<std::int64_t>(nr, nb - j));
  dst += t * nr * kb;
  for (std::int64_t p = 0; p < kb; ++p) {
    const T* src = b + p * ldb + j;
    for (int q = 0; q < cols; ++q) dst[p * nr + q] = src[q];
    for (int q = cols; q < nr; ++q) dst[p * nr + q] = T{};
  }
}

// Every MR x NR tile of an mb x nb block of C from the packed blocks; edge tiles go through
// a full-size scratch tile so the kernel never reads or writes outside C.
template <class T>
void macro_kernel(const Plan<T>& pl, std::int64_t mb, std::int64_t nb, std::int64_t kb, const T* pa,
                  const T* pb, T alpha, T beta, T* c, std::int64_t ldc) {
  T tile[16 * 64];  // >= mr*nr of every plan
  for (std::int64_t j = 0; j < nb; j += pl.nr) {
    const T* pbj = pb + j * kb;
    const int cols = static_cast<int>(std::min<std::int64_t>(pl.nr, nb - j));
    for (std::int64_t i = 0; i < mb; i += pl.mr) {
      const T* pai = pa + i * kb;
      const int rows = static_cast<int>(std::min<std::int64_t>(pl.mr, mb - i));
      T* ct = c + i * ldc + j;
      if (rows == pl.mr && cols == pl.nr) {
        pl.kernel(kb, pai, pbj, alpha, beta, ct, ldc);
        continue;
      }
      pl.kernel(kb, pai, pbj, alpha, T{}, tile, pl.nr);
      for (int r = 0; r < rows; ++r)
        for (int q = 0; q < cols; ++q) {
          T& dst = ct[r * ldc + q];
          dst = beta == T{} ? tile[r * pl.nr + q] : tile[r * pl.nr + q] + beta * dst;
        }
    }
  }
}

// Widest panel of B packed at once, in columns: up to it, a call meets two barriers per K
// panel (B packed; every task done), however wide B is. On a shared 2-core machine a
// barrier costs a descheduled thread's time slice, so splitting B into L3-sized panels (two
// more per panel) made the LU's trailing updates slower there. 8192 columns are 16 MiB of
// doubles at KC = 256; wider products take panels of this width.
constexpr std::int64_t kPanelCols = 8192;

}  // namespace

bool gemm_kernel_supported(GemmKernel k) {
  switch (k) {
    case GemmKernel::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case GemmKernel::avx512:
      return __builtin_cpu_supports("avx512f");
    default:
      return true;
  }
}

template <class T>
std::string gemm_kernel_name(GemmKernel k) {
  const Plan<T> pl = plan_for<T>(k);
  return std::string(pl.isa) + " " + std::to_string(pl.mr) + "x" + std::to_string(pl.nr);
}

namespace cpu {

template <class T>
void gemm_packed(std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
                 std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc,
                 GemmKernel kind, bool parallel) {
  const Plan<T> pl = plan_for<T>(kind, n);
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // no products: C = beta*C
    if (beta != T(1))
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          c[i * ldc + j] = beta == T{} ? T{} : beta * c[i * ldc + j];
    return;
  }
  const int threads = parallel ? omp_get_max_threads() : 1;
  const std::int64_t kc = std::min<std::int64_t>(pl.kc, k);
  // Tasks: a block of rows by NC columns (whole slivers), dynamically scheduled, so that a
  // thread slowed by another process leaves its share to the others.
  const std::int64_t nc = std::min(round_up(pl.nc, pl.nr), round_up(n, pl.nr));
  const std::int64_t np = std::min(round_up(kPanelCols, nc), round_up(n, nc));
  // Blocks of at most MC rows, as many as a multiple of the threads so that each gets equal
  // work, and on several threads at least four tasks a thread (the LU's smaller updates).
  std::int64_t blocks = (m + pl.mc - 1) / pl.mc;
  if (threads > 1) blocks = std::max(blocks, (4 * threads * nc + np - 1) / np);
  blocks = std::min(round_up(blocks, threads), (m + pl.mr - 1) / pl.mr);
  const std::int64_t mc = round_up((m + blocks - 1) / blocks, pl.mr);
  blocks = (m + mc - 1) / mc;
  T* const bpack = thread_scratch<T, 1>(static_cast<std::size_t>(kc * np));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    T* const apack = thread_scratch<T, 0>(static_cast<std::size_t>(mc * kc));
    for (std::int64_t j0 = 0; j0 < n; j0 += np) {
      const std::int64_t nb = std::min(np, n - j0);
      const std::int64_t col_tasks = (nb + nc - 1) / nc;
      for (std::int64_t p0 = 0; p0 < k; p0 += kc) {
        const std::int64_t kb = std::min(kc, k - p0);
        const std::int64_t slivers = (nb + pl.nr - 1) / pl.nr;
#pragma omp for schedule(static)
        for (std::int64_t t = 0; t < slivers; ++t)
          pack_b_sliver(b + p0 * ldb + j0, ldb, kb, nb, pl.nr, t, bpack);
        // Later K panels add to what the first one wrote.
        const T beta_k = p0 == 0 ? beta : T(1);
        std::int64_t packed = -1;  // the block of rows now in APACK
        // Row-major task order: a thread taking consecutive tasks keeps its A block.
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t task = 0; task < blocks * col_tasks; ++task) {
          const std::int64_t blk = task / col_tasks, jt = task % col_tasks * nc;
          const std::int64_t i0 = blk * mc, mb = std::min(mc, m - i0);
          if (packed != blk) {
            pack_a(a + i0 * lda + p0, lda, mb, kb, pl.mr, apack);
            packed = blk;
          }
          macro_kernel(pl, mb, std::min(nc, nb - jt), kb, apack, bpack + jt * kb, alpha, beta_k,
                       c + i0 * ldc + j0 + jt, ldc);
        }
      }
    }
  }
}

}  // namespace cpu

template <class T>
void gemm_cpu_blocked(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta,
                      GemmKernel kind) {
  gemm_check_shapes(a, b, c);
  cpu::gemm_packed(a.rows, b.cols, a.cols, alpha, a.data.data(), a.cols, b.data.data(), b.cols,
                   beta, c.data.data(), c.cols, kind, true);
}

#define MM_GEMM_CPU(T)                                                                         \
  template void gemm_cpu_rows<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T);           \
  template std::string gemm_kernel_name<T>(GemmKernel);                                        \
  template void gemm_cpu_blocked<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T,         \
                                    GemmKernel);                                               \
  template void cpu::gemm_packed<T>(std::int64_t, std::int64_t, std::int64_t, T, const T*,     \
                                    std::int64_t, const T*, std::int64_t, T, T*, std::int64_t, \
                                    GemmKernel, bool);
MM_FOR_VALUE_TYPES(MM_GEMM_CPU)

}  // namespace mm
