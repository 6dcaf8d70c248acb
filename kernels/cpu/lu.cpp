// OpenMP blocked LU: recursive panels, row swaps, triangular solve, and the trailing update
// by gemm.cpp's packed, register-blocked product (its micro-kernels chosen at run time).
#include "lu.hpp"

#include <algorithm>

#include "cpu/gemm_packed.hpp"
#include "instantiate.hpp"

namespace mm {

namespace {

// Widest block of the blocked LU: its block width is the shared dimension of the trailing
// update, and up to 256 it is one packed K panel of the product (gemm.cpp's KC for real types).
constexpr std::int64_t kMaxBlock = 256;

// C -= A * B on row-major blocks by gemm.cpp's packed product. PARALLEL false (or a product
// below 2^21 multiply-adds) runs on the calling thread alone: the panel's small updates,
// where a parallel region's barriers cost more than they save (and far more on a shared
// machine, where a descheduled thread holds every other one at the barrier).
template <class T>
void gemm_sub(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
              const T* b, std::int64_t ldb, T* c, std::int64_t ldc, bool parallel,
              GemmKernel kind = GemmKernel::best) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  cpu::gemm_packed(m, n, k, T(-1), a, lda, b, ldb, T(1), c, ldc, kind,
                   parallel && m * n * k >= (std::int64_t{1} << 21));
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
  const std::int64_t w1 = (w / 2 + 7) / 8 * 8, w2 = w - w1;  // halves of whole 8-column groups
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

template <class T>
void gemm_sub_cpu(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
                  const T* b, std::int64_t ldb, T* c, std::int64_t ldc, GemmKernel kind) {
  gemm_sub(m, n, k, a, lda, b, ldb, c, ldc, true, kind);
}

template <class T>
void lu_blocked(Dense<T>& a, std::int64_t* ipiv, std::int64_t nb, bool pivoting) {
  const std::int64_t n = a.rows;
  nb = std::max<std::int64_t>(1, std::min(nb, kMaxBlock));
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
    gemm_sub(n - right, n - right, jb, base + right * n + j0, n, base + j0 * n + right, n,
             base + right * n + right, n, true);
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
                                const T*, std::int64_t, T*, std::int64_t, GemmKernel);            \
  template void lu_cpu_blocked<T>(Dense<T>&, std::int64_t*, std::int64_t);                        \
  template void lu_cpu_blocked_nopivot<T>(Dense<T>&, std::int64_t*, std::int64_t);                \
  template void lu_solve_cpu<T>(const Dense<T>&, const std::int64_t*, Dense<T>&);
MM_FOR_VALUE_TYPES(MM_LU_CPU)

}  // namespace mm
