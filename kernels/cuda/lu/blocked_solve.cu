// mmsolve's cuda-blocked LU solve: cuda-blocked's factorization, then the row swaps as gathers
// and the two triangular solves by cuBLAS TRSM, all on the GPU each run.
#include <algorithm>
#include <memory>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/blocked_driver.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/lu/row_major_blas.cuh"
#include "cuda/lu/row_swaps.cuh"
#include "cuda/lu/runner_checks.cuh"
#include "instantiate.hpp"

namespace mm::cuda::lu {

using namespace host;

template <class T>
void BlockedLu<T>::solve(const T* lu, T* x, Index k) {
  const cudaStream_t U = update_.get();
  fence_.order(kLegacy, U);
  for (int k0 = 0; k0 < n_; k0 += kRuns * kMaxPivots) {
    const int k1 = std::min(n_, k0 + kRuns * kMaxPivots);
    pair_runs(k0, k1, pairs_.get(), U);
    gather_runs(x, k, k0, k1, 0, k, pairs_.get(), U);
  }
  trsm_lower_unit(hu_.get(), n_, k, lu, n_, x, k);
  trsm_upper(hu_.get(), n_, k, lu, n_, x, k);
  fence_.order(U, kLegacy);
}

}  // namespace mm::cuda::lu

namespace mm {

namespace {

using cuda::Buffer;
using cuda::lu::BlockedFactors;
using cuda::lu::host::kLegacy;

template <class T>
class BlockedSolveRunner final : public cuda::CudaRunner {
 public:
  BlockedSolveRunner(const Dense<T>& a, const Dense<T>& b, Dense<T>& x, SolveReport& report,
                     const LuTuning& tuning, int profile)
      : a_host_(a), b_host_(b), x_host_(x), report_(report), factors_(a.rows, tuning, profile) {}
  void upload() override {
    factors_.upload(a_host_);
    b_ = Buffer<T>(b_host_.data.data(), b_host_.data.size());
    x_ = Buffer<T>(b_host_.data.size());
    x_.fill_bytes(0xff);
  }
  void download() override { x_.download(x_host_.data.data(), x_host_.data.size()); }
  nlohmann::json tuning() const override { return factors_.tuning(); }
  // As mmlu's runner: the factorizations' profile, printed each time it is asked for.
  nlohmann::json profile() const override { return factors_.profile(); }

 protected:
  void launch() override {
    if (a_host_.rows == 0) return;
    factors_.factor();
    MM_CUDA(cudaMemcpyAsync(x_.get(), b_.get(), b_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    if (b_host_.cols > 0) factors_.solve(x_.get(), b_host_.cols);
  }
  void before() override { report_ = SolveReport{}; }
  void after() override {
    factors_.check();
    report_.flops = lu_flops<T>(a_host_.rows) + lu_solve_flops<T>(a_host_.rows, b_host_.cols);
  }

 private:
  const Dense<T>& a_host_;
  const Dense<T>& b_host_;
  Dense<T>& x_host_;
  SolveReport& report_;
  BlockedFactors<T> factors_;
  Buffer<T> b_, x_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_lu_solve_cuda_blocked(const Dense<T>& a, const Dense<T>& b,
                                                   Dense<T>& x, SolveReport& report,
                                                   const LuTuning& tuning, int profile) {
  return std::make_unique<BlockedSolveRunner<T>>(a, b, x, report, tuning, profile);
}

#define MM_LU_SOLVE_CUDA_BLOCKED(T)                               \
  template std::unique_ptr<Runner> make_lu_solve_cuda_blocked<T>( \
      const Dense<T>&, const Dense<T>&, Dense<T>&, SolveReport&, const LuTuning&, int);
MM_FOR_VALUE_TYPES(MM_LU_SOLVE_CUDA_BLOCKED)

}  // namespace mm
