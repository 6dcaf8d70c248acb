// Serial reference Jacobi (system and heated-room stencil), and the problem's definition
// shared by every backend: diagonal checks, the room's geometry, the iteration driver.
#include "jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "instantiate.hpp"
#include "mm/error.hpp"

namespace mm {

namespace {

template <class T>
double squared_change(const T& v, const T& old) {
  const auto d = v - old;  // in T, as every backend does it
  if constexpr (is_complex_v<T>) {
    return static_cast<double>(std::norm(d));
  } else {
    return static_cast<double>(d) * static_cast<double>(d);
  }
}

}  // namespace

template <class I, class T>
std::int64_t jacobi_zero_diagonal_row(const Csr<I, T>& a) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    bool found = false;
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      if (a.idx[k] == i) found = a.val[k] != T{};
    if (!found) return i;
  }
  return -1;
}

template <class I, class T>
std::int64_t jacobi_not_dominant_row(const Csr<I, T>& a) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double diag = 0, off = 0;
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      const double v = static_cast<double>(std::abs(a.val[k]));
      (a.idx[k] == i ? diag : off) += v;
    }
    if (!(diag > off)) return i;
  }
  return -1;
}

template <class I, class T>
JacobiResult jacobi_ref(const Csr<I, T>& a, const T* b, T* x, const JacobiStop& stop) {
  const std::int64_t n = a.rows;
  std::vector<T> old(static_cast<std::size_t>(n), T{});
  std::fill(x, x + n, T{});
  return jacobi_iterate(stop, [&](bool check) {
    std::copy(x, x + n, old.begin());
    double change = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      T s{}, d{};
      for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
        if (a.idx[e] == i)
          d = a.val[e];
        else
          s += a.val[e] * old[a.idx[e]];
      }
      x[i] = (b[i] - s) / d;
      if (check) change += squared_change(x[i], old[i]);
    }
    return change;
  });
}

// ---- the heated room --------------------------------------------------------------------

void check_heated_room_size(int dim, std::int64_t n) {
  if (n < 3)
    throw UsageError("--poisson" + std::to_string(dim) +
                     "d N needs N >= 3 (walls and one interior point)");
  if (n > (dim == 3 ? (1 << 20) : (std::int64_t{1} << 30)))
    throw UsageError("--poisson grid too large");
}

IndexRange heated_room_range(std::int64_t n, double a, double b) {
  const double h = 2.0 / static_cast<double>(n - 1), eps = 1e-9 * h;
  IndexRange r;
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = -1.0 + static_cast<double>(i) * h;
    if (x < a - eps || x > b + eps) continue;
    if (r.lo > r.hi) r.lo = i;
    r.hi = i;
  }
  return r;
}

HeatedRoom heated_room(int dim, std::int64_t n) {
  HeatedRoom r;
  r.dim = dim;
  r.n = n;
  r.rx = heated_room_range(n, -1.0, -3.0 / 8.0);
  r.ry = heated_room_range(n, -1.0, -0.5);
  r.rz = heated_room_range(n, -2.0 / 3.0, 0.0);
  const double h = 2.0 / static_cast<double>(n - 1);
  r.h2f = h * h * 200.0;
  return r;
}

template <class T>
void heated_room_init_planes(const HeatedRoom& r, T* u, std::int64_t first, std::int64_t last) {
  // 3D: planes k of N x N points; 2D: the plane is a row j, one k.
  const std::int64_t n = r.n;
  for (std::int64_t p = first; p < last; ++p) {
    const std::int64_t k = r.dim == 3 ? p : 0, j0 = r.dim == 3 ? 0 : p, j1 = r.dim == 3 ? n : p + 1;
    for (std::int64_t j = j0; j < j1; ++j)
      for (std::int64_t i = 0; i < n; ++i)
        u[((p - first) * (r.dim == 3 ? n : 1) + (j - j0)) * n + i] =
            heated_room_start<T>(r, i, j, k);
  }
}

template <class T>
void heated_room_init(const HeatedRoom& r, T* u) {
  heated_room_init_planes(r, u, 0, r.n);
}

template <class T>
double stencil_sweep_ref(const HeatedRoom& r, const T* u, T* out, bool norm) {
  const std::int64_t n = r.n, nn = n * n;
  const T src = static_cast<T>(r.h2f);
  double change = 0;
  if (r.dim == 2) {
    const T inv = T(1) / T(4);
    for (std::int64_t j = 1; j < n - 1; ++j)
      for (std::int64_t i = 1; i < n - 1; ++i) {
        const std::int64_t c = j * n + i;
        const T f = r.rx.contains(i) && r.ry.contains(j) ? src : T(0);
        const T v = (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + f) * inv;
        if (norm) change += squared_change(v, u[c]);
        out[c] = v;
      }
    return change;
  }
  const T inv = T(1) / T(6);
  for (std::int64_t k = 1; k < n - 1; ++k)
    for (std::int64_t j = 1; j < n - 1; ++j)
      for (std::int64_t i = 1; i < n - 1; ++i) {
        const std::int64_t c = (k * n + j) * n + i;
        const T f = r.rx.contains(i) && r.ry.contains(j) && r.rz.contains(k) ? src : T(0);
        const T v = (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - nn] + u[c + nn] + f) * inv;
        if (norm) change += squared_change(v, u[c]);
        out[c] = v;
      }
  return change;
}

template <class T>
JacobiResult stencil_iterate(const HeatedRoom& r, StencilSweep<T> sweep, T* u_a, T* u_b,
                             const JacobiStop& stop) {
  heated_room_init(r, u_a);
  heated_room_init(r, u_b);
  return stencil_iterate_set(r, sweep, u_a, u_b, stop);
}

template <class T>
JacobiResult stencil_iterate_set(const HeatedRoom& r, StencilSweep<T> sweep, T* u_a, T* u_b,
                                 const JacobiStop& stop) {
  T* cur = u_a;
  T* next = u_b;
  const JacobiResult res = jacobi_iterate(stop, [&](bool check) {
    const double change = sweep(r, cur, next, check);
    std::swap(cur, next);
    return change;
  });
  if (cur != u_a) std::copy(cur, cur + r.points(), u_a);
  return res;
}

#define MM_JACOBI_REF(I, T)                                               \
  template std::int64_t jacobi_zero_diagonal_row<I, T>(const Csr<I, T>&); \
  template std::int64_t jacobi_not_dominant_row<I, T>(const Csr<I, T>&);  \
  template JacobiResult jacobi_ref<I, T>(const Csr<I, T>&, const T*, T*, const JacobiStop&);
MM_FOR_INDEX_VALUE_TYPES(MM_JACOBI_REF)

#define MM_STENCIL_REF(T)                                                                      \
  template void heated_room_init<T>(const HeatedRoom&, T*);                                    \
  template void heated_room_init_planes<T>(const HeatedRoom&, T*, std::int64_t, std::int64_t); \
  template double stencil_sweep_ref<T>(const HeatedRoom&, const T*, T*, bool);                 \
  template JacobiResult stencil_iterate<T>(const HeatedRoom&, StencilSweep<T>, T*, T*,         \
                                           const JacobiStop&);                                 \
  template JacobiResult stencil_iterate_set<T>(const HeatedRoom&, StencilSweep<T>, T*, T*,     \
                                               const JacobiStop&);
MM_STENCIL_REF(float)
MM_STENCIL_REF(double)

}  // namespace mm
