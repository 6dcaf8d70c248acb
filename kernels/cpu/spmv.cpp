// OpenMP SpMV: CSR rows split by nonzeros; symmetric kinds from the stored triangle.
#include "spmv.hpp"

#include <omp.h>

#include <algorithm>

#include "instantiate.hpp"

namespace mm {

template <class I, class T>
std::vector<std::int64_t> spmv_split(const Csr<I, T>& a, int parts) {
  // Boundary p is the first row whose offset reaches p/parts of the nonzeros (+ rows, so
  // that empty rows also count for something and long runs of them are shared out).
  std::vector<std::int64_t> s(static_cast<std::size_t>(parts) + 1, a.rows);
  s[0] = 0;
  const double total = static_cast<double>(a.nnz() + a.rows);
  for (int p = 1; p < parts; ++p) {
    const double target = total * p / parts;
    std::int64_t lo = s[p - 1], hi = a.rows;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<double>(a.ptr[mid] + mid) < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    s[p] = lo;
  }
  return s;
}

template <class I, class T>
void spmv_cpu_csr(const Csr<I, T>& a, const std::vector<std::int64_t>& split, const T* x,
                  const T* y0, T* y, T alpha, T beta) {
  const int parts = static_cast<int>(split.size()) - 1;
  const bool use_beta = beta != T{};
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p) {
    for (std::int64_t i = split[p]; i < split[p + 1]; ++i) {
      T s{};
      const I e = a.ptr[i + 1];
      for (I k = a.ptr[i]; k < e; ++k) s += a.val[k] * x[a.idx[k]];
      y[i] = use_beta ? alpha * s + beta * y0[i] : alpha * s;
    }
  }
}

template <class T>
T mirror(const T& v, Symmetry s) {
  if (s == Symmetry::skew_symmetric) return -v;
  if constexpr (is_complex_v<T>) {
    if (s == Symmetry::hermitian) return std::conj(v);
  }
  return v;
}

template <class I, class T>
void spmv_cpu_sym(const Csr<I, T>& a, Symmetry sym, const T* x, const T* y0, T* y, T alpha, T beta,
                  int threads) {
  const std::int64_t n = a.rows;
  const int parts = std::max(1, threads);
  // One accumulator per part: the mirrored update of a_ij lands on row j, anywhere.
  std::vector<T> acc(static_cast<std::size_t>(n) * static_cast<std::size_t>(parts));
  const auto split = spmv_split(a, parts);
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p) {
    T* my = acc.data() + static_cast<std::size_t>(p) * static_cast<std::size_t>(n);
    for (std::int64_t i = split[p]; i < split[p + 1]; ++i) {
      T s{};
      const T xi = x[i];
      for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
        const std::int64_t j = a.idx[k];
        s += a.val[k] * x[j];
        if (j != i) my[j] += mirror(a.val[k], sym) * xi;
      }
      my[i] += s;
    }
  }
  const bool use_beta = beta != T{};
#pragma omp parallel for num_threads(parts) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    T s{};
    for (int p = 0; p < parts; ++p)
      s += acc[static_cast<std::size_t>(p) * static_cast<std::size_t>(n) + i];
    y[i] = use_beta ? alpha * s + beta * y0[i] : alpha * s;
  }
}

#define MM_SPMV_CPU(I, T)                                                                        \
  template std::vector<std::int64_t> spmv_split<I, T>(const Csr<I, T>&, int);                    \
  template void spmv_cpu_csr<I, T>(const Csr<I, T>&, const std::vector<std::int64_t>&, const T*, \
                                   const T*, T*, T, T);                                          \
  template void spmv_cpu_sym<I, T>(const Csr<I, T>&, Symmetry, const T*, const T*, T*, T, T, int);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_CPU)

}  // namespace mm
