// OpenMP Jacobi: the system in one fused pass a iteration (update and change together), and
// the heated-room stencil over the grid's rows with contiguous, vectorised inner loops (whole
// grids, or a slab of planes for the distributed run).
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
template <class T, bool ThreeD>
void row_stretch(const T* __restrict u, T* __restrict out, std::int64_t i0, std::int64_t i1,
                 std::int64_t n, std::int64_t nn, T add, T inv) {
#pragma omp simd
  for (std::int64_t i = i0; i < i1; ++i) {
    T v = u[i - 1] + u[i + 1] + u[i - n] + u[i + n];
    if constexpr (ThreeD) v = v + u[i - nn] + u[i + nn];
    out[i] = (v + add) * inv;
  }
}

// row_stretch with the squared change summed into kLanes fixed lanes LANE: point i into lane
// (i - 1) % kLanes whatever the stretch, the lanes added in a fixed order at the end of the row
// (grid_row). So a row's sum depends on its values alone: not on where the row lies in memory
// (a vectorised reduction's lanes could shift with the alignment) nor on the thread summing it.
// XOFF: the grid's x of index 0 (a box's row starts past x = 0; the lane goes by the grid's x).
constexpr int kLanes = kStencilLanes;
template <class T, bool ThreeD>
void row_stretch_change(const T* __restrict u, T* __restrict out, std::int64_t i0, std::int64_t i1,
                        std::int64_t n, std::int64_t nn, T add, T inv, double* __restrict lane,
                        std::int64_t xoff) {
  auto point = [&](std::int64_t i) {
    T v = u[i - 1] + u[i + 1] + u[i - n] + u[i + n];
    if constexpr (ThreeD) v = v + u[i - nn] + u[i + nn];
    v = (v + add) * inv;
    const double d = static_cast<double>(v - u[i]);
    out[i] = v;
    return d * d;
  };
  std::int64_t i = i0;
  for (; i < i1 && (i + xoff - 1) % kLanes != 0; ++i) lane[(i + xoff - 1) % kLanes] += point(i);
  for (; i + kLanes <= i1; i += kLanes) {
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) lane[l] += point(i + l);
  }
  for (; i < i1; ++i) lane[(i + xoff - 1) % kLanes] += point(i);
}

// Points [FIRST, LAST) of one grid row (x as the grid's; u and out point at the row's point of
// x = XOFF; N and NN: the strides of y and z): the radiator's stretch, when the row crosses it,
// gets h^2 f and the rest 0, the same sums as the reference's per-point choice. Returns the
// row's squared change when NORM (summed in lanes from zero), else 0.
template <class T, bool ThreeD>
double grid_row(const HeatedRoom& r, const T* u, T* out, std::int64_t n, std::int64_t nn,
                std::int64_t xoff, std::int64_t first, std::int64_t last, bool source_row, T src,
                T inv, bool norm) {
  double lane[kLanes] = {};
  auto stretch = [&](std::int64_t i0, std::int64_t i1, T add) {
    if (norm)
      row_stretch_change<T, ThreeD>(u, out, i0 - xoff, i1 - xoff, n, nn, add, inv, lane, xoff);
    else
      row_stretch<T, ThreeD>(u, out, i0 - xoff, i1 - xoff, n, nn, add, inv);
  };
  if (!source_row || r.rx.lo > r.rx.hi) {
    stretch(first, last, T(0));
  } else {
    const std::int64_t lo = std::clamp(r.rx.lo, first, last),
                       hi = std::clamp(r.rx.hi + 1, lo, last);
    stretch(first, lo, T(0));
    stretch(lo, hi, src);
    stretch(hi, last, T(0));
  }
  return norm ? stencil_lane_sum(lane) : 0.0;
}

// Rows of the planes [K0, K1), one parallel loop over all of them (a thin slab of a few planes
// still feeds every thread); U and OUT point at plane FIRST. ROW_CHANGE: a value a row, or null.
template <class T, bool ThreeD>
void sweep_rows(const HeatedRoom& r, const T* u, T* out, std::int64_t first, std::int64_t k0,
                std::int64_t k1, double* row_change_out) {
  const std::int64_t n = r.n, per_plane = ThreeD ? n - 2 : 1, rows = (k1 - k0) * per_plane;
  const T src = static_cast<T>(r.h2f), inv = T(1) / T(ThreeD ? 6 : 4);
  const bool norm = row_change_out != nullptr;
#pragma omp parallel for schedule(static)
  for (std::int64_t q = 0; q < rows; ++q) {
    const std::int64_t k = k0 + q / per_plane, j = ThreeD ? 1 + q % per_plane : k;
    // Offset of the row from plane FIRST: 3D (k, j), 2D the row k itself.
    const std::int64_t row = ThreeD ? ((k - first) * n + j) * n : (k - first) * n;
    const bool source = ThreeD ? r.ry.contains(j) && r.rz.contains(k) : r.ry.contains(k);
    const double c = grid_row<T, ThreeD>(r, u + row, out + row, n, ThreeD ? n * n : 0, 0, 1, n - 1,
                                         source, src, inv, norm);
    if (norm) row_change_out[q] = c;
  }
}

// The rows of REGION of a box buffer, one parallel loop over all of them.
template <class T, bool ThreeD>
void sweep_box(const HeatedRoom& r, const GridBox& b, const T* u, T* out, const GridRegion& g,
               double* row_change, std::int64_t ld) {
  const std::int64_t per_plane = g.hi[1] - g.lo[1], rows = g.rows();
  const std::int64_t sy = b.sx, sz = ThreeD ? b.sx * b.sy : 0;
  const T src = static_cast<T>(r.h2f), inv = T(1) / T(ThreeD ? 6 : 4);
  const bool norm = row_change != nullptr;
#pragma omp parallel for schedule(static)
  for (std::int64_t q = 0; q < rows; ++q) {
    const std::int64_t k = g.lo[2] + q / per_plane, j = g.lo[1] + q % per_plane;
    const std::int64_t row = b.offset(b.x0, j, k);  // the buffer's first point of the row
    const bool source = ThreeD ? r.ry.contains(j) && r.rz.contains(k) : r.ry.contains(j);
    const double c = grid_row<T, ThreeD>(r, u + row, out + row, sy, sz, b.x0, g.lo[0], g.hi[0],
                                         source, src, inv, norm);
    if (norm) row_change[(k - g.lo[2]) * ld + (j - g.lo[1])] = c;
  }
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
  int cur = 1;
  const JacobiResult r = jacobi_iterate(stop, [&](bool check) {
    const T* xo = bufs[cur];
    T* xn = bufs[1 - cur];
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
    return change;
  });
  if (bufs[cur] != x) std::copy(bufs[cur], bufs[cur] + n, x);
  return r;
}

template <class T>
void stencil_sweep_cpu_planes(const HeatedRoom& r, const T* u, T* out, std::int64_t first,
                              std::int64_t k0, std::int64_t k1, double* plane_change) {
  if (k1 <= k0) return;
  const bool three = r.dim == 3;
  // A value a row, then each plane's rows added in order (one row a plane in 2D): the row
  // buffer is reused from sweep to sweep (one a calling thread).
  thread_local std::vector<double> rows;
  double* row_change = nullptr;
  if (plane_change) {
    rows.resize(static_cast<std::size_t>((k1 - k0) * (three ? r.n - 2 : 1)));
    row_change = rows.data();
  }
  if (three)
    sweep_rows<T, true>(r, u, out, first, k0, k1, row_change);
  else
    sweep_rows<T, false>(r, u, out, first, k0, k1, row_change);
  if (!plane_change) return;
  if (!three) {
    std::copy(rows.begin(), rows.end(), plane_change);
    return;
  }
  // On this thread: N^2 additions against the sweep's N^3 points, and no second parallel
  // region (its barrier costs more than the sums where threads share cores).
  const std::int64_t per = r.n - 2;
  for (std::int64_t p = 0; p < k1 - k0; ++p) {
    double s = 0;
    for (std::int64_t j = 0; j < per; ++j) s += row_change[p * per + j];
    plane_change[p] = s;
  }
}

template <class T>
void stencil_sweep_cpu_box(const HeatedRoom& r, const GridBox& box, const T* u, T* out,
                           const GridRegion& region, double* row_change, std::int64_t ld) {
  if (region.empty()) return;
  if (r.dim == 3)
    sweep_box<T, true>(r, box, u, out, region, row_change, ld);
  else
    sweep_box<T, false>(r, box, u, out, region, row_change, ld);
}

template <class T>
void stencil_change_lanes(const GridBox& b, const T* u_old, const T* u_new, const GridRegion& g,
                          double* lanes) {
  if (g.empty()) return;
  const std::int64_t per_plane = g.hi[1] - g.lo[1], rows = g.rows();
#pragma omp parallel for schedule(static)
  for (std::int64_t q = 0; q < rows; ++q) {
    const std::int64_t k = g.lo[2] + q / per_plane, j = g.lo[1] + q % per_plane;
    const std::int64_t row = b.offset(0, j, k);  // the row's point of x = 0 (an index only)
    double* lane = lanes + q * kLanes;
    // As row_stretch_change: the new value less the old in T, squared in double.
    for (std::int64_t i = g.lo[0]; i < g.hi[0]; ++i) {
      const double d = static_cast<double>(u_new[row + i] - u_old[row + i]);
      lane[(i - 1) % kLanes] += d * d;
    }
  }
}

double stencil_lane_sum(const double* lanes) {
  double s = 0;
  for (int l = 0; l < kLanes; ++l) s += lanes[l];
  return s;
}

double stencil_sum_planes(const double* plane_change, std::int64_t count) {
  double s = 0;
  for (std::int64_t p = 0; p < count; ++p) s += plane_change[p];
  return s;
}

template <class T>
double stencil_sweep_cpu(const HeatedRoom& r, const T* u, T* out, bool norm) {
  const std::int64_t planes = r.n - 2;
  if (!norm) {
    stencil_sweep_cpu_planes<T>(r, u, out, 0, 1, r.n - 1, nullptr);
    return 0;
  }
  thread_local std::vector<double> plane;
  plane.resize(static_cast<std::size_t>(planes));
  stencil_sweep_cpu_planes<T>(r, u, out, 0, 1, r.n - 1, plane.data());
  return stencil_sum_planes(plane.data(), planes);
}

#define MM_JACOBI_CPU(I, T)                                                                     \
  template void jacobi_split_diagonal<I, T>(const Csr<I, T>&, Csr<I, T>&, std::vector<T>&);     \
  template JacobiResult jacobi_cpu<I, T>(const Csr<I, T>&, const std::vector<T>&, const T*, T*, \
                                         std::vector<T>&, const JacobiStop&);
MM_FOR_INDEX_VALUE_TYPES(MM_JACOBI_CPU)

#define MM_STENCIL_CPU(T)                                                                      \
  template double stencil_sweep_cpu<T>(const HeatedRoom&, const T*, T*, bool);                 \
  template void stencil_sweep_cpu_planes<T>(const HeatedRoom&, const T*, T*, std::int64_t,     \
                                            std::int64_t, std::int64_t, double*);              \
  template void stencil_sweep_cpu_box<T>(const HeatedRoom&, const GridBox&, const T*, T*,      \
                                         const GridRegion&, double*, std::int64_t);            \
  template void stencil_change_lanes<T>(const GridBox&, const T*, const T*, const GridRegion&, \
                                        double*);
MM_STENCIL_CPU(float)
MM_STENCIL_CPU(double)

}  // namespace mm
