// CG and BiCGSTAB on the GPU, step for step the CPU drivers (kernels/cpu/krylov.cpp): every
// dot product reduces into device memory, whose last block computes alpha, beta, omega and
// the stop decision; the host reads the state only every check_every iterations.
#include <cmath>

#include "cuda/solve/krylov_system.cuh"
#include "instantiate.hpp"

namespace mm::cuda::krylov {

namespace {

// ---- CG ------------------------------------------------------------------------------------

// (Re)start from the residual in r: z = M r, p = z, rz = r'z.
template <class D>
__global__ void __launch_bounds__(kThreads)
    cg_restart(std::int64_t n, const D* __restrict__ r, const D* __restrict__ inv, D* z, D* p,
               std::int64_t max_iter, State<D>* st, real_t<D>* partials, unsigned* counter) {
  real_t<D> acc[kParts<D>] = {};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const D ri = r[i], zi = inv ? inv[i] * ri : ri;
    if (inv) z[i] = zi;
    p[i] = zi;
    add_dot(acc, ri, zi);
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) {
    st->rz = value_of<D>(acc);
    st->stop = st->iter >= max_iter ? kMaxIter : kRunning;
  }
}

// q = A p and p'q (dot p, out q): the iteration is counted, alpha = rz / p'q.
template <class D>
struct CgMatvec : StoreDotEpi<D> {
  __device__ void finish(State<D>& st, const real_t<D>* s) const {
    ++st.iter;
    const D pq = value_of<D>(s);
    if (is_zero(pq))
      st.stop = kBreakPq;
    else
      st.alpha = st.rz / pq;
  }
};

// x += alpha p, r -= alpha q, z = M r; ||r|| against the goal, else beta = r'z / rz.
template <class D>
__global__ void __launch_bounds__(kThreads)
    cg_update(std::int64_t n, const D* __restrict__ p, const D* __restrict__ q, D* x, D* r,
              const D* __restrict__ inv, D* z, double goal, std::int64_t max_iter, State<D>* st,
              real_t<D>* partials, unsigned* counter) {
  if (st->stop != kRunning) return;
  const D alpha = st->alpha;
  real_t<D> acc[1 + kParts<D>] = {};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    x[i] = alpha * p[i] + x[i];
    const D ri = -alpha * q[i] + r[i];
    r[i] = ri;
    add_norm(acc, ri);
    if (inv) {
      const D zi = inv[i] * ri;
      z[i] = zi;
      add_dot(acc + 1, ri, zi);
    }
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) {
    st->rr = acc[0];
    if (sqrt(static_cast<double>(acc[0])) <= goal) {
      st->stop = kCheck;
    } else {
      const D rz = inv ? value_of<D>(acc + 1) : D(acc[0]);
      st->beta = rz / st->rz;
      st->rz = rz;
      if (st->iter >= max_iter) st->stop = kMaxIter;
    }
  }
}

// p = z + beta p.
template <class D>
__global__ void __launch_bounds__(kThreads)
    cg_direction(std::int64_t n, const D* __restrict__ z, D* p, const State<D>* st) {
  if (st->stop != kRunning) return;
  const D beta = st->beta;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) p[i] = z[i] + beta * p[i];
}

template <class I, class T>
class Cg final : public Method<I, T> {
 public:
  using D = dev_t<T>;
  Cg(System<I, T>& s, const IterOptions& o)
      : s_(s), o_(o), r_(n()), z_(s.jacobi() ? n() : 0), p_(n()), q_(n()) {}

  Outcome solve(const D* b, D* x, double goal) override {
    D* r = r_.dev();
    D* z = s_.jacobi() ? z_.dev() : r;
    s_.reset_state();
    MM_CUDA(cudaMemcpyAsync(r, b, bytes(), cudaMemcpyDeviceToDevice));  // r = b - A 0
    restart(z);
    Outcome out;
    State<D> st{};
    for (;;) {
      st = run_until_stop(s_, o_, st.iter, [&] { iterate(x, z, goal); });
      if (st.stop != kCheck) break;
      // The recurrence says converged; the true residual decides (the CPU drivers' rule).
      if (std::sqrt(s_.residual(b, x, r)) <= goal) {  // NaN: not converged
        out.converged = true;
        break;
      }
      restart(z);
    }
    out.iterations = st.iter;
    out.note = stop_note(st.stop);
    const double nd = static_cast<double>(n());
    out.flops = static_cast<double>(st.iter) * (2 * s_.nnz() + 10 * nd + (s_.jacobi() ? nd : 0));
    return out;
  }

 private:
  std::int64_t n() const { return s_.n(); }
  std::size_t bytes() const { return static_cast<std::size_t>(n()) * sizeof(T); }

  void restart(D* z) {
    cg_restart<D><<<s_.vec_grid(), kThreads>>>(n(), r_.dev(), s_.inv(), z, p_.dev(), o_.max_iter,
                                               s_.state(), s_.partials(), s_.counter());
    MM_CUDA_LAUNCHED("cg_restart");
  }

  void iterate(D* x, D* z, double goal) {
    s_.spmv(p_.dev(), CgMatvec<D>{{p_.dev(), q_.dev()}});
    cg_update<D><<<s_.vec_grid(), kThreads>>>(n(), p_.dev(), q_.dev(), x, r_.dev(), s_.inv(), z,
                                              goal, o_.max_iter, s_.state(), s_.partials(),
                                              s_.counter());
    MM_CUDA_LAUNCHED("cg_update");
    cg_direction<D><<<s_.vec_grid(), kThreads>>>(n(), z, p_.dev(), s_.state());
    MM_CUDA_LAUNCHED("cg_direction");
  }

  System<I, T>& s_;
  IterOptions o_;
  Buffer<T> r_, z_, p_, q_;
};

// ---- BiCGSTAB ------------------------------------------------------------------------------

// With rho_new = rhat'r known: a zero one is the next iteration's breakdown (counted, as
// the CPU driver counts it), unless the iterations are spent.
template <class D>
__device__ void after_rho(State<D>& st, std::int64_t max_iter) {
  if (is_zero(st.rho_new)) {
    if (st.iter < max_iter) {
      ++st.iter;
      st.stop = kBreakRho;
    } else {
      st.stop = kMaxIter;
    }
  } else {
    st.stop = st.iter >= max_iter ? kMaxIter : kRunning;
  }
}

// (Re)start from the residual in r: rhat = r, rho_new = rhat'r, p from r next.
template <class D>
__global__ void __launch_bounds__(kThreads)
    bicgstab_restart(std::int64_t n, const D* __restrict__ r, D* rhat, std::int64_t max_iter,
                     State<D>* st, real_t<D>* partials, unsigned* counter) {
  real_t<D> acc[kParts<D>] = {};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const D ri = r[i];
    rhat[i] = ri;
    add_dot(acc, ri, ri);
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) {
    st->rho_new = value_of<D>(acc);
    st->fresh = 1;
    after_rho(*st, max_iter);
  }
}

// p = r (fresh) or r + (rho_new/rho)(alpha/omega)(p - omega v); ph = M p.
template <class D>
__global__ void __launch_bounds__(kThreads)
    bicgstab_direction(std::int64_t n, const D* __restrict__ r, const D* __restrict__ v, D* p,
                       const D* __restrict__ inv, D* ph, const State<D>* st) {
  if (st->stop != kRunning) return;
  const bool fresh = st->fresh;
  const D omega = st->omega, beta = (st->rho_new / st->rho) * (st->alpha / omega);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const D pi = fresh ? r[i] : r[i] + beta * (-omega * v[i] + p[i]);
    p[i] = pi;
    if (inv) ph[i] = inv[i] * pi;
  }
}

// v = A ph and rhat'v (dot rhat, out v): the iteration is counted, alpha = rho / rhat'v.
template <class D>
struct BicgstabMatvecV : StoreDotEpi<D> {
  __device__ void finish(State<D>& st, const real_t<D>* s) const {
    ++st.iter;
    st.rho = st.rho_new;
    st.fresh = 0;
    const D rv = value_of<D>(s);
    if (is_zero(rv))
      st.stop = kBreakRv;
    else
      st.alpha = st.rho / rv;
  }
};

// s = r - alpha v, sh = M s; whether ||s|| met the goal.
template <class D>
__global__ void __launch_bounds__(kThreads)
    bicgstab_s(std::int64_t n, const D* __restrict__ r, const D* __restrict__ v, D* s,
               const D* __restrict__ inv, D* sh, double goal, State<D>* st, real_t<D>* partials,
               unsigned* counter) {
  if (st->stop != kRunning) return;
  const D alpha = st->alpha;
  real_t<D> acc[1] = {};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const D si = -alpha * v[i] + r[i];
    s[i] = si;
    if (inv) sh[i] = inv[i] * si;
    add_norm(acc, si);
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0)
    st->s_small = sqrt(static_cast<double>(acc[0])) <= goal;
}

// t = A sh, t't and t's: omega = t's / t't (0 when t't = 0).
template <class D>
struct BicgstabMatvecT {
  static constexpr int kSums = 1 + kParts<D>;
  const D* s;
  D* t;
  __device__ bool skip(const State<D>& st) const { return st.stop != kRunning || st.s_small; }
  __device__ void row(std::int64_t i, const D& ax, real_t<D>* acc) const {
    t[i] = ax;
    add_norm(acc, ax);
    add_dot(acc + 1, ax, s[i]);
  }
  __device__ void finish(State<D>& st, const real_t<D>* sums) const {
    st.omega = sums[0] == 0 ? D{} : value_of<D>(sums + 1) / D(sums[0]);
  }
};

// x += alpha ph (+ omega sh), r = s - omega t; the checks, and rho_new = rhat'r.
template <class D>
__global__ void __launch_bounds__(kThreads)
    bicgstab_update(std::int64_t n, const D* __restrict__ ph, const D* __restrict__ sh,
                    const D* __restrict__ s, const D* __restrict__ t, const D* __restrict__ rhat,
                    D* x, D* r, double goal, std::int64_t max_iter, State<D>* st,
                    real_t<D>* partials, unsigned* counter) {
  if (st->stop != kRunning) return;
  const bool small = st->s_small;
  const D alpha = st->alpha, omega = st->omega;
  real_t<D> acc[1 + kParts<D>] = {};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    if (small) {
      x[i] = alpha * ph[i] + x[i];
    } else {
      x[i] = omega * sh[i] + (alpha * ph[i] + x[i]);
      const D ri = -omega * t[i] + s[i];
      r[i] = ri;
      add_norm(acc, ri);
      add_dot(acc + 1, rhat[i], ri);
    }
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) {
    if (small) {
      st->stop = kCheck;
      return;
    }
    st->rr = acc[0];
    if (sqrt(static_cast<double>(acc[0])) <= goal) {
      st->stop = kCheck;
    } else if (is_zero(omega)) {
      st->stop = kBreakOmega;
    } else {
      st->rho_new = value_of<D>(acc + 1);
      after_rho(*st, max_iter);
    }
  }
}

template <class I, class T>
class Bicgstab final : public Method<I, T> {
 public:
  using D = dev_t<T>;
  Bicgstab(System<I, T>& s, const IterOptions& o)
      : s_(s),
        o_(o),
        r_(n()),
        rhat_(n()),
        p_(n()),
        v_(n()),
        s_vec_(n()),
        t_(n()),
        ph_(s.jacobi() ? n() : 0),
        sh_(s.jacobi() ? n() : 0) {}

  Outcome solve(const D* b, D* x, double goal) override {
    s_.reset_state();
    MM_CUDA(cudaMemcpyAsync(r_.dev(), b, bytes(), cudaMemcpyDeviceToDevice));  // r = b - A 0
    restart();
    Outcome out;
    State<D> st{};
    for (;;) {
      st = run_until_stop(s_, o_, st.iter, [&] { iterate(x, goal); });
      if (st.stop != kCheck) break;
      if (std::sqrt(s_.residual(b, x, r_.dev())) <= goal) {
        out.converged = true;
        break;
      }
      restart();
    }
    out.iterations = st.iter;
    out.note = stop_note(st.stop);
    const double nd = static_cast<double>(n());
    out.flops =
        static_cast<double>(st.iter) * (4 * s_.nnz() + 20 * nd + (s_.jacobi() ? 2 * nd : 0));
    return out;
  }

 private:
  std::int64_t n() const { return s_.n(); }
  std::size_t bytes() const { return static_cast<std::size_t>(n()) * sizeof(T); }
  // Without Jacobi, M^-1 is the identity: ph is p and sh is s.
  D* ph() const { return s_.jacobi() ? ph_.dev() : p_.dev(); }
  D* sh() const { return s_.jacobi() ? sh_.dev() : s_vec_.dev(); }

  void restart() {
    bicgstab_restart<D><<<s_.vec_grid(), kThreads>>>(n(), r_.dev(), rhat_.dev(), o_.max_iter,
                                                     s_.state(), s_.partials(), s_.counter());
    MM_CUDA_LAUNCHED("bicgstab_restart");
  }

  void iterate(D* x, double goal) {
    const int g = s_.vec_grid();
    bicgstab_direction<D>
        <<<g, kThreads>>>(n(), r_.dev(), v_.dev(), p_.dev(), s_.inv(), ph(), s_.state());
    MM_CUDA_LAUNCHED("bicgstab_direction");
    s_.spmv(ph(), BicgstabMatvecV<D>{{rhat_.dev(), v_.dev()}});
    bicgstab_s<D><<<g, kThreads>>>(n(), r_.dev(), v_.dev(), s_vec_.dev(), s_.inv(), sh(), goal,
                                   s_.state(), s_.partials(), s_.counter());
    MM_CUDA_LAUNCHED("bicgstab_s");
    s_.spmv(sh(), BicgstabMatvecT<D>{s_vec_.dev(), t_.dev()});
    bicgstab_update<D><<<g, kThreads>>>(n(), ph(), sh(), s_vec_.dev(), t_.dev(), rhat_.dev(), x,
                                        r_.dev(), goal, o_.max_iter, s_.state(), s_.partials(),
                                        s_.counter());
    MM_CUDA_LAUNCHED("bicgstab_update");
  }

  System<I, T>& s_;
  IterOptions o_;
  Buffer<T> r_, rhat_, p_, v_, s_vec_, t_, ph_, sh_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Method<I, T>> make_cg(System<I, T>& s, const IterOptions& o) {
  return std::make_unique<Cg<I, T>>(s, o);
}
template <class I, class T>
std::unique_ptr<Method<I, T>> make_bicgstab(System<I, T>& s, const IterOptions& o) {
  return std::make_unique<Bicgstab<I, T>>(s, o);
}

#define MM_KRYLOV_METHODS(I, T)                                                            \
  template std::unique_ptr<Method<I, T>> make_cg<I, T>(System<I, T>&, const IterOptions&); \
  template std::unique_ptr<Method<I, T>> make_bicgstab<I, T>(System<I, T>&, const IterOptions&);
MM_FOR_INDEX_VALUE_TYPES(MM_KRYLOV_METHODS)

}  // namespace mm::cuda::krylov
