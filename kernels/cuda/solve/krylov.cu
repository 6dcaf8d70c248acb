// mmsolve's CUDA Krylov runner: the system resident on the GPU, one solve per right-hand
// side with b, x and every work vector on the device, reported as the CPU drivers report.
#include <algorithm>
#include <cmath>

#include "cuda/solve/krylov_system.cuh"
#include "cuda/solve/solve_cuda.hpp"
#include "instantiate.hpp"

namespace mm {

namespace cuda::krylov {

std::string stop_note(int stop) {
  switch (stop) {
    case kBreakPq:
      return "breakdown (p'Ap = 0)";
    case kBreakRho:
      return "breakdown (rho = 0)";
    case kBreakRv:
      return "breakdown (rhat'v = 0)";
    case kBreakOmega:
      return "breakdown (omega = 0)";
    default:
      return "";
  }
}

namespace {

// ||v||^2 into state.rr.
template <class D>
__global__ void __launch_bounds__(kThreads)
    norm_kernel(std::int64_t n, const D* __restrict__ v, State<D>* st, real_t<D>* partials,
                unsigned* counter) {
  real_t<D> acc[1] = {};
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) add_norm(acc, v[i]);
  if (reduce_last(acc, partials, counter) && threadIdx.x == 0) st->rr = acc[0];
}

// Column C of the row-major n x k matrix M to the vector V (TO_VECTOR), or back.
template <class D>
__global__ void __launch_bounds__(kThreads)
    copy_column(std::int64_t n, std::int64_t k, std::int64_t c, D* m, D* v, bool to_vector) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    if (to_vector)
      v[i] = m[i * k + c];
    else
      m[i * k + c] = v[i];
  }
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

template <class I, class T>
System<I, T>::System(const Csr<I, T>& a, const std::vector<T>& inv)
    : n_(a.rows),
      nnz_(static_cast<double>(a.nnz())),
      ptr_(a.ptr.data(), a.ptr.size()),
      idx_(a.idx.data(), a.idx.size()),
      val_(a.val.data(), a.val.size()),
      inv_(inv.data(), inv.size()),
      scratch_(static_cast<std::size_t>(a.rows)),
      state_(1),
      counter_(1) {
  // Lanes per row from the mean row length, as the Jacobi system sweep chooses them.
  const double mean = n_ ? nnz_ / static_cast<double>(n_) : 0;
  width_ = mean > 16 ? 32 : mean > 8 ? 16 : mean > 4 ? 8 : 4;
  const std::int64_t wave = std::int64_t{multiprocessors()} * kBlocksPerSm;
  vec_grid_ = static_cast<int>(std::clamp<std::int64_t>(ceil_div(n_, kThreads), 1, wave));
  spmv_grid_ = static_cast<int>(std::clamp<std::int64_t>(ceil_div(n_ * width_, kThreads), 1, wave));
  partials_ = Buffer<R>(static_cast<std::size_t>(wave) * kMaxSums);
  counter_.fill_bytes(0);
  reset_state();
}

template <class I, class T>
void System<I, T>::reset_state() {
  state_.fill_bytes(0);  // zero scalars, iter, flags; kRunning is 0
}

template <class I, class T>
State<dev_t<T>> System<I, T>::read_state() const {
  State<D> s;
  MM_CUDA(cudaMemcpy(&s, state_.get(), sizeof s, cudaMemcpyDeviceToHost));
  return s;
}

template <class I, class T>
double System<I, T>::norm2(const D* v) {
  norm_kernel<D><<<vec_grid_, kThreads>>>(n_, v, state(), partials(), counter());
  MM_CUDA_LAUNCHED("krylov norm_kernel");
  return read_state().rr;
}

template <class I, class T>
double System<I, T>::residual(const D* b, const D* x, D* t) {
  spmv(x, ResidualEpi<D>{b, t});
  return read_state().rr;
}

namespace {

template <class I, class T>
class KrylovCudaRunner final : public CudaRunner {
 public:
  using D = dev_t<T>;
  // INV: 1/diag(A) for Jacobi, or empty.
  KrylovCudaRunner(const SolveProblem<I, T>& p, std::vector<T> inv) : p_(p), inv_(std::move(inv)) {}

  void upload() override {
    sys_ = std::make_unique<System<I, T>>(*p_.csr, inv_);
    IterOptions o = p_.opt;
    o.check_every = std::max(1, o.check_every);
    if (p_.method == SolveMethod::cg)
      method_ = make_cg(*sys_, o);
    else if (p_.method == SolveMethod::bicgstab)
      method_ = make_bicgstab(*sys_, o);
    else
      method_ = make_gmres(*sys_, o);
    const auto nk = static_cast<std::size_t>(rows() * cols());
    b_all_ = Buffer<T>(p_.b->data.data(), nk);
    x_all_ = Buffer<T>(nk);
    x_all_.fill_bytes(0xff);  // poison: every column must be solved
    if (cols() > 1) {
      b_ = Buffer<T>(static_cast<std::size_t>(rows()));
      x_ = Buffer<T>(static_cast<std::size_t>(rows()));
    }
  }

  // x lands in the host matrix after every run too, so a caller that runs without download
  // (a test repeating run()) sees each run's own result.
  void run() override {
    CudaRunner::run();
    download();
  }

  void download() override {
    x_all_.download(p_.x->data.data(), static_cast<std::size_t>(rows() * cols()));
  }

 protected:
  void launch() override {
    if (!sys_) upload();
    SolveReport& rep = *p_.report;
    rep = SolveReport{};  // each run reports itself
    const std::int64_t n = rows(), k = cols();
    const int grid = sys_->vec_grid();
    for (std::int64_t c = 0; c < k; ++c) {
      D* b = k > 1 ? b_.dev() : b_all_.dev();
      D* x = k > 1 ? x_.dev() : x_all_.dev();
      if (k > 1) {
        copy_column<D><<<grid, kThreads>>>(n, k, c, b_all_.dev(), b, true);
        MM_CUDA_LAUNCHED("krylov copy_column");
      }
      solve_column(b, x, rep);
      if (k > 1) {
        copy_column<D><<<grid, kThreads>>>(n, k, c, x_all_.dev(), x, false);
        MM_CUDA_LAUNCHED("krylov copy_column");
      }
    }
  }

 private:
  std::int64_t rows() const { return p_.b->rows; }
  std::int64_t cols() const { return p_.b->cols; }

  // As krylov_solve: x from zero, the goal tol ||b||, the true relative residual at the end.
  void solve_column(const D* b, D* x, SolveReport& rep) {
    const std::int64_t n = rows();
    if (n) MM_CUDA(cudaMemsetAsync(x, 0, static_cast<std::size_t>(n) * sizeof(T)));
    const double bnorm = std::sqrt(sys_->norm2(b));
    Outcome out;
    if (bnorm == 0)
      out.converged = true;  // x = 0 exactly
    else
      out = method_->solve(b, x, p_.opt.tol * bnorm);
    const double rel = bnorm == 0 ? 0.0 : std::sqrt(sys_->residual(b, x, sys_->scratch())) / bnorm;
    rep.iterations = std::max(rep.iterations, out.iterations);
    rep.relative_residual = std::max(rep.relative_residual, std::isnan(rel) ? INFINITY : rel);
    rep.converged = rep.converged && out.converged && !std::isnan(rel);
    if (!out.note.empty()) rep.note = out.note;
    rep.flops += (is_complex_v<T> ? 4 : 1) * out.flops;
  }

  SolveProblem<I, T> p_;
  std::vector<T> inv_;
  std::unique_ptr<System<I, T>> sys_;
  std::unique_ptr<Method<I, T>> method_;
  Buffer<T> b_all_, x_all_, b_, x_;
};

}  // namespace

#define MM_KRYLOV_SYSTEM(I, T) template class System<I, T>;
MM_FOR_INDEX_VALUE_TYPES(MM_KRYLOV_SYSTEM)

}  // namespace cuda::krylov

template <class I, class T>
std::unique_ptr<Runner> make_krylov_cuda(const SolveProblem<I, T>& p) {
  // Jacobi's diagonal is inverted before anything touches the GPU: a zero one is refused when
  // the runner is made, as the CPU implementations refuse it.
  std::vector<T> inv;
  if (p.opt.jacobi) inv = jacobi_inverse(*p.csr);
  return std::make_unique<cuda::krylov::KrylovCudaRunner<I, T>>(p, std::move(inv));
}

#define MM_KRYLOV_CUDA(I, T) \
  template std::unique_ptr<Runner> make_krylov_cuda<I, T>(const SolveProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_KRYLOV_CUDA)

}  // namespace mm
