// Restarted GMRES on the GPU, step for step the CPU driver (kernels/cpu/krylov.cpp): Arnoldi
// by modified Gram-Schmidt (each projection's axpy fused with the next dot product), the
// Givens rotations, the small triangular solve and the x update all on the device; the host
// reads the state once per cycle and every check_every inner steps.
#include <cmath>

#include "cuda/solve/krylov_system.cuh"
#include "instantiate.hpp"

namespace mm::cuda::krylov {

namespace {

template <class D>
__device__ __forceinline__ D conj_d(const D& v) {
  if constexpr (kParts<D> == 2)
    return ::cuda::std::conj(v);
  else
    return v;
}
template <class D>
__device__ __forceinline__ real_t<D> magnitude(const D& v) {
  if constexpr (kParts<D> == 2)
    return ::cuda::std::abs(v);
  else
    return fabs(v);
}

// The cycle's small dense part in device memory: H ((m+1) x m, row-major), g, the rotations
// (c real, [c s; -conj(s) c]) and y.
template <class D>
struct Arnoldi {
  D* h;
  D* g;
  D* sn;
  real_t<D>* cs;
  D* y;
  int m;
  __device__ D& H(int i, int j) const { return h[static_cast<std::int64_t>(i) * m + j]; }
};

// The rotation zeroing b in (a, b), as the CPU driver computes it.
template <class D>
__device__ void givens(const D& a, const D& b, real_t<D>& c, D& s) {
  using R = real_t<D>;
  const R aa = magnitude(a), ab = magnitude(b);
  if (ab == 0) {
    c = 1;
    s = D{};
  } else if (aa == 0) {
    c = 0;
    s = D(1);
  } else {
    R r;
    if constexpr (std::is_same_v<R, float>)
      r = hypotf(aa, ab);
    else
      r = hypot(aa, ab);
    c = aa / r;
    s = (a / aa) * conj_d(b) / r;
  }
}

// A cycle's start: v0 = b - A x (the residual epilogue, v0 its t) and beta = ||v0||:
// converged, out of iterations, or g = beta e1.
template <class D>
struct GmresStart : ResidualEpi<D> {
  Arnoldi<D> ar;
  double goal;
  std::int64_t max_iter;
  __device__ void finish(State<D>& st, const real_t<D>* s) const {
    ResidualEpi<D>::finish(st, s);  // state.rr = ||v0||^2
    const double beta = sqrt(static_cast<double>(s[0]));
    if (beta <= goal) {
      st.stop = kConverged;
    } else if (st.iter >= max_iter) {
      st.stop = kMaxIter;
    } else {
      ar.g[0] = D(static_cast<real_t<D>>(beta));
      for (int l = 1; l <= ar.m; ++l) ar.g[l] = D{};
      st.cycle_done = 0;
      st.k = 0;
    }
  }
};

__device__ __forceinline__ bool step_skipped(int stop, int cycle_done) {
  return stop != kRunning || cycle_done;
}

// v = src / sqrt(state.rr) (the norm the last reduction stored: beta or h_{j,j-1}); z = M v.
template <class D>
__global__ void __launch_bounds__(kThreads)
    gmres_normalize(std::int64_t n, const D* src, D* v, const D* __restrict__ inv, D* z,
                    const State<D>* st) {
  if (step_skipped(st->stop, st->cycle_done)) return;
  const auto scale = static_cast<real_t<D>>(1 / sqrt(st->rr));
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const D vi = scale * src[i];
    v[i] = vi;
    if (inv) z[i] = inv[i] * vi;
  }
}

// w = A z and h_{0j} = v0'w (dot v0, out w); the inner step is counted.
template <class D>
struct GmresMatvec : StoreDotEpi<D> {
  Arnoldi<D> ar;
  int j;
  __device__ bool skip(const State<D>& st) const { return step_skipped(st.stop, st.cycle_done); }
  __device__ void finish(State<D>& st, const real_t<D>* s) const {
    ++st.iter;
    ar.H(0, j) = value_of<D>(s);
  }
};

// Column j is complete (h_{j+1,j} = sqrt(HN2)): the earlier rotations, a new one, g, and
// whether the cycle ends.
template <class D>
__device__ void rotate(State<D>& st, const Arnoldi<D>& ar, int j, double hn2, double goal,
                       std::int64_t max_iter) {
  using R = real_t<D>;
  st.rr = hn2;
  const double hn = sqrt(hn2);
  ar.H(j + 1, j) = D(static_cast<R>(hn));
  for (int i = 0; i < j; ++i) {
    const D a = ar.H(i, j), c = ar.H(i + 1, j);
    ar.H(i, j) = ar.cs[i] * a + ar.sn[i] * c;
    ar.H(i + 1, j) = -conj_d(ar.sn[i]) * a + ar.cs[i] * c;
  }
  givens(ar.H(j, j), ar.H(j + 1, j), ar.cs[j], ar.sn[j]);
  ar.H(j, j) = ar.cs[j] * ar.H(j, j) + ar.sn[j] * ar.H(j + 1, j);
  ar.H(j + 1, j) = D{};
  ar.g[j + 1] = -conj_d(ar.sn[j]) * ar.g[j];
  ar.g[j] = ar.cs[j] * ar.g[j];
  st.k = j + 1;
  st.jsum += j + 1;
  if (static_cast<double>(magnitude(ar.g[j + 1])) <= goal || hn == 0 || st.iter >= max_iter ||
      j + 1 == ar.m)
    st.cycle_done = 1;
}

// Modified Gram-Schmidt, projection i of step j: w -= h_ij v_i, then v_{i+1}'w into h_{i+1,j},
// or for the last one (i = j) ||w|| and the rotations.
template <class D>
__global__ void __launch_bounds__(kThreads)
    gmres_mgs(std::int64_t n, const D* __restrict__ vi, const D* __restrict__ vnext, D* w,
              Arnoldi<D> ar, int i, int j, double goal, std::int64_t max_iter, State<D>* st,
              real_t<D>* partials, unsigned* counter) {
  if (step_skipped(st->stop, st->cycle_done)) return;
  const D h = ar.H(i, j);
  const bool last = i == j;
  real_t<D> acc[kParts<D>] = {};
  for (std::int64_t t = first_index(); t < n; t += grid_stride()) {
    const D wt = -h * vi[t] + w[t];
    w[t] = wt;
    if (last)
      add_norm(acc, wt);
    else
      add_dot(acc, vnext[t], wt);
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) {
    if (last)
      rotate(*st, ar, j, acc[0], goal, max_iter);
    else
      ar.H(i + 1, j) = value_of<D>(acc);
  }
}

// H y = g, upper triangular k x k, by one warp: a row's sum by the lanes, y_i by lane 0.
template <class D>
__global__ void gmres_triangular(Arnoldi<D> ar, const State<D>* st) {
  if (st->stop != kRunning) return;
  const int k = st->k, lane = threadIdx.x;
  for (int i = k - 1; i >= 0; --i) {
    D s{};
    for (int l = i + 1 + lane; l < k; l += 32) s += ar.H(i, l) * ar.y[l];
    s = group_sum<32>(s);
    if (lane == 0) {
      const D hii = ar.H(i, i);
      ar.y[i] = is_zero(hii) ? D{} : (ar.g[i] - s) / hii;
    }
    __syncwarp();  // y_i written before the next row reads it
  }
}

// x += M^-1 (V y) over the cycle's k basis vectors.
template <class D>
__global__ void __launch_bounds__(kThreads)
    gmres_update(std::int64_t n, const D* __restrict__ v, Arnoldi<D> ar, const D* __restrict__ inv,
                 D* x, const State<D>* st) {
  if (st->stop != kRunning || st->k == 0) return;
  const int k = st->k;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    D s = ar.y[0] * v[i];
    for (int l = 1; l < k; ++l) s = ar.y[l] * v[l * n + i] + s;
    x[i] = (inv ? inv[i] * s : s) + x[i];
  }
}

template <class I, class T>
class Gmres final : public Method<I, T> {
 public:
  using D = dev_t<T>;
  Gmres(System<I, T>& s, const IterOptions& o)
      : s_(s),
        o_(o),
        m_(std::max(1, o.restart)),
        v_(static_cast<std::size_t>(m_ + 1) * static_cast<std::size_t>(s.n())),
        w_(static_cast<std::size_t>(s.n())),
        z_(s.jacobi() ? static_cast<std::size_t>(s.n()) : 0),
        h_(static_cast<std::size_t>(m_ + 1) * m_),
        g_(static_cast<std::size_t>(m_) + 1),
        sn_(static_cast<std::size_t>(m_)),
        y_(static_cast<std::size_t>(m_)),
        cs_(static_cast<std::size_t>(m_)) {}

  Outcome solve(const D* b, D* x, double goal) override {
    s_.reset_state();
    State<D> st;
    for (;;) {
      start(b, x, goal);
      st = s_.read_state();  // once a cycle: converged or out of iterations
      if (st.stop != kRunning) break;
      const std::int64_t iter0 = st.iter;
      for (int j = 0, since = 0; j < m_; ++j) {
        step(j, goal);
        // The device ends a cycle at m steps or max_iter: nothing is queued past either.
        if (++since == o_.check_every || j == m_ - 1 || iter0 + j + 1 >= o_.max_iter) {
          since = 0;
          st = s_.read_state();
          if (st.stop != kRunning || st.cycle_done) break;
        }
      }
      end_cycle(x);
    }
    Outcome out;
    out.converged = st.stop == kConverged;
    out.iterations = st.iter;
    out.note = stop_note(st.stop);
    const double nd = static_cast<double>(s_.n());
    out.flops = static_cast<double>(st.iter) * (2 * s_.nnz() + 6 * nd + (s_.jacobi() ? nd : 0)) +
                4 * nd * static_cast<double>(st.jsum);
    return out;
  }

 private:
  Arnoldi<D> arnoldi() const { return {h_.dev(), g_.dev(), sn_.dev(), cs_.get(), y_.dev(), m_}; }
  D* basis(int j) const { return v_.dev() + static_cast<std::size_t>(j) * s_.n(); }
  D* z() const { return s_.jacobi() ? z_.dev() : nullptr; }

  void normalize(const D* src, int j) {
    gmres_normalize<D>
        <<<s_.vec_grid(), kThreads>>>(s_.n(), src, basis(j), s_.inv(), z(), s_.state());
    MM_CUDA_LAUNCHED("gmres_normalize");
  }

  void start(const D* b, const D* x, double goal) {
    s_.spmv(x, GmresStart<D>{{b, basis(0)}, arnoldi(), goal, o_.max_iter});
    normalize(basis(0), 0);
  }

  void step(int j, double goal) {
    if (j > 0) normalize(w_.dev(), j);
    s_.spmv(s_.jacobi() ? z() : basis(j), GmresMatvec<D>{{basis(0), w_.dev()}, arnoldi(), j});
    for (int i = 0; i <= j; ++i) {
      gmres_mgs<D><<<s_.vec_grid(), kThreads>>>(s_.n(), basis(i), i < j ? basis(i + 1) : nullptr,
                                                w_.dev(), arnoldi(), i, j, goal, o_.max_iter,
                                                s_.state(), s_.partials(), s_.counter());
      MM_CUDA_LAUNCHED("gmres_mgs");
    }
  }

  void end_cycle(D* x) {
    gmres_triangular<D><<<1, 32>>>(arnoldi(), s_.state());
    MM_CUDA_LAUNCHED("gmres_triangular");
    gmres_update<D>
        <<<s_.vec_grid(), kThreads>>>(s_.n(), basis(0), arnoldi(), s_.inv(), x, s_.state());
    MM_CUDA_LAUNCHED("gmres_update");
  }

  System<I, T>& s_;
  IterOptions o_;
  int m_;
  Buffer<T> v_, w_, z_, h_, g_, sn_, y_;
  Buffer<real_type_t<T>> cs_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Method<I, T>> make_gmres(System<I, T>& s, const IterOptions& o) {
  return std::make_unique<Gmres<I, T>>(s, o);
}

#define MM_GMRES_CUDA(I, T) \
  template std::unique_ptr<Method<I, T>> make_gmres<I, T>(System<I, T>&, const IterOptions&);
MM_FOR_INDEX_VALUE_TYPES(MM_GMRES_CUDA)

}  // namespace mm::cuda::krylov
