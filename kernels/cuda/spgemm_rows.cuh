// Building blocks of the CUDA products with a sparse operand: the Gustavson SpGEMM's row bins,
// walk over one row's products, hash-table insertion and bitonic sort (kernels/cuda/spgemm.cu);
// the row-group launch shape it shares with the SpMM (spmm.cu); the host side the runners share
// (with vendor/spgemm_cusparse.cu): the real-values-only factory and C's download.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "cuda/cuda_util.cuh"
#include "spgemm.hpp"

namespace mm::spgemm {

// ---- the launch shape: a group of G lanes per row ----------------------------------------

// The blocks of PER_BLOCK threads that give each of WORK threads one.
inline unsigned blocks_for(std::int64_t work, int per_block) {
  return static_cast<unsigned>((work + per_block - 1) / per_block);
}

// The row of this thread's group of G lanes (G a power of two dividing THREADS, or THREADS
// itself: a block a row), THREADS / G rows a block; its lane is threadIdx.x % G.
template <int THREADS, int G>
__device__ __forceinline__ std::int64_t group_row() {
  static_assert(THREADS % G == 0, "groups tile the block");
  return blockIdx.x * static_cast<std::int64_t>(THREADS / G) + threadIdx.x / G;
}
// The warp lanes of this thread's unit of U lanes (U a power of two <= 32): the mask of the
// unit's shuffles and ballots.
template <int U>
__device__ __forceinline__ unsigned unit_mask() {
  static_assert(U <= 32 && (U & (U - 1)) == 0, "a unit is a power-of-two part of a warp");
  return U == 32 ? ~0u : ((1u << U) - 1) << (threadIdx.x % 32 / U * U);
}

// ---- host side shared by the runners -----------------------------------------------------

// The hand-written runners R take real values: A's and B's shapes checked and complex values
// refused (naming IMPL) before the runner, which needs a GPU, exists.
template <template <class, class> class R, template <class, class> class P, class I, class T>
std::unique_ptr<Runner> make_real_runner(const P<I, T>& p, const char* impl) {
  check_inner(p.a->rows, p.a->cols, p.b->rows, p.b->cols);
  if constexpr (is_complex_v<T>) {
    throw InputError(std::string(impl) + " takes real values; use --impl cusparse");
  } else {
    return std::make_unique<R<I, T>>(p);
  }
}

// C = P.c (P.a's rows by P.b's columns, NNZ entries) from its device arrays CP, CI and CV.
template <class I, class T>
void download_product(const SpgemmProblem<I, T>& p, const cuda::Buffer<I>& cp,
                      const cuda::Buffer<I>& ci, const cuda::Buffer<T>& cv, std::int64_t nnz) {
  Csr<I, T>& c = *p.c;
  c.rows = p.a->rows;
  c.cols = p.b->cols;
  c.ptr.resize(static_cast<std::size_t>(c.rows) + 1);
  cp.download(c.ptr.data(), c.ptr.size());
  c.idx.resize(static_cast<std::size_t>(nnz));
  c.val.resize(static_cast<std::size_t>(nnz));
  ci.download(c.idx.data(), c.idx.size());
  cv.download(c.val.data(), c.val.size());
}

// ---- the Gustavson SpGEMM's rows ----------------------------------------------------------

// Bins of rows by the room their table needs: 0 holds empty rows, 1..kTableBins a shared
// table of kMinTable << (bin - 1) slots, kDenseBin the dense accumulator in global memory.
constexpr int kMinTable = 16;
constexpr int kTableBins = 11;  // up to 16384 slots (192 KiB of int32 keys + doubles)
constexpr int kDenseBin = kTableBins + 1;
constexpr int kBins = kDenseBin + 1;

// The bin of a row with NEED distinct columns at most: a table at least 1 + 1/SLACK times
// NEED (linear probing slows down as a table fills), except in the largest one, where a
// row fits as long as NEED <= MAX_TABLE. The symbolic pass bins by product counts, which
// often overestimate the distinct columns, so it asks less slack than the numeric one.
__host__ __device__ inline int bin_of(std::int64_t need, std::int64_t max_table, int slack) {
  if (need == 0) return 0;
  if (need > max_table) return kDenseBin;
  const std::int64_t want = need + need / slack;
  int b = 1;
  for (std::int64_t t = kMinTable; t < want && t < max_table; t <<= 1) ++b;
  return b;
}
__host__ __device__ inline int table_of(int bin) {
  return kMinTable << (bin - 1);
}

template <class I>
constexpr I kEmpty = std::numeric_limits<I>::max();  // above every column: sorts last

// Compare-and-swap on a key slot, shared or global memory.
__device__ __forceinline__ std::int32_t cas(std::int32_t* p, std::int32_t expect, std::int32_t v) {
  return atomicCAS(p, expect, v);
}
__device__ __forceinline__ std::int64_t cas(std::int64_t* p, std::int64_t expect, std::int64_t v) {
  return static_cast<std::int64_t>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                             static_cast<unsigned long long>(expect),
                                             static_cast<unsigned long long>(v)));
}

// The slot of column J in a table of 2^(32 - SHIFT) slots, inserted if absent (FRESH set
// then). Fibonacci hashing spreads runs of consecutive columns; linear probing after.
template <class I>
__device__ __forceinline__ unsigned insert(I* keys, unsigned mask, int shift, I j, bool& fresh) {
  unsigned h = (static_cast<unsigned>(j) * 2654435769u) >> shift;
  for (;;) {
    const I old = cas(keys + h, kEmpty<I>, j);
    if (old == kEmpty<I> || old == j) {
      fresh = old == kEmpty<I>;
      return h;
    }
    h = (h + 1) & mask;
  }
}

// Calls VISIT(j, a_ik * b_kj) for every product of row [A0, A1) of A with B, by a unit of U
// lanes (U <= 32, UMASK its lanes in the warp). The unit takes chunks FIRST, FIRST + STEP,
// ... of U entries of A's row; each lane walks the B row of its own entry when that is
// short, and the unit walks long B rows together, lanes across the row (coalesced), so a
// row of A hitting very long rows of B is spread over all lanes. DEFER(fb, fe, a) may take
// a long B row [fb, fe) away (returning true) for the whole block to walk later.
template <int U, bool VALUES, class I, class T, class D, class F>
__device__ __forceinline__ void walk(unsigned umask, int first, int step, I a0, I a1,
                                     const I* __restrict__ ai, const T* __restrict__ av,
                                     const I* __restrict__ bp, const I* __restrict__ bi,
                                     const T* __restrict__ bv, D&& defer, F&& visit) {
  constexpr I kShort = U / 2 > 2 ? U / 2 : 2;
  const int lane = threadIdx.x % U;
  const int seg = threadIdx.x % 32 / U * U;  // the unit's first lane in the warp
  for (std::int64_t base = a0 + std::int64_t{first} * U; base < a1;
       base += std::int64_t{step} * U) {
    const std::int64_t e = base + lane;
    I fb = 0, fe = 0;
    T a{};
    if (e < a1) {
      const I k = ai[e];
      fb = bp[k];
      fe = bp[k + 1];
      if constexpr (VALUES) a = av[e];
    }
    const bool wide = fe - fb > kShort;
    if (!wide)
      for (I f = fb; f < fe; ++f) visit(bi[f], VALUES ? a * bv[f] : T{});
    unsigned w = __ballot_sync(umask, wide && !defer(fb, fe, a));
    if constexpr (U < 32) w = (w >> seg) & ((1u << U) - 1);
    while (w) {
      const int src = __ffs(w) - 1;
      w &= w - 1;
      const I sb = __shfl_sync(umask, fb, src, U), se = __shfl_sync(umask, fe, src, U);
      T sa{};
      if constexpr (VALUES) sa = __shfl_sync(umask, a, src, U);
      for (I f = sb + lane; f < se; f += U) visit(bi[f], VALUES ? sa * bv[f] : T{});
    }
  }
}

// B rows longer than a block, set aside by walk for the whole block: one warp alone would
// walk such a row while the others wait when A's row has few entries.
template <class I, class T>
struct Deferred {
  static constexpr unsigned kMax = 256;  // more are walked by their warp
  I fb[kMax], fe[kMax];
  T a[kMax];
  unsigned n;

  // Takes [fb, fe) when longer than THREADS and there is room.
  template <int THREADS>
  __device__ __forceinline__ bool take(I b0, I b1, T v) {
    if (b1 - b0 <= THREADS) return false;
    const unsigned s = atomicAdd(&n, 1u);
    if (s >= kMax) return false;
    fb[s] = b0, fe[s] = b1, a[s] = v;
    return true;
  }
  // Every deferred row by every thread of the block (after a barrier).
  template <int THREADS, bool VALUES, class F>
  __device__ __forceinline__ void walk_all(const I* __restrict__ bi, const T* __restrict__ bv,
                                           F&& visit) const {
    const unsigned count = n < kMax ? n : kMax;
    for (unsigned q = 0; q < count; ++q)
      for (I f = fb[q] + static_cast<I>(threadIdx.x); f < fe[q]; f += THREADS)
        visit(bi[f], VALUES ? a[q] * bv[f] : T{});
  }
};
struct NoDeferred {};

// Sorts a table of SIZE (a power of two) keys with their values, ascending, by N threads
// (LANE in [0, N)); SYNC is the barrier among them. Empty slots (kEmpty) end up last.
template <class I, class T, class Sync>
__device__ __forceinline__ void bitonic_sort(I* keys, T* vals, int size, int lane, int n,
                                             Sync&& sync) {
  for (int k = 2; k <= size; k <<= 1) {
    for (int s = k >> 1; s > 0; s >>= 1) {
      for (int t = lane; t < size / 2; t += n) {
        const int lo = 2 * t - (t & (s - 1)), hi = lo + s;
        const bool up = (lo & k) == 0;
        const I klo = keys[lo], khi = keys[hi];
        if ((klo > khi) == up) {
          keys[lo] = khi;
          keys[hi] = klo;
          const T v = vals[lo];
          vals[lo] = vals[hi];
          vals[hi] = v;
        }
      }
      sync();
    }
  }
}

}  // namespace mm::spgemm
