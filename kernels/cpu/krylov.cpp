// Krylov method drivers (CG, BiCGSTAB, restarted GMRES with Givens rotations), written
// once over a backend's KrylovOps: the serial ref and the OpenMP cpu backends share them.
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "instantiate.hpp"
#include "solve.hpp"

namespace mm {

namespace {

template <class T>
using R = real_type_t<T>;

// A work vector where OPS keep theirs (host memory unless the ops say otherwise).
template <class T>
struct Vec {
  Vec(const KrylovOps<T>& ops, std::int64_t n) : v(ops.vector(n)) {}
  T* p() { return v->data(); }
  std::unique_ptr<KrylovVector<T>> v;
};

// The norm from x'x. Rounding can make the dot slightly negative; a NaN must stay NaN (never
// "converged").
template <class T>
double norm_of(const T& xx) {
  const double d = static_cast<double>(std::real(xx));
  return d < 0 ? 0.0 : std::sqrt(d);
}

template <class T>
double norm(KrylovOps<T>& ops, const T* x) {
  return norm_of(ops.dot(x, x));
}

// {x1'y1, x2'y2} in one batch (one reduction across ranks).
template <class T>
std::pair<T, T> dot2(KrylovOps<T>& ops, const T* x1, const T* y1, const T* x2, const T* y2) {
  const T* xs[2] = {x1, x2};
  const T* ys[2] = {y1, y2};
  T d[2];
  ops.dots(2, xs, ys, d);
  return {d[0], d[1]};
}

// t = b - A x; returns ||t||.
template <class T>
double true_residual(KrylovOps<T>& ops, const T* b, const T* x, T* t) {
  ops.matvec(x, t);
  ops.axpby(T(1), b, T(-1), t);
  return norm(ops, t);
}

struct Outcome {
  std::int64_t iterations = 0;
  bool converged = false;
  std::string note;
  double flops = 0;
};

// Convergence is declared on the recurrence's residual only after the true residual
// b - Ax confirms it; otherwise the true one replaces it and the method restarts from x
// (rounding makes the two drift apart on ill-conditioned systems). z = M^-1 r is computed
// before the test so that ||r|| and r'z come in one batch: two reductions an iteration.
template <class T>
Outcome cg(KrylovOps<T>& ops, const T* b, T* x, const IterOptions& o, double goal) {
  const std::int64_t n = ops.size();
  const double n_d = static_cast<double>(n), per = 2 * ops.nnz() + 10 * n_d + (o.jacobi ? n_d : 0);
  Vec<T> r(ops, n), z(ops, n), p(ops, n), q(ops, n);
  Outcome out;
  true_residual(ops, b, x, r.p());
  ops.precond(r.p(), z.p());
  ops.axpby(T(1), z.p(), T(0), p.p());
  T rz = ops.dot(r.p(), z.p());
  while (out.iterations < o.max_iter) {
    ++out.iterations;
    out.flops += per;
    ops.matvec(p.p(), q.p());
    const T pq = ops.dot(p.p(), q.p());
    if (pq == T{}) {
      out.note = "breakdown (p'Ap = 0)";
      return out;
    }
    const T alpha = rz / pq;
    ops.axpby(alpha, p.p(), T(1), x);
    ops.axpby(-alpha, q.p(), T(1), r.p());
    ops.precond(r.p(), z.p());
    const auto [rr, rz_new] = dot2(ops, r.p(), r.p(), r.p(), z.p());
    if (norm_of(rr) <= goal) {
      if (true_residual(ops, b, x, r.p()) <= goal) {
        out.converged = true;
        return out;
      }
      ops.precond(r.p(), z.p());
      ops.axpby(T(1), z.p(), T(0), p.p());
      rz = ops.dot(r.p(), z.p());
      continue;
    }
    ops.axpby(T(1), z.p(), rz_new / rz, p.p());
    rz = rz_new;
  }
  return out;
}

// Batched: t't with t's, and ||r|| with the next iteration's rhat'r: four reductions an
// iteration.
template <class T>
Outcome bicgstab(KrylovOps<T>& ops, const T* b, T* x, const IterOptions& o, double goal) {
  const std::int64_t n = ops.size();
  const double n_d = static_cast<double>(n),
               per = 4 * ops.nnz() + 20 * n_d + (o.jacobi ? 2 * n_d : 0);
  Vec<T> r(ops, n), rhat(ops, n), p(ops, n), v(ops, n), ph(ops, n), s(ops, n), sh(ops, n),
      t(ops, n);
  Outcome out;
  true_residual(ops, b, x, r.p());
  ops.axpby(T(1), r.p(), T(0), rhat.p());
  T rho(1), alpha(1), omega(1), rho_next{};
  bool fresh = true, have_next = false;
  while (out.iterations < o.max_iter) {
    ++out.iterations;
    out.flops += per;
    const T rho_new = have_next ? rho_next : ops.dot(rhat.p(), r.p());
    have_next = false;
    if (rho_new == T{}) {
      out.note = "breakdown (rho = 0)";
      return out;
    }
    if (fresh) {
      ops.axpby(T(1), r.p(), T(0), p.p());
      fresh = false;
    } else {
      ops.axpby(-omega, v.p(), T(1), p.p());
      ops.axpby(T(1), r.p(), (rho_new / rho) * (alpha / omega), p.p());
    }
    rho = rho_new;
    ops.precond(p.p(), ph.p());
    ops.matvec(ph.p(), v.p());
    const T rv = ops.dot(rhat.p(), v.p());
    if (rv == T{}) {
      out.note = "breakdown (rhat'v = 0)";
      return out;
    }
    alpha = rho / rv;
    ops.axpby(T(1), r.p(), T(0), s.p());
    ops.axpby(-alpha, v.p(), T(1), s.p());
    bool check = false;
    if (norm(ops, s.p()) <= goal) {
      ops.axpby(alpha, ph.p(), T(1), x);
      check = true;
    } else {
      ops.precond(s.p(), sh.p());
      ops.matvec(sh.p(), t.p());
      const auto [tt, ts] = dot2(ops, t.p(), t.p(), t.p(), s.p());
      omega = tt == T{} ? T{} : ts / tt;
      ops.axpby(alpha, ph.p(), T(1), x);
      ops.axpby(omega, sh.p(), T(1), x);
      ops.axpby(T(1), s.p(), T(0), r.p());
      ops.axpby(-omega, t.p(), T(1), r.p());
      const auto [rr, rhat_r] = dot2(ops, r.p(), r.p(), rhat.p(), r.p());
      check = norm_of(rr) <= goal;
      rho_next = rhat_r;  // the next iteration's rho, unless a restart changes rhat and r
      have_next = !check;
      if (!check && omega == T{}) {
        out.note = "breakdown (omega = 0)";
        return out;
      }
    }
    if (check) {
      if (true_residual(ops, b, x, r.p()) <= goal) {
        out.converged = true;
        return out;
      }
      ops.axpby(T(1), r.p(), T(0), rhat.p());
      fresh = true;
    }
  }
  return out;
}

// Complex Givens rotation zeroing b in (a, b): c real, [c s; -conj(s) c].
template <class T>
void givens(const T& a, const T& b, R<T>& c, T& s) {
  const R<T> aa = std::abs(a), ab = std::abs(b);
  if (ab == 0) {
    c = 1;
    s = T{};
  } else if (aa == 0) {
    c = 0;
    s = T(1);
  } else {
    const R<T> r = std::hypot(aa, ab);
    c = aa / r;
    if constexpr (is_complex_v<T>)
      s = (a / aa) * std::conj(b) / r;
    else
      s = (a / aa) * b / r;
  }
}
// Step j of Arnoldi: w against v[0..j], the coefficients into column j of H (m columns);
// returns ||w|| after. Modified Gram-Schmidt: each dot product after the previous projection.
template <class T>
double orthogonalize_mgs(KrylovOps<T>& ops, std::vector<Vec<T>>& v, int j, Vec<T>& w,
                         std::vector<T>& h, int m) {
  for (int i = 0; i <= j; ++i) {
    T& hij = h[static_cast<std::size_t>(i * m + j)];
    hij = ops.dot(v[i].p(), w.p());
    ops.axpby(-hij, v[i].p(), T(1), w.p());
  }
  return norm(ops, w.p());
}

// Classical Gram-Schmidt twice: c = V'w, w -= V c; d = V'w with w'w in the same batch,
// w -= V d; H's column is c + d. ||w||^2 after the second pass is w'w - |d|^2 (V orthonormal),
// exact to rounding while |d|^2 is small beside w'w, as it is unless w lies almost in V's
// span (then, or for a NaN, w's norm is measured once more).
template <class T>
double orthogonalize_cgs2(KrylovOps<T>& ops, std::vector<Vec<T>>& v, int j, Vec<T>& w,
                          std::vector<T>& h, int m) {
  const int k = j + 1;
  std::vector<const T*> xs(static_cast<std::size_t>(k) + 1), ys(xs.size(), w.p());
  for (int i = 0; i < k; ++i) xs[static_cast<std::size_t>(i)] = v[i].p();
  xs[static_cast<std::size_t>(k)] = w.p();
  std::vector<T> c(static_cast<std::size_t>(k)), d(static_cast<std::size_t>(k) + 1);
  ops.dots(k, xs.data(), ys.data(), c.data());
  for (int i = 0; i < k; ++i) ops.axpby(-c[i], v[i].p(), T(1), w.p());
  ops.dots(k + 1, xs.data(), ys.data(), d.data());
  double dd = 0;
  for (int i = 0; i < k; ++i) {
    ops.axpby(-d[i], v[i].p(), T(1), w.p());
    h[static_cast<std::size_t>(i * m + j)] = c[i] + d[i];
    dd += static_cast<double>(std::norm(d[i]));
  }
  const double ww = static_cast<double>(std::real(d[static_cast<std::size_t>(k)]));
  if (dd <= 0.5 * ww) return std::sqrt(ww - dd);
  return norm(ops, w.p());
}

template <class T>
Outcome gmres(KrylovOps<T>& ops, const T* b, T* x, const IterOptions& o, double goal) {
  const std::int64_t n = ops.size();
  const int m = std::max(1, o.restart);
  const double n_d = static_cast<double>(n);
  std::vector<Vec<T>> v;
  v.reserve(static_cast<std::size_t>(m) + 1);
  for (int i = 0; i <= m; ++i) v.emplace_back(ops, n);
  Vec<T> w(ops, n), z(ops, n);
  std::vector<T> h(static_cast<std::size_t>((m + 1) * m)), g(static_cast<std::size_t>(m) + 1),
      sn(m), y(m);
  std::vector<R<T>> cs(m);
  auto H = [&](int i, int j) -> T& { return h[static_cast<std::size_t>(i * m + j)]; };
  Outcome out;
  for (;;) {
    const double beta = true_residual(ops, b, x, v[0].p());
    if (beta <= goal) {
      out.converged = true;
      return out;
    }
    if (out.iterations >= o.max_iter) return out;
    ops.axpby(T(0), v[0].p(), T(static_cast<R<T>>(1 / beta)), v[0].p());
    std::fill(g.begin(), g.end(), T{});
    g[0] = T(static_cast<R<T>>(beta));
    int k = 0;  // inner steps done in this cycle
    for (int j = 0; j < m && out.iterations < o.max_iter; ++j) {
      ++out.iterations;
      const double passes = o.orth == Orthogonalization::cgs2 ? 2 : 1;
      out.flops += 2 * ops.nnz() + passes * 4 * n_d * (j + 1) + 6 * n_d + (o.jacobi ? n_d : 0);
      ops.precond(v[j].p(), z.p());
      ops.matvec(z.p(), w.p());
      const double hn = o.orth == Orthogonalization::cgs2 ? orthogonalize_cgs2(ops, v, j, w, h, m)
                                                          : orthogonalize_mgs(ops, v, j, w, h, m);
      H(j + 1, j) = T(static_cast<R<T>>(hn));
      if (hn != 0) ops.axpby(T(static_cast<R<T>>(1 / hn)), w.p(), T(0), v[j + 1].p());
      for (int i = 0; i < j; ++i) {
        const T a = H(i, j), c = H(i + 1, j);
        H(i, j) = cs[i] * a + sn[i] * c;
        H(i + 1, j) = -conj_of(sn[i]) * a + cs[i] * c;
      }
      givens(H(j, j), H(j + 1, j), cs[j], sn[j]);
      H(j, j) = cs[j] * H(j, j) + sn[j] * H(j + 1, j);
      H(j + 1, j) = T{};
      g[j + 1] = -conj_of(sn[j]) * g[j];
      g[j] = cs[j] * g[j];
      k = j + 1;
      if (static_cast<double>(std::abs(g[j + 1])) <= goal || hn == 0) break;
    }
    // x += M^-1 V y with H y = g (upper triangular k x k).
    for (int i = k - 1; i >= 0; --i) {
      T s = g[i];
      for (int l = i + 1; l < k; ++l) s -= H(i, l) * y[l];
      y[i] = H(i, i) == T{} ? T{} : s / H(i, i);
    }
    ops.axpby(y[0], v[0].p(), T(0), w.p());
    for (int i = 1; i < k; ++i) ops.axpby(y[i], v[i].p(), T(1), w.p());
    ops.precond(w.p(), z.p());
    ops.axpby(T(1), z.p(), T(1), x);
  }
}

}  // namespace

const char* method_name(SolveMethod m) {
  switch (m) {
    case SolveMethod::lu:
      return "lu";
    case SolveMethod::gauss:
      return "gauss";
    case SolveMethod::umfpack:
      return "umfpack";
    case SolveMethod::cg:
      return "cg";
    case SolveMethod::bicgstab:
      return "bicgstab";
    case SolveMethod::gmres:
      return "gmres";
  }
  return "?";
}

SolveMethod parse_method(const std::string& s) {
  for (auto m : {SolveMethod::lu, SolveMethod::gauss, SolveMethod::umfpack, SolveMethod::cg,
                 SolveMethod::bicgstab, SolveMethod::gmres})
    if (s == method_name(m)) return m;
  throw UsageError("--method must be auto, lu, gauss, umfpack, cg, bicgstab or gmres, not '" + s +
                   "'");
}

template <class T>
void krylov_solve(SolveMethod m, KrylovOps<T>& ops, const T* b, T* x, const IterOptions& opt,
                  SolveReport& report) {
  const std::int64_t n = ops.size();
  const double bnorm = norm(ops, b);
  ops.axpby(T(0), b, T(0), x);
  Outcome out;
  if (bnorm == 0) {
    out.converged = true;  // x = 0 exactly
  } else {
    const double goal = opt.tol * bnorm;
    if (m == SolveMethod::cg)
      out = cg(ops, b, x, opt, goal);
    else if (m == SolveMethod::bicgstab)
      out = bicgstab(ops, b, x, opt, goal);
    else
      out = gmres(ops, b, x, opt, goal);
  }
  Vec<T> t(ops, n);
  const double rel = bnorm == 0 ? 0.0 : true_residual(ops, b, x, t.p()) / bnorm;
  report.iterations = std::max(report.iterations, out.iterations);
  report.relative_residual = std::max(report.relative_residual, std::isnan(rel) ? INFINITY : rel);
  report.converged = report.converged && out.converged && !std::isnan(rel);
  if (!out.note.empty()) report.note = out.note;
  report.flops += (is_complex_v<T> ? 4 : 1) * out.flops;
}

#define MM_KRYLOV(T)                                                                          \
  template void krylov_solve<T>(SolveMethod, KrylovOps<T>&, const T*, T*, const IterOptions&, \
                                SolveReport&);
MM_FOR_VALUE_TYPES(MM_KRYLOV)

}  // namespace mm
