// OpenMP transposes: tiled out of place, tile-pair swaps in place, CSR by a parallel
// counting sort.
#include "transpose.hpp"

#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace mm {

namespace {

// Tile edge in elements: a tile row is at least one 64-byte line for every value type.
// 8-byte values: 64 (measured on the 2-core Xeon, 8192^2 doubles, streamed stores:
// 0.38 of copy bandwidth at 32, 0.48 at 64, 0.36 at 128).
template <class T>
constexpr std::int64_t default_tile() {
  return sizeof(T) >= 16 ? 16 : 64;
}

// One tile of B = A^T: rows [i0, i1) and columns [j0, j1) of A. Destination rows are the
// inner loop's target so every store of a B row goes to consecutive addresses.
template <bool Conj, class T>
void tile_out_of_place(std::int64_t rows, std::int64_t cols, const T* __restrict a, T* __restrict b,
                       std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
  if constexpr (sizeof(T) == 8 && !is_complex_v<T>) {
    // 8-byte values (double, int64) in 16-byte aligned pairs: streamed past the caches.
    // A transpose writes every line of B once and never reads it back, so the ordinary
    // read-for-ownership of each destination line is a third more traffic; the copy it
    // is measured against (glibc memcpy) streams the same way. SSE2 is x86-64 baseline.
    if ((i1 - i0) % 2 == 0 && i0 % 2 == 0 && rows % 2 == 0 &&
        reinterpret_cast<std::uintptr_t>(b) % 16 == 0) {
      for (std::int64_t j = j0; j < j1; ++j) {
        T* brow = b + j * rows;
        const T* acol = a + j;
        for (std::int64_t i = i0; i < i1; i += 2) {
          long long lo, hi;
          std::memcpy(&lo, acol + i * cols, 8);
          std::memcpy(&hi, acol + (i + 1) * cols, 8);
          _mm_stream_si128(reinterpret_cast<__m128i*>(brow + i), _mm_set_epi64x(hi, lo));
        }
      }
      return;
    }
  }
  for (std::int64_t j = j0; j < j1; ++j) {
    T* __restrict brow = b + j * rows;
    const T* __restrict acol = a + j;
    for (std::int64_t i = i0; i < i1; ++i) brow[i] = maybe_conj<Conj>(acol[i * cols]);
  }
}

template <bool Conj, class T>
void blocked(std::int64_t rows, std::int64_t cols, const T* a, T* b, int threads,
             std::int64_t tile) {
  const std::int64_t tr = (rows + tile - 1) / tile, tc = (cols + tile - 1) / tile;
  // Tiles are handed out along A's rows so that each thread streams through whole
  // stripes of A and writes its own columns of B.
#pragma omp parallel for num_threads(threads) collapse(2) schedule(static)
  for (std::int64_t bi = 0; bi < tr; ++bi)
    for (std::int64_t bj = 0; bj < tc; ++bj)
      tile_out_of_place<Conj>(rows, cols, a, b, bi * tile, std::min(rows, (bi + 1) * tile),
                              bj * tile, std::min(cols, (bj + 1) * tile));
  _mm_sfence();  // streamed stores visible before anyone reads B
}

// Tiles (I, J) and (J, I), I < J: each element of one swapped with its mirror in the other.
template <bool Conj, class T>
void swap_tiles(std::int64_t n, T* a, std::int64_t i0, std::int64_t i1, std::int64_t j0,
                std::int64_t j1) {
  for (std::int64_t i = i0; i < i1; ++i)
    for (std::int64_t j = j0; j < j1; ++j) {
      const T x = a[i * n + j];
      a[i * n + j] = maybe_conj<Conj>(a[j * n + i]);
      a[j * n + i] = maybe_conj<Conj>(x);
    }
}

// A diagonal tile transposed where it lies (its diagonal conjugated when Conj).
template <bool Conj, class T>
void diagonal_tile(std::int64_t n, T* a, std::int64_t i0, std::int64_t i1) {
  for (std::int64_t i = i0; i < i1; ++i) {
    if constexpr (Conj) a[i * n + i] = maybe_conj<Conj>(a[i * n + i]);
    for (std::int64_t j = i + 1; j < i1; ++j) {
      const T x = a[i * n + j];
      a[i * n + j] = maybe_conj<Conj>(a[j * n + i]);
      a[j * n + i] = maybe_conj<Conj>(x);
    }
  }
}

template <bool Conj, class T>
void inplace(std::int64_t n, T* a, int threads, std::int64_t tile) {
  const std::int64_t nt = (n + tile - 1) / tile;
  // Tile row I holds nt - I pairs: dynamic scheduling evens out the triangle.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t bi = 0; bi < nt; ++bi) {
    const std::int64_t i0 = bi * tile, i1 = std::min(n, i0 + tile);
    diagonal_tile<Conj>(n, a, i0, i1);
    for (std::int64_t bj = bi + 1; bj < nt; ++bj)
      swap_tiles<Conj>(n, a, i0, i1, bj * tile, std::min(n, (bj + 1) * tile));
  }
}

}  // namespace

template <class T>
void transpose_cpu_blocked(std::int64_t rows, std::int64_t cols, const T* a, T* b, bool conjugate,
                           int threads, std::int64_t tile) {
  if (tile <= 0) tile = default_tile<T>();
  threads = std::max(1, threads);
  if (conjugate && is_complex_v<T>)
    blocked<true>(rows, cols, a, b, threads, tile);
  else
    blocked<false>(rows, cols, a, b, threads, tile);
}

template <class T>
void transpose_cpu_inplace(std::int64_t n, T* a, bool conjugate, int threads, std::int64_t tile) {
  if (tile <= 0) tile = default_tile<T>();
  threads = std::max(1, threads);
  if (conjugate && is_complex_v<T>)
    inplace<true>(n, a, threads, tile);
  else
    inplace<false>(n, a, threads, tile);
}

template <class I, class T>
void transpose_cpu_csr2csc(const Csr<I, T>& a, Csr<I, T>& t, bool conjugate, int threads,
                           std::vector<I>& scratch) {
  t.rows = a.cols;
  t.cols = a.rows;
  const std::int64_t cols = a.cols, nnz = a.nnz();
  const int parts =
      static_cast<int>(std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(1, a.rows)));
  // Row split by nonzeros: part p starts at the first row whose offset reaches p/parts of nnz.
  std::vector<std::int64_t> first(static_cast<std::size_t>(parts) + 1, a.rows);
  first[0] = 0;
  for (int p = 1; p < parts; ++p) {
    const auto target = static_cast<I>(nnz * p / parts);
    first[p] =
        std::lower_bound(a.ptr.begin() + first[p - 1], a.ptr.end() - 1, target) - a.ptr.begin();
  }
  scratch.resize(static_cast<std::size_t>(parts) * static_cast<std::size_t>(cols));
  std::vector<I> chunk_sum(static_cast<std::size_t>(parts) + 1, 0);
  t.ptr[0] = 0;
  const bool conj = conjugate && is_complex_v<T>;
#pragma omp parallel num_threads(parts)
  {
    const int p = omp_get_thread_num();
    I* const count = scratch.data() + static_cast<std::size_t>(p) * static_cast<std::size_t>(cols);
    // 1. This part's column counts.
    std::fill(count, count + cols, I{0});
    for (I k = a.ptr[first[p]]; k < a.ptr[first[p + 1]]; ++k) ++count[a.idx[k]];
#pragma omp barrier
    // 2. Column totals over a column chunk per thread, and the chunk's sum.
    const std::int64_t c0 = cols * p / parts, c1 = cols * (p + 1) / parts;
    I sum = 0;
    for (std::int64_t j = c0; j < c1; ++j) {
      I total = 0;
      for (int q = 0; q < parts; ++q) total += scratch[static_cast<std::size_t>(q) * cols + j];
      t.ptr[j + 1] = total;
      sum += total;
    }
    chunk_sum[p + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (int q = 0; q < parts; ++q) chunk_sum[q + 1] += chunk_sum[q];
    // 3. Exclusive scan within the chunk; each part's start in every column of it.
    I run = chunk_sum[p];
    for (std::int64_t j = c0; j < c1; ++j) {
      const I total = t.ptr[j + 1];
      I at = run;
      for (int q = 0; q < parts; ++q) {
        I& c = scratch[static_cast<std::size_t>(q) * cols + j];
        const I n = c;
        c = at;
        at += n;
      }
      run += total;
      t.ptr[j + 1] = run;
    }
#pragma omp barrier
    // 4. Scatter this part's rows in order: rows of the transpose stay sorted.
    for (std::int64_t i = first[p]; i < first[p + 1]; ++i) {
      for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
        const I dst = count[a.idx[k]]++;
        t.idx[dst] = static_cast<I>(i);
        if constexpr (is_complex_v<T>)
          t.val[dst] = conj ? std::conj(a.val[k]) : a.val[k];
        else
          t.val[dst] = a.val[k];
      }
    }
  }
}

#define MM_TRANSPOSE_CPU(T)                                                                   \
  template void transpose_cpu_blocked<T>(std::int64_t, std::int64_t, const T*, T*, bool, int, \
                                         std::int64_t);                                       \
  template void transpose_cpu_inplace<T>(std::int64_t, T*, bool, int, std::int64_t);
MM_TRANSPOSE_VALUE_TYPES(MM_TRANSPOSE_CPU)

#define MM_TRANSPOSE_CSR_CPU(I, T)                                                   \
  template void transpose_cpu_csr2csc<I, T>(const Csr<I, T>&, Csr<I, T>&, bool, int, \
                                            std::vector<I>&);
MM_TRANSPOSE_INDEX_VALUE_TYPES(MM_TRANSPOSE_CSR_CPU)

}  // namespace mm
