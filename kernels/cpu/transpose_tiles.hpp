// Register tiles of the blocked CPU transpose: an E x E tile of A (E = 64 / sizeof(T), one
// 64-byte line of every row) turned into E whole 64-byte lines of B, in AVX-512, SSE2 or
// plain loops, and the walk over the tiles of one block. Included by cpu/transpose.cpp only.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "transpose.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define MM_TRANSPOSE_X86 1
#define MM_AVX512 __attribute__((target("avx512f")))
#endif

namespace mm::transpose_tiles {

using i64 = std::int64_t;

// Values along a tile edge: one 64-byte line of a row of A, and of a row of B.
template <class T>
inline constexpr int kEdge = 64 / static_cast<int>(sizeof(T));

// The sign bit of an imaginary part within each 64-bit half of a 16-byte chunk of T values
// (HALF 0: low, 1: high), zero for real types. Conjugation is then an XOR, the same bits as
// std::conj's negation (NaN payloads included).
template <class T>
constexpr std::uint64_t conj_bits(int half) {
  constexpr std::uint64_t sign = 0x8000000000000000ULL;
  if constexpr (std::is_same_v<T, std::complex<float>>)
    return sign;  // every 8 bytes: real in the low 4, imaginary in the high 4
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return half == 1 ? sign : 0;
  else
    return 0;
}

// NI x NJ values from A (at A(i0, j0), row stride LDA) to B (at B(j0, i0), row stride LDB):
// the edges of every walk, and the whole of the portable one.
template <bool Conj, class T>
inline void scalar_tile(const T* a, i64 lda, T* b, i64 ldb, i64 ni, i64 nj) {
  for (i64 j = 0; j < nj; ++j)
    for (i64 i = 0; i < ni; ++i) b[j * ldb + i] = maybe_conj<Conj>(a[i * lda + j]);
}

template <class T, bool Conj>
struct PortableTile {
  static void full(const T* a, i64 lda, T* b, i64 ldb) {
    scalar_tile<Conj>(a, lda, b, ldb, kEdge<T>, kEdge<T>);
  }
};

#ifdef MM_TRANSPOSE_X86

// GCC 12 warns of the _mm512_undefined_* operands inside its own shuffle intrinsics, wherever
// they are inlined: up to the end of this file.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// STREAM: B's lines are aligned and written whole, so they bypass the caches (no read for
// ownership of lines that are only ever overwritten); else ordinary unaligned stores.
template <class T, bool Conj, bool Stream>
struct Sse2Tile {
  static void put(T* p, __m128i v) {
    if constexpr (Conj)
      v = _mm_xor_si128(v, _mm_set_epi64x(static_cast<long long>(conj_bits<T>(1)),
                                          static_cast<long long>(conj_bits<T>(0))));
    if constexpr (Stream)
      _mm_stream_si128(reinterpret_cast<__m128i*>(p), v);
    else
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
  }
  static __m128i get(const T* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

  // Each B line is written by consecutive stores, so that it fills one write-combining
  // buffer before the next line starts.
  static void full(const T* a, i64 lda, T* b, i64 ldb) {
    if constexpr (sizeof(T) == 16) {
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) put(b + c * ldb + r, get(a + r * lda + c));
    } else if constexpr (sizeof(T) == 8) {
      for (int c = 0; c < 8; c += 2) {
        __m128i lo[4], hi[4];
        for (int r = 0; r < 4; ++r) {
          const __m128i x = get(a + 2 * r * lda + c), y = get(a + (2 * r + 1) * lda + c);
          lo[r] = _mm_unpacklo_epi64(x, y);  // A(2r, c), A(2r+1, c)
          hi[r] = _mm_unpackhi_epi64(x, y);  // A(2r, c+1), A(2r+1, c+1)
        }
        for (int r = 0; r < 4; ++r) put(b + c * ldb + 2 * r, lo[r]);
        for (int r = 0; r < 4; ++r) put(b + (c + 1) * ldb + 2 * r, hi[r]);
      }
    } else {
      static_assert(sizeof(T) == 4);
      for (int c = 0; c < 16; c += 4)
        for (int r = 0; r < 16; r += 4) {  // one 4 x 4 sub-tile
          const __m128i x0 = get(a + r * lda + c), x1 = get(a + (r + 1) * lda + c),
                        x2 = get(a + (r + 2) * lda + c), x3 = get(a + (r + 3) * lda + c);
          const __m128i t0 = _mm_unpacklo_epi32(x0, x1), t1 = _mm_unpacklo_epi32(x2, x3),
                        t2 = _mm_unpackhi_epi32(x0, x1), t3 = _mm_unpackhi_epi32(x2, x3);
          put(b + c * ldb + r, _mm_unpacklo_epi64(t0, t1));
          put(b + (c + 1) * ldb + r, _mm_unpackhi_epi64(t0, t1));
          put(b + (c + 2) * ldb + r, _mm_unpacklo_epi64(t2, t3));
          put(b + (c + 3) * ldb + r, _mm_unpackhi_epi64(t2, t3));
        }
    }
  }
};

// The 4 x 4 transpose of 128-bit lanes: afterwards lane l of V[k] is what lane k of V[l] was.
MM_AVX512 inline void lanes_4x4(__m512i& v0, __m512i& v1, __m512i& v2, __m512i& v3) {
  const __m512i x0 = _mm512_shuffle_i64x2(v0, v1, 0x44), x1 = _mm512_shuffle_i64x2(v0, v1, 0xEE),
                x2 = _mm512_shuffle_i64x2(v2, v3, 0x44), x3 = _mm512_shuffle_i64x2(v2, v3, 0xEE);
  v0 = _mm512_shuffle_i64x2(x0, x2, 0x88);
  v1 = _mm512_shuffle_i64x2(x0, x2, 0xDD);
  v2 = _mm512_shuffle_i64x2(x1, x3, 0x88);
  v3 = _mm512_shuffle_i64x2(x1, x3, 0xDD);
}

// One 64-byte load per row of A, one 64-byte store per row of B. Values are moved as bits
// (integer shuffles), so NaN payloads and signed zeros come through unchanged.
template <class T, bool Conj, bool Stream>
struct Avx512Tile {
  static constexpr int E = kEdge<T>;

  MM_AVX512 static void put(T* p, __m512i v) {
    if constexpr (Conj) {
      const auto lo = static_cast<long long>(conj_bits<T>(0)),
                 hi = static_cast<long long>(conj_bits<T>(1));
      v = _mm512_xor_si512(v, _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo));
    }
    if constexpr (Stream)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    else
      _mm512_storeu_si512(p, v);
  }

  MM_AVX512 static void full(const T* a, i64 lda, T* b, i64 ldb) {
    __m512i r[E];
    for (int k = 0; k < E; ++k) r[k] = _mm512_loadu_si512(a + k * lda);
    if constexpr (sizeof(T) == 16) {
      lanes_4x4(r[0], r[1], r[2], r[3]);  // a lane is one value
      for (int k = 0; k < 4; ++k) put(b + k * ldb, r[k]);
    } else if constexpr (sizeof(T) == 8) {
      // t[k], lane l: A(2k, 2l), A(2k+1, 2l); t[4+k], lane l: the same rows in column 2l+1.
      __m512i t[8];
      for (int k = 0; k < 4; ++k) {
        t[k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
        t[4 + k] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
      }
      lanes_4x4(t[0], t[1], t[2], t[3]);  // t[l]: B row 2l
      lanes_4x4(t[4], t[5], t[6], t[7]);  // t[4+l]: B row 2l+1
      for (int l = 0; l < 4; ++l) {
        put(b + 2 * l * ldb, t[l]);
        put(b + (2 * l + 1) * ldb, t[4 + l]);
      }
    } else {
      static_assert(sizeof(T) == 4);
      // Pairs of rows interleaved, then quads: u[4m+c], lane l holds A(4m..4m+3, 4l+c).
      __m512i t[16], u[16];
      for (int k = 0; k < 8; ++k) {
        t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
      }
      for (int m = 0; m < 4; ++m) {
        u[4 * m] = _mm512_unpacklo_epi64(t[4 * m], t[4 * m + 2]);
        u[4 * m + 1] = _mm512_unpackhi_epi64(t[4 * m], t[4 * m + 2]);
        u[4 * m + 2] = _mm512_unpacklo_epi64(t[4 * m + 1], t[4 * m + 3]);
        u[4 * m + 3] = _mm512_unpackhi_epi64(t[4 * m + 1], t[4 * m + 3]);
      }
      for (int c = 0; c < 4; ++c) lanes_4x4(u[c], u[4 + c], u[8 + c], u[12 + c]);  // u[k]: B row k
      for (int k = 0; k < 16; ++k) put(b + k * ldb, u[k]);
    }
  }
};

#endif  // MM_TRANSPOSE_X86

// How the tiles of one transpose lie. Tile k along A's rows covers rows
// [max(0, si + k*E), min(rows, si + (k+1)*E)), likewise along columns with sj: si and sj
// (in (-E, 0]) put the tile edges on B's and A's 64-byte lines where the row lengths allow,
// so a whole tile reads whole lines of A and writes whole lines of B.
struct Grid {
  i64 rows = 0, cols = 0;
  i64 si = 0, sj = 0;    // first tile's start along A's rows, columns
  i64 nti = 0, ntj = 0;  // tiles along A's rows, columns
  i64 bti = 1, btj = 1;  // tiles along each edge of a block
  i64 band = 1;          // rows of tiles taken together
  bool stream = false;   // every whole tile's B rows start on a 64-byte line
};

// The tiles of block (BI, BJ), band by band: a band (BAND rows of tiles) reads its rows of A
// from left to right (sequential streams for the prefetchers), and for each column of tiles
// writes BAND consecutive lines into each of E rows of B, so that a B row's page is visited
// once for all of them (cpu/transpose.cpp has the measured sizes).
template <class T, bool Conj, class Full>
[[gnu::always_inline]] inline void walk_block(const Grid& g, const T* a, T* b, i64 bi, i64 bj) {
  constexpr i64 E = kEdge<T>;
  const i64 ti1 = std::min(g.nti, (bi + 1) * g.bti), tj1 = std::min(g.ntj, (bj + 1) * g.btj);
  for (i64 tb = bi * g.bti; tb < ti1; tb += g.band) {
    const i64 tb1 = std::min(ti1, tb + g.band);
    for (i64 tj = bj * g.btj; tj < tj1; ++tj) {
      const i64 j0 = std::max<i64>(0, g.sj + tj * E), j1 = std::min(g.cols, g.sj + (tj + 1) * E);
      for (i64 ti = tb; ti < tb1; ++ti) {
        const i64 i0 = std::max<i64>(0, g.si + ti * E), i1 = std::min(g.rows, g.si + (ti + 1) * E);
        const T* at = a + i0 * g.cols + j0;
        T* bt = b + j0 * g.rows + i0;
        if (i1 - i0 == E && j1 - j0 == E)
          Full::full(at, g.cols, bt, g.rows);
        else
          scalar_tile<Conj>(at, g.cols, bt, g.rows, i1 - i0, j1 - j0);
      }
    }
  }
}

template <class T, bool Conj>
void block_portable(const Grid& g, const T* a, T* b, i64 bi, i64 bj) {
  walk_block<T, Conj, PortableTile<T, Conj>>(g, a, b, bi, bj);
}

#ifdef MM_TRANSPOSE_X86
template <class T, bool Conj>
void block_sse2(const Grid& g, const T* a, T* b, i64 bi, i64 bj) {
  if (g.stream)
    walk_block<T, Conj, Sse2Tile<T, Conj, true>>(g, a, b, bi, bj);
  else
    walk_block<T, Conj, Sse2Tile<T, Conj, false>>(g, a, b, bi, bj);
}

// walk_block is inlined here, and the AVX-512 tiles into it, under this function's target.
template <class T, bool Conj>
MM_AVX512 void block_avx512(const Grid& g, const T* a, T* b, i64 bi, i64 bj) {
  if (g.stream)
    walk_block<T, Conj, Avx512Tile<T, Conj, true>>(g, a, b, bi, bj);
  else
    walk_block<T, Conj, Avx512Tile<T, Conj, false>>(g, a, b, bi, bj);
}
#pragma GCC diagnostic pop
#endif

}  // namespace mm::transpose_tiles
