// The solver implementations by method and name, best first for each device.
#include <algorithm>
#include <map>

#include "instantiate.hpp"
#include "solve.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/solve/solve_cuda.hpp"
#endif

namespace mm {

namespace {

template <class I, class T>
class SolveRunner : public Runner {
 public:
  explicit SolveRunner(const SolveProblem<I, T>& p) : p_(p) {}
  void run() final {
    *p_.report = SolveReport{};  // each run reports itself, not the sum of the repeats
    solve();
  }

 protected:
  virtual void solve() = 0;
  SolveProblem<I, T> p_;
};

// lu: a fresh copy of A factored, then substitution on a copy of B.
template <class I, class T, void (*Factor)(Dense<T>&, std::int64_t*),
          void (*Subst)(const Dense<T>&, const std::int64_t*, Dense<T>&)>
class LuSolve final : public SolveRunner<I, T> {
 public:
  using SolveRunner<I, T>::SolveRunner;
  void solve() override {
    const auto& p = this->p_;
    lu_ = *p.dense;
    ipiv_.resize(static_cast<std::size_t>(lu_.rows));
    Factor(lu_, ipiv_.data());
    *p.x = *p.b;
    Subst(lu_, ipiv_.data(), *p.x);
    p.report->flops = lu_flops<T>(lu_.rows) + lu_solve_flops<T>(lu_.rows, p.b->cols);
  }

 private:
  Dense<T> lu_;
  std::vector<std::int64_t> ipiv_;
};

template <class T>
void blocked(Dense<T>& a, std::int64_t* ipiv) {
  lu_cpu_blocked(a, ipiv, 128);
}

template <class I, class T, void (*Gauss)(Dense<T>&, Dense<T>&)>
class GaussSolve final : public SolveRunner<I, T> {
 public:
  using SolveRunner<I, T>::SolveRunner;
  void solve() override {
    const auto& p = this->p_;
    a_ = *p.dense;
    *p.x = *p.b;
    Gauss(a_, *p.x);
    p.report->flops = lu_flops<T>(a_.rows) + lu_solve_flops<T>(a_.rows, p.b->cols);
  }

 private:
  Dense<T> a_;
};

template <class I, class T>
class LapackSolve final : public SolveRunner<I, T> {
 public:
  using SolveRunner<I, T>::SolveRunner;
  void solve() override {
    const auto& p = this->p_;
    *p.x = *p.b;
    solve_lapack(*p.dense, *p.x);
    p.report->flops = lu_flops<T>(p.dense->rows) + lu_solve_flops<T>(p.dense->rows, p.b->cols);
  }
};

template <class I, class T>
class UmfpackSolve final : public SolveRunner<I, T> {
 public:
  explicit UmfpackSolve(const SolveProblem<I, T>& p) : SolveRunner<I, T>(p) {
    if constexpr (is_complex_v<T>)
      throw InputError(
          "umfpack: real matrices only here; use --method lu or gmres for complex ones");
  }
  void solve() override {
    const auto& p = this->p_;
    p.report->flops = solve_umfpack(*p.csr, *p.b, *p.x);
  }
};

// One Krylov solve per right-hand-side column, x starting from zero.
template <class I, class T, std::unique_ptr<KrylovOps<T>> (*MakeOps)(const Csr<I, T>&, bool)>
class KrylovSolve final : public SolveRunner<I, T> {
 public:
  explicit KrylovSolve(const SolveProblem<I, T>& p)
      : SolveRunner<I, T>(p), ops_(MakeOps(*p.csr, p.opt.jacobi)) {}
  void solve() override {
    const auto& p = this->p_;
    const std::int64_t n = p.b->rows, k = p.b->cols;
    std::vector<T> b(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n));
    for (std::int64_t c = 0; c < k; ++c) {
      for (std::int64_t i = 0; i < n; ++i) b[i] = (*p.b)(i, c);
      krylov_solve(p.method, *ops_, b.data(), x.data(), p.opt, *p.report);
      for (std::int64_t i = 0; i < n; ++i) (*p.x)(i, c) = x[i];
    }
  }

 private:
  std::unique_ptr<KrylovOps<T>> ops_;
};

#ifdef MM_HAVE_CUDA
// --method lu's cuda-blocked: the dense system, with lu's tuning and the --profile level.
template <class I, class T>
std::unique_ptr<Runner> lu_solve_cuda_blocked(const SolveProblem<I, T>& p) {
  return make_lu_solve_cuda_blocked(*p.dense, *p.b, *p.x, *p.report, p.lu_tuning, p.profile);
}
#endif

template <class R, class I, class T>
SolveMake<I, T> make() {
  return
      [](const SolveProblem<I, T>& p) -> std::unique_ptr<Runner> { return std::make_unique<R>(p); };
}

}  // namespace

template <class I, class T>
const ImplList<SolveMake<I, T>>& solve_impls(SolveMethod method) {
  static const std::map<SolveMethod, ImplList<SolveMake<I, T>>> lists = [] {
    std::map<SolveMethod, ImplList<SolveMake<I, T>>> m;
    m[SolveMethod::lu] = {
        {"lapack", Device::cpu, "LAPACK getrf + getrs (OpenBLAS)", make<LapackSolve<I, T>, I, T>()},
        {"cpu-blocked", Device::cpu, "blocked LU (mmlu's cpu-blocked) + OpenMP substitution",
         make<LuSolve<I, T, blocked<T>, lu_solve_cpu<T>>, I, T>()},
        {"ref", Device::cpu, "unblocked LU + serial substitution",
         make<LuSolve<I, T, lu_ref<T>, lu_solve_ref<T>>, I, T>()}};
#ifdef MM_HAVE_CUDA
    // cuSOLVER first: faster than cuda-blocked in every solve measured on an H200
    // (2026-11-21), e.g. 14.8 against 23.6 ms for a dense system of 4096.
    m[SolveMethod::lu].push_back({"cusolver", Device::cuda,
                                  "cuSOLVER Xgetrf + Xgetrs on device-transposed copies",
                                  [](const SolveProblem<I, T>& p) {
                                    return make_lu_solve_cusolver(*p.dense, *p.b, *p.x, *p.report);
                                  }});
    m[SolveMethod::lu].push_back(
        {"cuda-blocked", Device::cuda, "mmlu's cuda-blocked + row gathers and cuBLAS TRSMs",
         [](const SolveProblem<I, T>& p) { return lu_solve_cuda_blocked(p); }});
#endif
    m[SolveMethod::gauss] = {{"cpu", Device::cpu, "OpenMP elimination without pivoting",
                              make<GaussSolve<I, T, gauss_cpu<T>>, I, T>()},
                             {"ref", Device::cpu, "serial elimination without pivoting",
                              make<GaussSolve<I, T, gauss_ref<T>>, I, T>()}};
#ifdef MM_HAVE_CUDA
    m[SolveMethod::gauss].push_back(
        {"cuda-blocked", Device::cuda, "64-column panels + cuBLAS TRSM/GEMM trailing update",
         [](const SolveProblem<I, T>& p) { return make_gauss_cuda(p, true); }});
    m[SolveMethod::gauss].push_back(
        {"cuda", Device::cuda, "a kernel per elimination step, then back substitution",
         [](const SolveProblem<I, T>& p) { return make_gauss_cuda(p, false); }});
#endif
    m[SolveMethod::umfpack] = {{"umfpack", Device::cpu, "SuiteSparse UMFPACK sparse LU (real)",
                                make<UmfpackSolve<I, T>, I, T>()}};
    for (auto method : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres})
      m[method] = {{"cpu", Device::cpu, "OpenMP SpMV (cpu-csr) and vector operations",
                    make<KrylovSolve<I, T, krylov_ops_cpu<I, T>>, I, T>()},
                   {"ref", Device::cpu, "serial reference SpMV and plain loops",
                    make<KrylovSolve<I, T, krylov_ops_ref<I, T>>, I, T>()}};
#ifdef MM_HAVE_CUDA
    for (auto method : {SolveMethod::cg, SolveMethod::bicgstab, SolveMethod::gmres})
      m[method].push_back({"cuda", Device::cuda,
                           "every vector on the GPU, fused SpMV+dot, scalars on the device",
                           [](const SolveProblem<I, T>& p) { return make_krylov_cuda(p); }});
#endif
    return m;
  }();
  return lists.at(method);
}

#define MM_SOLVE_IMPLS(I, T) \
  template const ImplList<SolveMake<I, T>>& solve_impls<I, T>(SolveMethod);
MM_FOR_INDEX_VALUE_TYPES(MM_SOLVE_IMPLS)

}  // namespace mm
