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
  for (int k0 = 0; k0 < n_; k0 += kMaxPivots) {
    const int k1 = std::min(n_, k0 + kMaxPivots);
    pivot_pairs(ipiv_.get(), k0, k1, pairs_.get(), U);
    gather_rows(x, k, 0, k, pairs_.get(), 2 * (k1 - k0), U);
  }
  trsm_lower_unit(hu_.get(), n_, k, lu, n_, x, k);
  trsm_upper(hu_.get(), n_, k, lu, n_, x, k);
  fence_.order(U, kLegacy);
}

}  // namespace mm::cuda::lu

namespace mm {

namespace {

using cuda::Buffer;
using cuda::lu::BlockedLu;
using cuda::lu::check_int_size;
using cuda::lu::Index;
using cuda::lu::host::kLegacy;

template <class T>
class BlockedSolveRunner final : public cuda::CudaRunner {
 public:
  BlockedSolveRunner(const Dense<T>& a, const Dense<T>& b, Dense<T>& x, SolveReport& report,
                     const LuTuning& tuning, int profile)
      : a_host_(a), b_host_(b), x_host_(x), report_(report), tuning_(tuning), profile_(profile) {
    check_int_size(a.rows, "cuda-blocked");
    lu_cuda_nb(a.rows, tuning);  // a panel too wide: refused before anything is uploaded
  }
  void upload() override {
    a_ = Buffer<T>(a_host_.data.data(), a_host_.data.size());
    b_ = Buffer<T>(b_host_.data.data(), b_host_.data.size());
    lu_ = Buffer<T>(a_host_.data.size());
    x_ = Buffer<T>(b_host_.data.size());
    x_.fill_bytes(0xff);
    if (a_host_.rows > 0) engine_ = std::make_unique<BlockedLu<T>>(a_host_.rows, tuning_, profile_);
  }
  void download() override { x_.download(x_host_.data.data(), x_host_.data.size()); }
  nlohmann::json tuning() const override {
    return engine_ ? engine_->tuning() : nlohmann::json::object();
  }
  // As mmlu's runner: the factorizations' profile, printed each time it is asked for.
  nlohmann::json profile() const override { return engine_ ? engine_->profile_report() : nullptr; }

 protected:
  void launch() override {
    if (!engine_) return;
    MM_CUDA(cudaMemcpyAsync(lu_.get(), a_.get(), a_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    engine_->factor(lu_.get());
    MM_CUDA(cudaMemcpyAsync(x_.get(), b_.get(), b_.size() * sizeof(T), cudaMemcpyDeviceToDevice,
                            kLegacy));
    if (b_host_.cols > 0) engine_->solve(lu_.get(), x_.get(), b_host_.cols);
  }
  void before() override { report_ = SolveReport{}; }
  void after() override {
    if (engine_) engine_->check();
    report_.flops = lu_flops<T>(a_host_.rows) + lu_solve_flops<T>(a_host_.rows, b_host_.cols);
  }

 private:
  const Dense<T>& a_host_;
  const Dense<T>& b_host_;
  Dense<T>& x_host_;
  SolveReport& report_;
  LuTuning tuning_;
  int profile_;
  Buffer<T> a_, b_, lu_, x_;
  std::unique_ptr<BlockedLu<T>> engine_;
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
