// OpenMP products with a sparse operand: two-pass Gustavson SpGEMM, SpMM and DSMM.
#include <omp.h>

#include <algorithm>
#include <limits>

#include "instantiate.hpp"
#include "spgemm.hpp"
#include "spmv.hpp"  // spmv_split: rows split by nonzeros

namespace mm {

template <class I, class T>
Csr<I, T> spgemm_cpu(const Csr<I, T>& a, const Csr<I, T>& b, T alpha) {
  check_inner(a.rows, a.cols, b.rows, b.cols);
  const std::int64_t m = a.rows, n = b.cols;
  std::vector<std::int64_t> offset(static_cast<std::size_t>(m) + 1, 0);
  // Chunks of rows handed out dynamically: one row may cost a million times another.
  constexpr int kChunk = 32;
#pragma omp parallel
  {
    // mark[j] == i: column j already counted in row i (no clearing between rows).
    std::vector<std::int64_t> mark(static_cast<std::size_t>(n), -1);
#pragma omp for schedule(dynamic, kChunk)
    for (std::int64_t i = 0; i < m; ++i) {
      std::int64_t count = 0;
      for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
        const auto k = a.idx[e];
        for (auto f = b.ptr[k]; f < b.ptr[k + 1]; ++f) {
          const auto j = b.idx[f];
          if (mark[j] != i) {
            mark[j] = i;
            ++count;
          }
        }
      }
      offset[i + 1] = count;
    }
  }
  for (std::int64_t i = 0; i < m; ++i) offset[i + 1] += offset[i];
  const std::int64_t total = offset[m];
  if (total > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
    throw InputError("the product has " + std::to_string(total) +
                     " entries, more than 32-bit indices can count");
  Csr<I, T> c;
  c.rows = m;
  c.cols = n;
  c.ptr.resize(static_cast<std::size_t>(m) + 1);
  for (std::int64_t i = 0; i <= m; ++i) c.ptr[i] = static_cast<I>(offset[i]);
  c.idx.resize(static_cast<std::size_t>(total));
  c.val.resize(static_cast<std::size_t>(total));
#pragma omp parallel
  {
    std::vector<std::int64_t> mark(static_cast<std::size_t>(n), -1);
    std::vector<T> acc(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, kChunk)
    for (std::int64_t i = 0; i < m; ++i) {
      I* cols = c.idx.data() + offset[i];
      std::int64_t len = 0;
      for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
        const T aik = a.val[e];
        const auto k = a.idx[e];
        for (auto f = b.ptr[k]; f < b.ptr[k + 1]; ++f) {
          const auto j = b.idx[f];
          if (mark[j] != i) {
            mark[j] = i;
            acc[j] = T{};
            cols[len++] = j;
          }
          acc[j] += aik * b.val[f];
        }
      }
      std::sort(cols, cols + len);
      T* vals = c.val.data() + offset[i];
      for (std::int64_t q = 0; q < len; ++q) vals[q] = alpha * acc[cols[q]];
    }
  }
  return c;
}

template <class I, class T>
void spmm_cpu(const Csr<I, T>& a, const Dense<T>& b, Dense<T>& c, T alpha) {
  check_inner(a.rows, a.cols, b.rows, b.cols);
  const std::int64_t n = b.cols;
  const auto split = spmv_split(a, omp_get_max_threads());
  const int parts = static_cast<int>(split.size()) - 1;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p) {
    for (std::int64_t i = split[p]; i < split[p + 1]; ++i) {
      T* __restrict ci = c.data.data() + i * n;
      std::fill(ci, ci + n, T{});
      for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
        const T s = a.val[e];
        const T* __restrict bk = b.data.data() + static_cast<std::int64_t>(a.idx[e]) * n;
#pragma omp simd
        for (std::int64_t j = 0; j < n; ++j) ci[j] += s * bk[j];
      }
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) ci[j] *= alpha;
    }
  }
}

template <class I, class T>
void dsmm_cpu(const Dense<T>& a, const Csr<I, T>& b, Dense<T>& c, T alpha) {
  check_inner(a.rows, a.cols, b.rows, b.cols);
  const std::int64_t n = b.cols, k = a.cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < a.rows; ++i) {
    T* __restrict ci = c.data.data() + i * n;
    std::fill(ci, ci + n, T{});
    const T* ai = a.data.data() + i * k;
    for (std::int64_t p = 0; p < k; ++p) {
      const T s = ai[p];
      for (auto f = b.ptr[p]; f < b.ptr[p + 1]; ++f) ci[b.idx[f]] += s * b.val[f];
    }
    for (std::int64_t j = 0; j < n; ++j) ci[j] *= alpha;
  }
}

#define MM_SPGEMM_CPU(I, T)                                                      \
  template Csr<I, T> spgemm_cpu<I, T>(const Csr<I, T>&, const Csr<I, T>&, T);    \
  template void spmm_cpu<I, T>(const Csr<I, T>&, const Dense<T>&, Dense<T>&, T); \
  template void dsmm_cpu<I, T>(const Dense<T>&, const Csr<I, T>&, Dense<T>&, T);
MM_FOR_INDEX_VALUE_TYPES(MM_SPGEMM_CPU)

}  // namespace mm
