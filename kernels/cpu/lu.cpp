// OpenMP blocked LU: recursive panels, row swaps, triangular solve, and a packed,
// register-blocked trailing update (AVX-512 micro-kernels chosen at run time).
#include "lu.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>

#include "instantiate.hpp"

namespace mm {

template <class T>
void gemm_sub(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
              const T* b, std::int64_t ldb, T* c, std::int64_t ldc, bool parallel);

namespace {

// Register tile of the trailing update: MR rows of C by NR columns, NR = two 64-byte
// vectors. KC bounds the shared dimension of one packed pass (the LU's block width
// stays below it); MC x KC of A stays in L2; NC columns form one task.
constexpr std::int64_t kMR = 8;
template <class T>
constexpr std::int64_t kNR = 128 / static_cast<std::int64_t>(sizeof(T));
constexpr std::int64_t kKC = 256, kMC = 128, kNC = 1024;

// C tile (mr x nr of it valid) -= sum over p of a[p*MR + i] * b[p*NR + j].
template <class T>
void micro_generic(std::int64_t k, const T* a, const T* b, T* c, std::int64_t ldc, std::int64_t mr,
                   std::int64_t nr) {
  constexpr std::int64_t NR = kNR<T>;
  T acc[kMR][NR] = {};
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < kMR; ++i)
      for (std::int64_t j = 0; j < NR; ++j) acc[i][j] += a[p * kMR + i] * b[p * NR + j];
  for (std::int64_t i = 0; i < mr; ++i)
    for (std::int64_t j = 0; j < nr; ++j) c[i * ldc + j] -= acc[i][j];
}

// 16 accumulators of 8 doubles, two B vectors and a broadcast A value: 19 of 32 zmm.
__attribute__((target("avx512f"))) void micro_avx512(std::int64_t k, const double* a,
                                                     const double* b, double* c, std::int64_t ldc,
                                                     std::int64_t mr, std::int64_t nr) {
  __m512d acc[kMR][2];
#pragma GCC unroll 8
  for (int i = 0; i < kMR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_pd();
  for (std::int64_t p = 0; p < k; ++p) {
    const __m512d b0 = _mm512_loadu_pd(b + p * 16), b1 = _mm512_loadu_pd(b + p * 16 + 8);
#pragma GCC unroll 8
    for (int i = 0; i < kMR; ++i) {
      const __m512d ai = _mm512_set1_pd(a[p * kMR + i]);
      acc[i][0] = _mm512_fmadd_pd(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_pd(ai, b1, acc[i][1]);
    }
  }
  if (mr == kMR && nr == 16) {
#pragma GCC unroll 8
    for (int i = 0; i < kMR; ++i) {
      double* ci = c + i * ldc;
      _mm512_storeu_pd(ci, _mm512_sub_pd(_mm512_loadu_pd(ci), acc[i][0]));
      _mm512_storeu_pd(ci + 8, _mm512_sub_pd(_mm512_loadu_pd(ci + 8), acc[i][1]));
    }
    return;
  }
  alignas(64) double t[kMR][16];
  for (int i = 0; i < kMR; ++i) {
    _mm512_store_pd(t[i], acc[i][0]);
    _mm512_store_pd(t[i] + 8, acc[i][1]);
  }
  for (std::int64_t i = 0; i < mr; ++i)
    for (std::int64_t j = 0; j < nr; ++j) c[i * ldc + j] -= t[i][j];
}

__attribute__((target("avx512f"))) void micro_avx512(std::int64_t k, const float* a, const float* b,
                                                     float* c, std::int64_t ldc, std::int64_t mr,
                                                     std::int64_t nr) {
  __m512 acc[kMR][2];
#pragma GCC unroll 8
  for (int i = 0; i < kMR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (std::int64_t p = 0; p < k; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b + p * 32), b1 = _mm512_loadu_ps(b + p * 32 + 16);
#pragma GCC unroll 8
    for (int i = 0; i < kMR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[p * kMR + i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  if (mr == kMR && nr == 32) {
#pragma GCC unroll 8
    for (int i = 0; i < kMR; ++i) {
      float* ci = c + i * ldc;
      _mm512_storeu_ps(ci, _mm512_sub_ps(_mm512_loadu_ps(ci), acc[i][0]));
      _mm512_storeu_ps(ci + 16, _mm512_sub_ps(_mm512_loadu_ps(ci + 16), acc[i][1]));
    }
    return;
  }
  alignas(64) float t[kMR][32];
  for (int i = 0; i < kMR; ++i) {
    _mm512_store_ps(t[i], acc[i][0]);
    _mm512_store_ps(t[i] + 16, acc[i][1]);
  }
  for (std::int64_t i = 0; i < mr; ++i)
    for (std::int64_t j = 0; j < nr; ++j) c[i * ldc + j] -= t[i][j];
}

template <class T>
void micro(std::int64_t k, const T* a, const T* b, T* c, std::int64_t ldc, std::int64_t mr,
           std::int64_t nr) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512) return micro_avx512(k, a, b, c, ldc, mr, nr);
  }
  micro_generic(k, a, b, c, ldc, mr, nr);
}

// Reused packing buffers: the recursion calls the update many times, so no allocation
// (or zero fill) per call.
template <class T>
T* scratch(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// B (kc x n) into slabs of NR columns, each slab kc rows of NR values, zero-padded.
template <class T>
void pack_b(std::int64_t kc, std::int64_t n, const T* b, std::int64_t ldb, T* bp) {
  constexpr std::int64_t NR = kNR<T>;
  const std::int64_t slabs = (n + NR - 1) / NR;
#pragma omp for schedule(static)
  for (std::int64_t s = 0; s < slabs; ++s) {
    const std::int64_t j0 = s * NR, w = std::min(NR, n - j0);
    T* dst = bp + s * kc * NR;
    for (std::int64_t p = 0; p < kc; ++p) {
      const T* src = b + p * ldb + j0;
      for (std::int64_t j = 0; j < w; ++j) dst[p * NR + j] = src[j];
      for (std::int64_t j = w; j < NR; ++j) dst[p * NR + j] = T{};
    }
  }
}

// A (mc x kc) into panels of MR rows, each kc columns of MR values, zero-padded.
template <class T>
void pack_a(std::int64_t mc, std::int64_t kc, const T* a, std::int64_t lda, T* ap) {
  for (std::int64_t i0 = 0; i0 < mc; i0 += kMR) {
    const std::int64_t h = std::min(kMR, mc - i0);
    T* dst = ap + i0 * kc;
    for (std::int64_t i = 0; i < kMR; ++i) {
      if (i < h) {
        const T* src = a + (i0 + i) * lda;
        for (std::int64_t p = 0; p < kc; ++p) dst[p * kMR + i] = src[p];
      } else {
        for (std::int64_t p = 0; p < kc; ++p) dst[p * kMR + i] = T{};
      }
    }
  }
}

// Solves L X = B in place for B (w rows, columns c0..c1 of leading dimension ldb), with L
// the unit lower triangle of the w x w block at l.
template <class T>
void trsm_unit_lower(std::int64_t w, const T* l, std::int64_t ldl, T* b, std::int64_t ldb,
                     std::int64_t c0, std::int64_t c1) {
  for (std::int64_t i = 1; i < w; ++i) {
    T* bi = b + i * ldb;
    for (std::int64_t k = 0; k < i; ++k) {
      const T lik = l[i * ldl + k];
      if (lik == T{}) continue;
      const T* bk = b + k * ldb;
      for (std::int64_t j = c0; j < c1; ++j) bi[j] -= lik * bk[j];
    }
  }
}

template <class T>
void swap_rows(T* a, std::int64_t lda, std::int64_t r, std::int64_t p, std::int64_t c0,
               std::int64_t c1) {
  if (r != p) std::swap_ranges(a + r * lda + c0, a + r * lda + c1, a + p * lda + c0);
}

// Unblocked panel: m x w at a; PIV[j] is the 0-based row (of the panel) swapped with j.
template <class T>
void panel_unblocked(T* a, std::int64_t lda, std::int64_t m, std::int64_t w, std::int64_t* piv,
                     std::int64_t col0, bool pivoting) {
  for (std::int64_t j = 0; j < std::min(m, w); ++j) {
    std::int64_t p = j;
    auto best = pivot_magnitude(a[j * lda + j]);
    for (std::int64_t i = j + 1; pivoting && i < m; ++i) {
      const auto v = pivot_magnitude(a[i * lda + j]);
      if (v > best) best = v, p = i;
    }
    piv[j] = p;
    if (a[p * lda + j] == T{}) throw NumericalError(zero_pivot_message(col0 + j, pivoting));
    swap_rows(a, lda, j, p, 0, w);
    const T inv = T(1) / a[j * lda + j];
    const T* uj = a + j * lda;
    for (std::int64_t i = j + 1; i < m; ++i) {
      T* ai = a + i * lda;
      const T l = ai[j] * inv;
      ai[j] = l;
      for (std::int64_t c = j + 1; c < w; ++c) ai[c] -= l * uj[c];
    }
  }
}

// Recursive panel (Gustavson/Toledo): factor the left half, update the right half by the
// triangular solve and the packed product, factor the right half, swap back into the left.
template <class T>
void panel_recursive(T* a, std::int64_t lda, std::int64_t m, std::int64_t w, std::int64_t* piv,
                     std::int64_t col0, bool pivoting) {
  if (w <= 16 || m <= 16) return panel_unblocked(a, lda, m, w, piv, col0, pivoting);
  const std::int64_t w1 = (w / 2 + kMR - 1) / kMR * kMR, w2 = w - w1;
  panel_recursive(a, lda, m, w1, piv, col0, pivoting);
  for (std::int64_t i = 0; i < w1; ++i) swap_rows(a, lda, i, piv[i], w1, w);
  trsm_unit_lower(w1, a, lda, a + w1, lda, 0, w2);
  gemm_sub(m - w1, w2, w1, a + w1 * lda, lda, a + w1, lda, a + w1 * lda + w1, lda, false);
  panel_recursive(a + w1 * lda + w1, lda, m - w1, w2, piv + w1, col0 + w1, pivoting);
  for (std::int64_t i = w1; i < std::min(m, w); ++i) {
    piv[i] += w1;
    swap_rows(a, lda, i, piv[i], 0, w1);
  }
}

}  // namespace

// PARALLEL false runs on the calling thread alone: the panel's small updates, where a
// parallel region's barriers cost more than they save (and far more on a shared machine,
// where a descheduled thread holds every other one at the barrier).
template <class T>
void gemm_sub(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
              const T* b, std::int64_t ldb, T* c, std::int64_t ldc, bool parallel) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  constexpr std::int64_t NR = kNR<T>;
  static thread_local std::vector<T> bbuf;
  const std::int64_t slabs = (n + NR - 1) / NR;
  const std::int64_t row_blocks = (m + kMC - 1) / kMC, col_blocks = (n + kNC - 1) / kNC;
  for (std::int64_t p0 = 0; p0 < k; p0 += kKC) {
    const std::int64_t kc = std::min(kKC, k - p0);
    T* bp = scratch(bbuf, static_cast<std::size_t>(slabs * NR * kc));
#pragma omp parallel if (parallel && m * n * k >= (std::int64_t{1} << 21))
    {
      pack_b(kc, n, b + p0 * ldb, ldb, bp);  // shared among the threads; the loop's barrier ends it
      static thread_local std::vector<T> abuf;
      T* ap = scratch(abuf, static_cast<std::size_t>(kMC * kc));
      std::int64_t packed = -1;  // the row block now in AP
      // Tasks in row-block-major order: a thread taking consecutive tasks reuses its A pack.
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t t = 0; t < row_blocks * col_blocks; ++t) {
        const std::int64_t ib = t / col_blocks, jb = t % col_blocks;
        const std::int64_t i0 = ib * kMC, mc = std::min(kMC, m - i0);
        if (packed != ib) {
          pack_a(mc, kc, a + i0 * lda + p0, lda, ap);
          packed = ib;
        }
        const std::int64_t j0 = jb * kNC, j1 = std::min(n, j0 + kNC);
        for (std::int64_t j = j0; j < j1; j += NR) {
          const T* bs = bp + (j / NR) * kc * NR;
          for (std::int64_t i = 0; i < mc; i += kMR)
            micro(kc, ap + i * kc, bs, c + (i0 + i) * ldc + j, ldc, std::min(kMR, mc - i),
                  std::min(NR, j1 - j));
        }
      }
    }
  }
}

template <class T>
void gemm_sub_cpu(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
                  const T* b, std::int64_t ldb, T* c, std::int64_t ldc) {
  gemm_sub(m, n, k, a, lda, b, ldb, c, ldc, true);
}

template <class T>
void lu_blocked(Dense<T>& a, std::int64_t* ipiv, std::int64_t nb, bool pivoting) {
  const std::int64_t n = a.rows;
  nb = std::max<std::int64_t>(1, std::min(nb, kKC));
  T* base = a.data.data();
  std::vector<T> panel;
  std::vector<std::int64_t> piv(static_cast<std::size_t>(nb));
  for (std::int64_t j0 = 0; j0 < n; j0 += nb) {
    const std::int64_t jb = std::min(nb, n - j0), m = n - j0, right = j0 + jb;
    // The panel is factored in a contiguous copy: its rows in A lie n values apart, which for
    // n a power of two maps every row to the same few cache sets.
    panel.resize(static_cast<std::size_t>(m * jb));
    for (std::int64_t i = 0; i < m; ++i)
      std::copy_n(base + (j0 + i) * n + j0, jb, panel.data() + i * jb);
    panel_recursive(panel.data(), jb, m, jb, piv.data(), j0, pivoting);
    for (std::int64_t i = 0; i < m; ++i)
      std::copy_n(panel.data() + i * jb, jb, base + (j0 + i) * n + j0);
    for (std::int64_t i = 0; i < jb; ++i) ipiv[j0 + i] = j0 + piv[i] + 1;
    // Swaps left of the panel and, with the triangular solve, right of it: each thread on
    // its own range of columns.
    const std::int64_t chunk = 256;
    const std::int64_t chunks_right = (n - right + chunk - 1) / chunk,
                       chunks_left = (j0 + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) if (n * jb >= (std::int64_t{1} << 16))
    for (std::int64_t t = 0; t < chunks_left + chunks_right; ++t) {
      const bool left = t < chunks_left;
      const std::int64_t c0 = left ? t * chunk : right + (t - chunks_left) * chunk;
      const std::int64_t c1 = std::min(left ? j0 : n, c0 + chunk);
      for (std::int64_t i = 0; i < jb; ++i) swap_rows(base, n, j0 + i, ipiv[j0 + i] - 1, c0, c1);
      if (!left) trsm_unit_lower(jb, base + j0 * n + j0, n, base + j0 * n, n, c0, c1);
    }
    gemm_sub_cpu(n - right, n - right, jb, base + right * n + j0, n, base + j0 * n + right, n,
                 base + right * n + right, n);
  }
}

template <class T>
void lu_cpu_blocked(Dense<T>& a, std::int64_t* ipiv, std::int64_t nb) {
  lu_blocked(a, ipiv, nb, true);
}
template <class T>
void lu_cpu_blocked_nopivot(Dense<T>& a, std::int64_t* ipiv, std::int64_t nb) {
  lu_blocked(a, ipiv, nb, false);
}

template <class T>
void lu_solve_cpu(const Dense<T>& lu, const std::int64_t* ipiv, Dense<T>& b) {
  const std::int64_t n = lu.rows, k = b.cols;
  if (k == 0) return;
  // Blocks of right-hand sides, one per task: rows of a block are contiguous, so each
  // substitution step is a short vector update.
  const std::int64_t width = std::max<std::int64_t>(1, std::min<std::int64_t>(64, (k + 1) / 2));
  const std::int64_t blocks = (k + width - 1) / width;
#pragma omp parallel for schedule(dynamic, 1) if (n * k >= (std::int64_t{1} << 16))
  for (std::int64_t t = 0; t < blocks; ++t) {
    const std::int64_t c0 = t * width, c1 = std::min(k, c0 + width);
    T* x = b.data.data();
    for (std::int64_t i = 0; i < n; ++i) swap_rows(x, k, i, ipiv[i] - 1, c0, c1);
    for (std::int64_t i = 0; i < n; ++i) {
      T* xi = x + i * k;
      const T* li = lu.data.data() + i * n;
      for (std::int64_t j = 0; j < i; ++j) {
        const T l = li[j];
        const T* xj = x + j * k;
        for (std::int64_t c = c0; c < c1; ++c) xi[c] -= l * xj[c];
      }
    }
    for (std::int64_t i = n - 1; i >= 0; --i) {
      T* xi = x + i * k;
      const T* ui = lu.data.data() + i * n;
      for (std::int64_t j = i + 1; j < n; ++j) {
        const T u = ui[j];
        const T* xj = x + j * k;
        for (std::int64_t c = c0; c < c1; ++c) xi[c] -= u * xj[c];
      }
      const T d = ui[i];
      for (std::int64_t c = c0; c < c1; ++c) xi[c] /= d;
    }
  }
}

#define MM_LU_CPU(T)                                                                              \
  template void gemm_sub_cpu<T>(std::int64_t, std::int64_t, std::int64_t, const T*, std::int64_t, \
                                const T*, std::int64_t, T*, std::int64_t);                        \
  template void lu_cpu_blocked<T>(Dense<T>&, std::int64_t*, std::int64_t);                        \
  template void lu_cpu_blocked_nopivot<T>(Dense<T>&, std::int64_t*, std::int64_t);                \
  template void lu_solve_cpu<T>(const Dense<T>&, const std::int64_t*, Dense<T>&);
MM_FOR_VALUE_TYPES(MM_LU_CPU)

}  // namespace mm
