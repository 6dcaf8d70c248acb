// cuSOLVER LU for mmlu (cusolverDnXgetrf) and mmsolve --method lu (Xgetrf + Xgetrs). The
// row-major A is transposed on the device into the column-major A that cuSOLVER factors and
// the factors transposed back (B and X likewise for the solve), inside the timed run: the
// tool's input and output are row-major, as the CPU `lapack` impl's copies are.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_util.cuh"
#include "cuda/lu/lu_cuda.hpp"
#include "cuda/transpose_device.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

using cuda::Buffer;
using Index = std::int64_t;
constexpr cudaStream_t kLegacy{};

class Params {
 public:
  Params() { MM_CUDA(cusolverDnCreateParams(&p_)); }
  ~Params() { cusolverDnDestroyParams(p_); }
  Params(const Params&) = delete;
  Params& operator=(const Params&) = delete;
  cusolverDnParams_t get() const { return p_; }

 private:
  cusolverDnParams_t p_{};
};

// getrf (and getrs) of one n x n column-major matrix, n > 0, on stream 0, with the workspace
// its bufferSize query asks for.
template <class T>
class Getrf {
 public:
  Getrf(Index n, T* a) : n_(n), ipiv_(static_cast<std::size_t>(n)), info_(1), solve_info_(1) {
    MM_CUDA(cusolverDnXgetrf_bufferSize(h_.get(), params_.get(), n, n, cuda::data_type<T>(), a, n,
                                        cuda::data_type<T>(), &device_bytes_, &host_bytes_));
    device_work_ = Buffer<char>(device_bytes_);
    host_work_.resize(host_bytes_);
    info_.fill_bytes(0);
    solve_info_.fill_bytes(0);  // stays 0 where only factor() runs
  }

  void factor(T* a) {
    MM_CUDA(cusolverDnXgetrf(h_.get(), params_.get(), n_, n_, cuda::data_type<T>(), a, n_,
                             ipiv_.get(), cuda::data_type<T>(), device_work_.get(), device_bytes_,
                             host_bytes_ ? host_work_.data() : nullptr, host_bytes_, info_.get()));
  }
  // B (n x k, column-major) <- A^-1 B from the factors LU of factor().
  void solve(const T* lu, T* b, Index k) {
    MM_CUDA(cusolverDnXgetrs(h_.get(), params_.get(), CUBLAS_OP_N, n_, k, cuda::data_type<T>(), lu,
                             n_, ipiv_.get(), cuda::data_type<T>(), b, n_, solve_info_.get()));
  }

  // Throws for the last run: NumericalError at an exact zero pivot (info = its 1-based
  // column), DeviceError for a rejected argument.
  void check() const {
    int info = 0, solve_info = 0;
    MM_CUDA(cudaMemcpy(&info, info_.get(), sizeof info, cudaMemcpyDeviceToHost));
    MM_CUDA(cudaMemcpy(&solve_info, solve_info_.get(), sizeof info, cudaMemcpyDeviceToHost));
    if (info > 0) throw NumericalError(zero_pivot_message(info - 1));
    if (info < 0 || solve_info < 0)
      throw DeviceError("cusolver: argument " + std::to_string(-std::min(info, solve_info)) +
                        " rejected");
  }

  // cuSOLVER's 64-bit pivots are LAPACK's, 1-based.
  void pivots(std::vector<std::int64_t>& out) const { ipiv_.download(out.data(), out.size()); }

 private:
  Index n_;
  cuda::CusolverDn h_;  // on stream 0, the runner's
  Params params_;
  Buffer<std::int64_t> ipiv_;
  Buffer<int> info_, solve_info_;
  std::size_t device_bytes_ = 0, host_bytes_ = 0;
  Buffer<char> device_work_;
  std::vector<char> host_work_;
};

template <class T>
class CusolverLu final : public cuda::CudaRunner {
 public:
  CusolverLu(const LuProblem<T>& p, bool getrf_only)
      : p_(p), n_(p.a->rows), getrf_only_(getrf_only) {}
  void upload() override {
    a_ = Buffer<T>(p_.a->data.data(), p_.a->data.size());
    work_ = Buffer<T>(p_.a->data.size());
    lu_ = Buffer<T>(p_.a->data.size());
    lu_.fill_bytes(0xff);  // poison: the transpose back must write every element
    if (n_ > 0) getrf_ = std::make_unique<Getrf<T>>(n_, work_.get());
  }
  void download() override {
    if (getrf_only_) return;  // the factors of A^T: nothing the caller asked for
    lu_.download(p_.lu->data.data(), p_.lu->data.size());
    if (getrf_) getrf_->pivots(*p_.ipiv);
  }

 protected:
  void launch() override {
    if (!getrf_) return;
    if (getrf_only_) {  // the same work as cuda-blocked's: a copy of A, then the factorization
      MM_CUDA(cudaMemcpyAsync(work_.get(), a_.get(), a_.size() * sizeof(T),
                              cudaMemcpyDeviceToDevice, kLegacy));
      getrf_->factor(work_.get());
      return;
    }
    cuda::transpose_device(a_.get(), work_.get(), n_, n_, sizeof(T), kLegacy);
    getrf_->factor(work_.get());
    cuda::transpose_device(work_.get(), lu_.get(), n_, n_, sizeof(T), kLegacy);
  }
  void after() override {
    if (getrf_) getrf_->check();
  }

 private:
  LuProblem<T> p_;
  Index n_;
  bool getrf_only_;
  Buffer<T> a_, work_, lu_;
  std::unique_ptr<Getrf<T>> getrf_;
};

template <class T>
class CusolverSolve final : public cuda::CudaRunner {
 public:
  CusolverSolve(const Dense<T>& a, const Dense<T>& b, Dense<T>& x, SolveReport& report)
      : a_host_(a), b_host_(b), x_host_(x), report_(report) {}
  void upload() override {
    a_ = Buffer<T>(a_host_.data.data(), a_host_.data.size());
    b_ = Buffer<T>(b_host_.data.data(), b_host_.data.size());
    work_ = Buffer<T>(a_host_.data.size());
    bt_ = Buffer<T>(b_host_.data.size());
    x_ = Buffer<T>(b_host_.data.size());
    x_.fill_bytes(0xff);
    if (a_host_.rows > 0) getrf_ = std::make_unique<Getrf<T>>(a_host_.rows, work_.get());
  }
  void download() override { x_.download(x_host_.data.data(), x_host_.data.size()); }

 protected:
  // B (n x k row-major) transposed is B column-major; X comes back the same way.
  void launch() override {
    const Index n = a_host_.rows, k = b_host_.cols;
    if (!getrf_) return;
    cuda::transpose_device(a_.get(), work_.get(), n, n, sizeof(T), kLegacy);
    getrf_->factor(work_.get());
    if (k == 0) return;
    cuda::transpose_device(b_.get(), bt_.get(), n, k, sizeof(T), kLegacy);
    getrf_->solve(work_.get(), bt_.get(), k);
    cuda::transpose_device(bt_.get(), x_.get(), k, n, sizeof(T), kLegacy);
  }

  void before() override { report_ = SolveReport{}; }
  void after() override {
    if (getrf_) getrf_->check();
    report_.flops = lu_flops<T>(a_host_.rows) + lu_solve_flops<T>(a_host_.rows, b_host_.cols);
  }

 private:
  const Dense<T>& a_host_;
  const Dense<T>& b_host_;
  Dense<T>& x_host_;
  SolveReport& report_;
  Buffer<T> a_, b_, work_, bt_, x_;
  std::unique_ptr<Getrf<T>> getrf_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_lu_cusolver(const LuProblem<T>& p) {
  return std::make_unique<CusolverLu<T>>(p, false);
}
template <class T>
std::unique_ptr<Runner> make_lu_cusolver_getrf_only(const LuProblem<T>& p) {
  return std::make_unique<CusolverLu<T>>(p, true);
}
template <class T>
std::unique_ptr<Runner> make_lu_solve_cusolver(const Dense<T>& a, const Dense<T>& b, Dense<T>& x,
                                               SolveReport& report) {
  return std::make_unique<CusolverSolve<T>>(a, b, x, report);
}

#define MM_LU_CUSOLVER(T)                                                                      \
  template std::unique_ptr<Runner> make_lu_cusolver<T>(const LuProblem<T>&);                   \
  template std::unique_ptr<Runner> make_lu_cusolver_getrf_only<T>(const LuProblem<T>&);        \
  template std::unique_ptr<Runner> make_lu_solve_cusolver<T>(const Dense<T>&, const Dense<T>&, \
                                                             Dense<T>&, SolveReport&);
MM_FOR_VALUE_TYPES(MM_LU_CUSOLVER)

}  // namespace mm
