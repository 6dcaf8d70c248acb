// OpenMP Jacobi: the system in one fused pass a iteration (update and change together), and
// the heated-room stencil over the slowest index with contiguous, vectorised inner rows.
#include "jacobi.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "instantiate.hpp"
#include "spmv.hpp"

namespace mm {

namespace {

template <class T>
double squared_change(const T& v, const T& old) {
  const auto d = v - old;
  if constexpr (is_complex_v<T>) {
    return static_cast<double>(std::norm(d));
  } else {
    return static_cast<double>(d) * static_cast<double>(d);
  }
}

// One stretch [I0, I1) of a grid row with a constant source ADD: the six (four) neighbours
// summed in the reference's order, so both backends round alike. NN = 0 in 2D.
template <class T, bool Norm, bool ThreeD>
double row_stretch(const T* __restrict u, T* __restrict out, std::int64_t i0, std::int64_t i1,
                   std::int64_t n, std::int64_t nn, T add, T inv) {
  double change = 0;
#pragma omp simd reduction(+ : change)
  for (std::int64_t i = i0; i < i1; ++i) {
    T v = u[i - 1] + u[i + 1] + u[i - n] + u[i + n];
    if constexpr (ThreeD) v = v + u[i - nn] + u[i + nn];
    v = (v + add) * inv;
    if constexpr (Norm) {
      const double d = static_cast<double>(v - u[i]);
      change += d * d;
    }
    out[i] = v;
  }
  return change;
}

// Interior of one grid row (u and out point at the row's first point): the radiator's
// stretch, when the row crosses it, gets h^2 f and the rest 0, the same sums as the
// reference's per-point choice.
template <class T, bool Norm, bool ThreeD>
double grid_row(const HeatedRoom& r, const T* u, T* out, bool source_row, T src, T inv) {
  const std::int64_t n = r.n, nn = ThreeD ? n * n : 0, first = 1, last = n - 1;
  if (!source_row || r.rx.lo > r.rx.hi)
    return row_stretch<T, Norm, ThreeD>(u, out, first, last, n, nn, T(0), inv);
  const std::int64_t lo = std::clamp(r.rx.lo, first, last), hi = std::clamp(r.rx.hi + 1, lo, last);
  return row_stretch<T, Norm, ThreeD>(u, out, first, lo, n, nn, T(0), inv) +
         row_stretch<T, Norm, ThreeD>(u, out, lo, hi, n, nn, src, inv) +
         row_stretch<T, Norm, ThreeD>(u, out, hi, last, n, nn, T(0), inv);
}

template <class T, bool Norm>
double sweep(const HeatedRoom& r, const T* u, T* out) {
  const std::int64_t n = r.n;
  const T src = static_cast<T>(r.h2f);
  double change = 0;
  if (r.dim == 2) {
    const T inv = T(1) / T(4);
#pragma omp parallel for reduction(+ : change) schedule(static)
    for (std::int64_t j = 1; j < n - 1; ++j)
      change += grid_row<T, Norm, false>(r, u + j * n, out + j * n, r.ry.contains(j), src, inv);
    return change;
  }
  const T inv = T(1) / T(6);
#pragma omp parallel for reduction(+ : change) schedule(static)
  for (std::int64_t k = 1; k < n - 1; ++k) {
    for (std::int64_t j = 1; j < n - 1; ++j) {
      const std::int64_t row = (k * n + j) * n;
      change += grid_row<T, Norm, true>(r, u + row, out + row, r.ry.contains(j) && r.rz.contains(k),
                                        src, inv);
    }
  }
  return change;
}

}  // namespace

template <class I, class T>
void jacobi_split_diagonal(const Csr<I, T>& a, Csr<I, T>& off, std::vector<T>& inv_diag) {
  off.rows = a.rows;
  off.cols = a.cols;
  off.ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  off.idx.clear();
  off.val.clear();
  off.idx.reserve(a.idx.size());
  off.val.reserve(a.val.size());
  inv_diag.assign(static_cast<std::size_t>(a.rows), T{});
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      if (a.idx[k] == i) {
        inv_diag[i] = T(1) / a.val[k];
      } else {
        off.idx.push_back(a.idx[k]);
        off.val.push_back(a.val[k]);
      }
    }
    off.ptr[i + 1] = static_cast<I>(off.idx.size());
  }
}

template <class I, class T>
JacobiResult jacobi_cpu(const Csr<I, T>& off, const std::vector<T>& inv_diag, const T* b, T* x,
                        std::vector<T>& x_old, const JacobiStop& stop) {
  const std::int64_t n = off.rows;
  const int threads = omp_get_max_threads();
  // Rows shared out by nonzeros, as the SpMV does: one dense row must not stall a thread.
  const auto split = spmv_split(off, threads);
  x_old.assign(static_cast<std::size_t>(n), T{});
  std::fill(x, x + n, T{});
  // X and X_OLD swap roles each iteration; CUR is where x_k lands.
  T* bufs[2] = {x_old.data(), x};
  JacobiResult r;
  int cur = 1;
  for (std::int64_t k = 1; k <= stop.max_iter; ++k) {
    const T* xo = bufs[cur];
    T* xn = bufs[1 - cur];
    const bool check = jacobi_checks(stop, k);
    double change = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : change) schedule(static, 1)
    for (int p = 0; p < threads; ++p) {
      for (std::int64_t i = split[p]; i < split[p + 1]; ++i) {
        T s{};
        const I e = off.ptr[i + 1];
        for (I q = off.ptr[i]; q < e; ++q) s += off.val[q] * xo[off.idx[q]];
        const T v = (b[i] - s) * inv_diag[i];
        if (check) change += squared_change(v, xo[i]);
        xn[i] = v;
      }
    }
    cur = 1 - cur;
    r.iterations = k;
    if (check) {
      r.norm = std::sqrt(change);
      if (stop.tol >= 0 && r.norm <= stop.tol) {
        r.converged = true;
        break;
      }
    }
  }
  if (bufs[cur] != x) std::copy(bufs[cur], bufs[cur] + n, x);
  return r;
}

template <class T>
double stencil_sweep_cpu(const HeatedRoom& r, const T* u, T* out, bool norm) {
  return norm ? sweep<T, true>(r, u, out) : sweep<T, false>(r, u, out);
}

#define MM_JACOBI_CPU(I, T)                                                                     \
  template void jacobi_split_diagonal<I, T>(const Csr<I, T>&, Csr<I, T>&, std::vector<T>&);     \
  template JacobiResult jacobi_cpu<I, T>(const Csr<I, T>&, const std::vector<T>&, const T*, T*, \
                                         std::vector<T>&, const JacobiStop&);
MM_FOR_INDEX_VALUE_TYPES(MM_JACOBI_CPU)

template double stencil_sweep_cpu<float>(const HeatedRoom&, const float*, float*, bool);
template double stencil_sweep_cpu<double>(const HeatedRoom&, const double*, double*, bool);

}  // namespace mm
