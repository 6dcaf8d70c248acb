// OpenMP transposes: out of place in blocks of register tiles, tile-pair swaps in place, CSR
// by a parallel counting sort.
#include "transpose.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "cpu/transpose_cpu.hpp"
#include "cpu/transpose_tiles.hpp"

namespace mm {

namespace {

using transpose_tiles::Grid;
using transpose_tiles::kEdge;

// In-place tile edge in values: a tile row is at least one 64-byte line for every value type.
template <class T>
constexpr std::int64_t default_tile() {
  return sizeof(T) >= 16 ? 16 : 64;
}

// Out of place, on 4 KiB pages, TLB misses rather than DRAM bound a transpose whose stores
// land in rows 64 KiB apart; two choices keep them down (measured on the 2-core Xeon under
// load, 8192^2 doubles, AVX-512 tiles, streamed stores, ratio to a copy in the same round):
//
// Blocks of 64 x 64 register tiles: a block reads one 4 KiB page of each of its rows of A
// and writes one of each of its rows of B (512 doubles), 1024 pages, within the second-level
// TLB. One thread: 8 x 8192 strips 0.42, 64 x 64 blocks 0.59, 256 x 256 0.59, 512 x 512 0.72.
constexpr std::int64_t kBlockTiles = 64;
// Bands of 32 rows of A: each B row then takes 32 values (4 lines of doubles) on one visit to
// its page. Doubles, 2 threads / 1 thread: bands of 8 rows 0.70 / 0.72, 16 rows 0.85 / 0.88,
// 32 rows 0.92 / 0.90; floats 16 rows 0.81 / 0.64, 32 rows 0.97 / 0.74, 64 rows 0.48 / 0.42
// (more rows at once than the prefetchers follow).
constexpr std::int64_t kBandRows = 32;

// First index from P on whose address is a multiple of 64 bytes (0 when none can be: the
// caller checks that P is T-aligned).
template <class T>
std::int64_t to_line(const T* p) {
  const auto mis = reinterpret_cast<std::uintptr_t>(p) % 64;
  return mis == 0 ? 0 : static_cast<std::int64_t>((64 - mis) / sizeof(T));
}

// Tile edges on B's lines when every B row starts at the same offset within a line (rows
// a multiple of a line) and on A's lines likewise; else wherever they fall.
template <class T>
Grid make_grid(std::int64_t rows, std::int64_t cols, const T* a, T* b, std::int64_t block) {
  constexpr std::int64_t E = kEdge<T>;
  const auto t_aligned = [](const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0;
  };
  const bool b_lines = (rows * static_cast<std::int64_t>(sizeof(T))) % 64 == 0 && t_aligned(b);
  const bool a_lines = (cols * static_cast<std::int64_t>(sizeof(T))) % 64 == 0 && t_aligned(a);
  Grid g;
  g.rows = rows;
  g.cols = cols;
  g.stream = b_lines;
  const std::int64_t oi = b_lines ? to_line(b) : 0, oj = a_lines ? to_line(a) : 0;
  g.si = oi == 0 ? 0 : oi - E;
  g.sj = oj == 0 ? 0 : oj - E;
  g.nti = (rows - g.si + E - 1) / E;
  g.ntj = (cols - g.sj + E - 1) / E;
  g.bti = g.btj = block > 0 ? std::max<std::int64_t>(1, block / E) : kBlockTiles;
  g.band = kBandRows / E;
  return g;
}

template <class T>
using BlockFn = void (*)(const Grid&, const T*, T*, std::int64_t, std::int64_t);

template <bool Conj, class T>
BlockFn<T> block_fn(TransposeIsa isa) {
  switch (isa) {
#ifdef MM_TRANSPOSE_X86
    case TransposeIsa::avx512:
      return transpose_tiles::block_avx512<T, Conj>;
    case TransposeIsa::sse2:
      return transpose_tiles::block_sse2<T, Conj>;
#endif
    default:
      return transpose_tiles::block_portable<T, Conj>;
  }
}

template <bool Conj, class T>
void blocked(std::int64_t rows, std::int64_t cols, const T* a, T* b, int threads,
             std::int64_t block, TransposeIsa isa) {
  if (rows == 0 || cols == 0) return;
  const Grid g = make_grid(rows, cols, a, b, block);
  const BlockFn<T> fn = block_fn<Conj, T>(isa);
  const std::int64_t nbi = (g.nti + g.bti - 1) / g.bti, nbj = (g.ntj + g.btj - 1) / g.btj;
  // Blocks handed out along A's rows: each thread reads whole stripes of A.
#pragma omp parallel num_threads(threads)
  {
#pragma omp for collapse(2) schedule(static) nowait
    for (std::int64_t bi = 0; bi < nbi; ++bi)
      for (std::int64_t bj = 0; bj < nbj; ++bj) fn(g, a, b, bi, bj);
#ifdef MM_TRANSPOSE_X86
    // Streamed stores are weakly ordered: every thread fences its own before the region's
    // closing barrier, so B is complete for whoever reads it next.
    _mm_sfence();
#endif
  }
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

bool transpose_isa_available(TransposeIsa isa) {
  switch (isa) {
#ifdef MM_TRANSPOSE_X86
    case TransposeIsa::avx512: {
      static const bool has = __builtin_cpu_supports("avx512f");  // CPU and OS (XCR0) support
      return has;
    }
    case TransposeIsa::sse2:
      return true;  // x86-64 baseline
#else
    case TransposeIsa::avx512:
    case TransposeIsa::sse2:
      return false;
#endif
    default:
      return true;
  }
}

TransposeIsa transpose_best_isa() {
  for (const TransposeIsa isa : {TransposeIsa::avx512, TransposeIsa::sse2})
    if (transpose_isa_available(isa)) return isa;
  return TransposeIsa::portable;
}

const char* transpose_isa_name(TransposeIsa isa) {
  switch (isa) {
    case TransposeIsa::best:
      return "best";
    case TransposeIsa::avx512:
      return "avx512";
    case TransposeIsa::sse2:
      return "sse2";
    case TransposeIsa::portable:
      return "portable";
  }
  return "?";
}

template <class T>
void transpose_cpu_blocked_isa(std::int64_t rows, std::int64_t cols, const T* a, T* b,
                               bool conjugate, int threads, std::int64_t block, TransposeIsa isa) {
  if (isa == TransposeIsa::best) isa = transpose_best_isa();
  if (!transpose_isa_available(isa))
    throw std::invalid_argument(std::string("transpose: this processor has no ") +
                                transpose_isa_name(isa));
  threads = std::max(1, threads);
  if (conjugate && is_complex_v<T>)
    blocked<true>(rows, cols, a, b, threads, block, isa);
  else
    blocked<false>(rows, cols, a, b, threads, block, isa);
}

template <class T>
void transpose_cpu_blocked(std::int64_t rows, std::int64_t cols, const T* a, T* b, bool conjugate,
                           int threads, std::int64_t tile) {
  transpose_cpu_blocked_isa(rows, cols, a, b, conjugate, threads, tile, TransposeIsa::best);
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

#define MM_TRANSPOSE_CPU(T)                                                                       \
  template void transpose_cpu_blocked<T>(std::int64_t, std::int64_t, const T*, T*, bool, int,     \
                                         std::int64_t);                                           \
  template void transpose_cpu_blocked_isa<T>(std::int64_t, std::int64_t, const T*, T*, bool, int, \
                                             std::int64_t, TransposeIsa);                         \
  template void transpose_cpu_inplace<T>(std::int64_t, T*, bool, int, std::int64_t);
MM_TRANSPOSE_VALUE_TYPES(MM_TRANSPOSE_CPU)

#define MM_TRANSPOSE_CSR_CPU(I, T)                                                   \
  template void transpose_cpu_csr2csc<I, T>(const Csr<I, T>&, Csr<I, T>&, bool, int, \
                                            std::vector<I>&);
MM_TRANSPOSE_INDEX_VALUE_TYPES(MM_TRANSPOSE_CSR_CPU)

}  // namespace mm
