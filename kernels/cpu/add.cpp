// OpenMP matrix addition: flat vectorizable dense loops, row-split mixed and sparse kernels.
#include "add.hpp"

#include <omp.h>

#include <algorithm>
#include <numeric>

#include "instantiate.hpp"

namespace mm {

namespace {

// s*x without std::complex's operator*, whose inf/NaN recovery (a call to __muldc3) keeps
// the loops from vectorizing; it differs only when a product overflows or holds a NaN.
template <class T>
T mul(T s, T x) {
  if constexpr (is_complex_v<T>) {
    return T(s.real() * x.real() - s.imag() * x.imag(), s.real() * x.imag() + s.imag() * x.real());
  } else {
    return s * x;
  }
}

// c = alpha*a + beta*b over N reals.
template <class R>
void axpby_real(std::int64_t n, R alpha, const R* a, R beta, const R* b, R* c, int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) c[i] = alpha * a[i] + beta * b[i];
}

// c = alpha*a + beta*b over N complex numbers held as interleaved (re, im) reals.
template <class R>
void axpby_complex(std::int64_t n, std::complex<R> alpha, const R* a, std::complex<R> beta,
                   const R* b, R* c, int threads) {
  const R ar = alpha.real(), ai = alpha.imag(), br = beta.real(), bi = beta.imag();
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const R xr = a[2 * i], xi = a[2 * i + 1], yr = b[2 * i], yi = b[2 * i + 1];
    c[2 * i] = (ar * xr - ai * xi) + (br * yr - bi * yi);
    c[2 * i + 1] = (ar * xi + ai * xr) + (br * yi + bi * yr);
  }
}

// Union size of two sorted column lists.
template <class I>
std::int64_t union_size(const I* x, const I* xe, const I* y, const I* ye) {
  std::int64_t n = 0;
  while (x != xe && y != ye) {
    const I cx = *x, cy = *y;
    x += cx <= cy;
    y += cy <= cx;
    ++n;
  }
  return n + (xe - x) + (ye - y);
}

// Boundary p: the first row whose combined offset (nonzeros of A and B, plus one per row
// so that runs of empty rows are also shared out) reaches p/parts of the total.
template <class I, class T>
std::vector<std::int64_t> split_rows(const Csr<I, T>& a, const Csr<I, T>& b, int parts) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(parts) + 1, a.rows);
  s[0] = 0;
  auto work = [&](std::int64_t i) {
    return static_cast<double>(a.ptr[i]) + static_cast<double>(b.ptr[i]) + static_cast<double>(i);
  };
  const double total = work(a.rows);
  for (int p = 1; p < parts; ++p) {
    const double target = total * p / parts;
    std::int64_t lo = s[p - 1], hi = a.rows;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (work(mid) < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    s[p] = lo;
  }
  return s;
}

}  // namespace

template <class T>
void add_dense_cpu(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta,
                   int threads) {
  const std::int64_t n = a.rows * a.cols;
  if constexpr (is_complex_v<T>) {
    using R = real_type_t<T>;
    // The standard lets a complex array be read as its interleaved (re, im) reals.
    const R* x = reinterpret_cast<const R*>(a.data.data());
    const R* y = reinterpret_cast<const R*>(b.data.data());
    R* z = reinterpret_cast<R*>(c.data.data());
    if (alpha.imag() == 0 && beta.imag() == 0)
      axpby_real<R>(2 * n, alpha.real(), x, beta.real(), y, z, threads);
    else
      axpby_complex<R>(n, alpha, x, beta, y, z, threads);
  } else {
    axpby_real<T>(n, alpha, a.data.data(), beta, b.data.data(), c.data.data(), threads);
  }
}

template <class I, class T>
void add_mixed_cpu(const Dense<T>& d, T ds, const Csr<I, T>& s, T ss, Dense<T>& c, int threads) {
  const std::int64_t cols = d.cols;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < d.rows; ++i) {
    const T* x = d.data.data() + i * cols;
    T* z = c.data.data() + i * cols;
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j) z[j] = mul(ds, x[j]);
    // The row was just written, so the scatter hits cache.
    for (auto k = s.ptr[i]; k < s.ptr[i + 1]; ++k) z[s.idx[k]] += mul(ss, s.val[k]);
  }
}

template <class I, class T>
void add_sparse_cpu(const Csr<I, T>& a, const Csr<I, T>& b, Csr<I, T>& c, T alpha, T beta,
                    int threads) {
  c.rows = a.rows;
  c.cols = a.cols;
  c.ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  c.ptr[0] = 0;
  std::vector<std::int64_t> split, part_start;
#pragma omp parallel num_threads(std::max(1, threads))
  {
#pragma omp single
    {
      // Sized by the team actually granted, which may be smaller than asked for.
      const int nt = omp_get_num_threads();
      split = split_rows(a, b, nt);
      part_start.assign(static_cast<std::size_t>(nt) + 1, 0);
    }
    const int p = omp_get_thread_num();
    const std::int64_t lo = split[p], hi = split[p + 1];
    // Pass 1: each row's union size, kept in ptr[i + 1] until the prefix sum.
    std::int64_t mine = 0;
    for (std::int64_t i = lo; i < hi; ++i) {
      const auto n = union_size(a.idx.data() + a.ptr[i], a.idx.data() + a.ptr[i + 1],
                                b.idx.data() + b.ptr[i], b.idx.data() + b.ptr[i + 1]);
      c.ptr[i + 1] = static_cast<I>(n);
      mine += n;
    }
    part_start[p + 1] = mine;
#pragma omp barrier
#pragma omp single
    {
      std::partial_sum(part_start.begin(), part_start.end(), part_start.begin());
      c.idx.resize(static_cast<std::size_t>(part_start.back()));
      c.val.resize(static_cast<std::size_t>(part_start.back()));
    }
    // Pass 2: this part's offsets from its start, then the merge into place.
    std::int64_t off = part_start[p];
    for (std::int64_t i = lo; i < hi; ++i) {
      std::int64_t k = off;
      off += c.ptr[i + 1];
      c.ptr[i + 1] = static_cast<I>(off);
      auto x = a.ptr[i], y = b.ptr[i];
      const auto xe = a.ptr[i + 1], ye = b.ptr[i + 1];
      for (; x < xe && y < ye; ++k) {
        const I cx = a.idx[x], cy = b.idx[y];
        if (cx < cy) {
          c.idx[k] = cx;
          c.val[k] = mul(alpha, a.val[x++]);
        } else if (cy < cx) {
          c.idx[k] = cy;
          c.val[k] = mul(beta, b.val[y++]);
        } else {
          c.idx[k] = cx;
          c.val[k] = mul(alpha, a.val[x++]) + mul(beta, b.val[y++]);
        }
      }
      for (; x < xe; ++x, ++k) {
        c.idx[k] = a.idx[x];
        c.val[k] = mul(alpha, a.val[x]);
      }
      for (; y < ye; ++y, ++k) {
        c.idx[k] = b.idx[y];
        c.val[k] = mul(beta, b.val[y]);
      }
    }
  }
}

#define MM_ADD_CPU_T(T) \
  template void add_dense_cpu<T>(const Dense<T>&, const Dense<T>&, Dense<T>&, T, T, int);
MM_FOR_VALUE_TYPES(MM_ADD_CPU_T)
#define MM_ADD_CPU_IT(I, T)                                                                   \
  template void add_mixed_cpu<I, T>(const Dense<T>&, T, const Csr<I, T>&, T, Dense<T>&, int); \
  template void add_sparse_cpu<I, T>(const Csr<I, T>&, const Csr<I, T>&, Csr<I, T>&, T, T, int);
MM_FOR_INDEX_VALUE_TYPES(MM_ADD_CPU_IT)

}  // namespace mm
