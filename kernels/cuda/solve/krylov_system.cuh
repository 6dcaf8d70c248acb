// What every CUDA Krylov method shares (krylov.cu, cg_bicgstab.cu, gmres.cu): the solver
// state kept in device memory, reductions finished by their last block, SpMV fused with dot
// products, and the resident system (matrix, Jacobi diagonal, scratch) every method runs on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/warp.cuh"
#include "solve.hpp"

namespace mm::cuda::krylov {

constexpr int kThreads = 256;
// Resident blocks per multiprocessor at kThreads (2048 threads each): the grid-stride
// kernels launch one full wave, so a reduction has at most this many partials per SM.
constexpr int kBlocksPerSm = 8;
// The most reals one reduction sums: two complex dots.
constexpr int kMaxSums = 4;

// A grid-stride loop over n values at kThreads threads a block: for (i = first_index(); i < n;
// i += grid_stride()).
__device__ __forceinline__ std::int64_t first_index() {
  return blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * kThreads;
}

// Reals per value: a complex dot is reduced as its two parts.
template <class D>
inline constexpr int kParts = 1;
template <class R>
inline constexpr int kParts<::cuda::std::complex<R>> = 2;

// Why the device stopped iterating (State::stop). Every kernel of an iteration returns at
// once when stop is set, so iterations queued past it change nothing.
enum Stop : int {
  kRunning = 0,
  kCheck,      // the recurrence's residual met the goal: the host confirms with b - Ax
  kConverged,  // GMRES: the true residual at a cycle's start met the goal
  kMaxIter,
  kBreakPq,  // the CPU drivers' breakdowns, reported with the same notes
  kBreakRho,
  kBreakRv,
  kBreakOmega,
};
// "" or the note the CPU drivers give for the same stop.
std::string stop_note(int stop);

// The scalars of a solve, in device memory: written by the last block of a reduction,
// read by the kernels after it. The host reads it only every check_every iterations.
template <class D>
struct State {
  D rho, rho_new, alpha, omega, beta, rz;
  double rr;       // the squared norm the latest reduction that stores one found
  long long iter;  // iterations (GMRES: inner steps) run
  long long jsum;  // GMRES: sum of j + 1 over its steps, for the flop count
  int stop;
  int fresh, s_small;  // BiCGSTAB: p starts again from r; ||s|| met the goal
  int cycle_done, k;   // GMRES: the cycle ended after k steps
};

// A view of the CSR matrix for kernels; WIDTH lanes share a row (a power of two <= 32).
template <class I, class D>
struct DevCsr {
  std::int64_t rows;
  const I* ptr;
  const I* idx;
  const D* val;
  int width;
};

// acc += conj(x) y, as 1 or 2 reals.
template <class D>
__device__ __forceinline__ void add_dot(real_t<D>* acc, const D& x, const D& y) {
  if constexpr (kParts<D> == 2) {
    const D v = ::cuda::std::conj(x) * y;
    acc[0] += v.real();
    acc[1] += v.imag();
  } else {
    acc[0] += x * y;
  }
}
// acc += |x|^2.
template <class D>
__device__ __forceinline__ void add_norm(real_t<D>* acc, const D& x) {
  if constexpr (kParts<D> == 2)
    acc[0] += x.real() * x.real() + x.imag() * x.imag();
  else
    acc[0] += x * x;
}
// The value whose parts start at S.
template <class D>
__device__ __forceinline__ D value_of(const real_t<D>* s) {
  if constexpr (kParts<D> == 2)
    return D(s[0], s[1]);
  else
    return s[0];
}
template <class D>
__device__ __forceinline__ bool is_zero(const D& v) {
  return v == D{};
}

// Sums each of V over the grid. Every block writes its partials; the last block to finish
// adds them in block order (the same sum every run) and returns true, thread 0 holding the
// totals in V; it also re-arms COUNTER for the next reduction. Every thread must call it.
template <int N, class R>
__device__ bool reduce_last(R (&v)[N], R* partials, unsigned* counter) {
  __shared__ bool last;
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = block_sum<kThreads>(v[k]);
  if (threadIdx.x == 0) {
    for (int k = 0; k < N; ++k) partials[k * gridDim.x + blockIdx.x] = v[k];
    __threadfence();  // the partials reach L2 before the count says so
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    R s = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += kThreads)
      s += __ldcg(partials + k * gridDim.x + b);  // from L2: other blocks wrote them
    v[k] = block_sum<kThreads>(s);
  }
  if (threadIdx.x == 0) *counter = 0;
  return true;
}

// y = A x row by row, each finished row handed to EPI.row(i, (Ax)_i, acc) which may store
// it and add to the reduction's sums; EPI.finish(state, totals) runs once, in the last
// block; EPI.skip(state) makes the whole grid return at once.
template <class Epi, class I, class D>
__global__ void __launch_bounds__(kThreads)
    spmv_fused(DevCsr<I, D> a, const D* __restrict__ x, Epi epi, State<D>* st, real_t<D>* partials,
               unsigned* counter) {
  if (epi.skip(*st)) return;
  real_t<D> acc[Epi::kSums] = {};
  const int w = a.width, lane = threadIdx.x % 32, sub = lane % w, per = 32 / w;
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x) / 32;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * (kThreads / 32) * per;
  // The loop bound is the warp's first row: every lane shuffles the same number of times.
  for (std::int64_t r0 = warp * per; r0 < a.rows; r0 += step) {
    const std::int64_t row = r0 + lane / w;
    D s{};
    if (row < a.rows)
      for (I k = a.ptr[row] + sub; k < a.ptr[row + 1]; k += w) s += a.val[k] * ldg(x + a.idx[k]);
    for (int o = w / 2; o > 0; o /= 2) s += shfl_down(s, o);
    if (sub == 0 && row < a.rows) epi.row(row, s, acc);
  }
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) epi.finish(*st, acc);
}

// t = b - A x, ||t||^2 into state.rr.
template <class D>
struct ResidualEpi {
  static constexpr int kSums = 1;
  const D* b;
  D* t;
  __device__ bool skip(const State<D>&) const { return false; }
  __device__ void row(std::int64_t i, const D& ax, real_t<D>* acc) const {
    const D v = b[i] - ax;
    t[i] = v;
    add_norm(acc, v);
  }
  __device__ void finish(State<D>& st, const real_t<D>* s) const { st.rr = s[0]; }
};

// The methods' matvec: y = A x stored in OUT and DOT'y summed; each method derives its finish
// (the iteration counted, the step's scalar from the dot). Skipped once the device stopped.
template <class D>
struct StoreDotEpi {
  static constexpr int kSums = kParts<D>;
  const D* dot;
  D* out;
  __device__ bool skip(const State<D>& st) const { return st.stop != kRunning; }
  __device__ void row(std::int64_t i, const D& ax, real_t<D>* acc) const {
    out[i] = ax;
    add_dot(acc, dot[i], ax);
  }
};

// The iteration's outcome, as the CPU drivers count it.
struct Outcome {
  std::int64_t iterations = 0;
  bool converged = false;
  std::string note;
  double flops = 0;  // real flops (the caller multiplies by 4 for complex)
};

// The system resident on the GPU: A, 1/diag(A) for Jacobi, the state, the reduction's
// partials and counter, and a scratch vector; every method borrows these.
template <class I, class T>
class System {
 public:
  using D = dev_t<T>;
  using R = real_type_t<T>;

  System(const Csr<I, T>& a, const std::vector<T>& inv);
  std::int64_t n() const { return n_; }
  double nnz() const { return nnz_; }
  bool jacobi() const { return inv_.size() > 0; }
  const D* inv() const { return inv_.dev(); }
  DevCsr<I, D> csr() const { return {n_, ptr_.get(), idx_.get(), val_.dev(), width_}; }
  State<D>* state() const { return state_.get(); }
  R* partials() const { return partials_.get(); }
  unsigned* counter() const { return counter_.get(); }
  int vec_grid() const { return vec_grid_; }
  int spmv_grid() const { return spmv_grid_; }
  D* scratch() const { return scratch_.dev(); }

  void reset_state();  // zeros: kRunning, no iterations

  State<D> read_state() const;                    // waits for the device
  double norm2(const D* v);                       // ||v||^2, waits
  double residual(const D* b, const D* x, D* t);  // t = b - A x; ||t||^2, waits

  template <class Epi>
  void spmv(const D* x, const Epi& epi) {
    spmv_fused<Epi, I, D><<<spmv_grid_, kThreads>>>(csr(), x, epi, state(), partials(), counter());
    MM_CUDA_LAUNCHED("krylov spmv_fused");
  }

 private:
  std::int64_t n_;
  double nnz_;
  int width_, vec_grid_, spmv_grid_;
  Buffer<I> ptr_, idx_;
  Buffer<T> val_, inv_, scratch_;
  Buffer<State<D>> state_;
  Buffer<R> partials_;
  Buffer<unsigned> counter_;
};

// One method on one system: work vectors allocated once; solve() takes x = 0 to the
// solution of A x = b (device vectors) with ||b - Ax|| <= goal.
template <class I, class T>
class Method {
 public:
  virtual ~Method() = default;
  virtual Outcome solve(const dev_t<T>* b, dev_t<T>* x, double goal) = 0;
};

template <class I, class T>
std::unique_ptr<Method<I, T>> make_cg(System<I, T>& s, const IterOptions& o);
template <class I, class T>
std::unique_ptr<Method<I, T>> make_bicgstab(System<I, T>& s, const IterOptions& o);
template <class I, class T>
std::unique_ptr<Method<I, T>> make_gmres(System<I, T>& s, const IterOptions& o);

// Queues ITERATE() check_every times between reads of the state, until the device stops;
// never more than the iterations left after the ITER the device had last reported (the device
// stops itself at max_iter, so nothing is queued past it).
template <class I, class T, class F>
State<dev_t<T>> run_until_stop(const System<I, T>& s, const IterOptions& o, std::int64_t iter,
                               F&& iterate) {
  for (;;) {
    const std::int64_t batch =
        std::max<std::int64_t>(1, std::min<std::int64_t>(o.check_every, o.max_iter - iter));
    for (std::int64_t i = 0; i < batch; ++i) iterate();
    const State<dev_t<T>> st = s.read_state();
    if (st.stop != kRunning) return st;
    iter = st.iter;
  }
}

}  // namespace mm::cuda::krylov
