// The SpMV implementations by name, best first for each device.
#include <omp.h>
#include <algorithm>

#include "instantiate.hpp"
#include "spmv.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/spmv_cuda.hpp"
#endif

namespace mm {

namespace {

template <class I, class T>
class RefRunner final : public Runner {
 public:
  explicit RefRunner(const SpmvProblem<I, T>& p) : p_(p) {}
  void run() override {
    if (p_.beta != T{}) std::copy(p_.y0, p_.y0 + p_.full->rows, p_.y);
    spmv_ref(*p_.full, p_.x, p_.y, p_.alpha, p_.beta);
  }

 private:
  SpmvProblem<I, T> p_;
};

template <class I, class T>
class CsrRunner final : public Runner {
 public:
  explicit CsrRunner(const SpmvProblem<I, T>& p)
      : p_(p), split_(spmv_split(*p.full, omp_get_max_threads())) {}
  void run() override { spmv_cpu_csr(*p_.full, split_, p_.x, p_.y0, p_.y, p_.alpha, p_.beta); }

 private:
  SpmvProblem<I, T> p_;
  std::vector<std::int64_t> split_;
};

template <class I, class T>
class SymRunner final : public Runner {
 public:
  explicit SymRunner(const SpmvProblem<I, T>& p) : p_(p) {
    if (!p.stored || p.symmetry == Symmetry::general)
      throw InputError("--impl cpu-sym needs a symmetric, skew-symmetric or hermitian file");
  }
  void run() override {
    spmv_cpu_sym(*p_.stored, p_.symmetry, p_.x, p_.y0, p_.y, p_.alpha, p_.beta,
                 omp_get_max_threads());
  }

 private:
  SpmvProblem<I, T> p_;
};

template <class R, class I, class T>
SpmvMake<I, T> make(SpmvInput input = SpmvInput::full) {
  return {input, [](const SpmvProblem<I, T>& p) -> std::unique_ptr<Runner> {
            return std::make_unique<R>(p);
          }};
}

}  // namespace

template <class I, class T>
const ImplList<SpmvMake<I, T>>& spmv_impls() {
  static const ImplList<SpmvMake<I, T>> list = [] {
    ImplList<SpmvMake<I, T>> l;
    l.push_back({"cpu-csr", Device::cpu, "OpenMP CSR, rows split by nonzeros",
                 make<CsrRunner<I, T>, I, T>()});
    l.push_back({"cpu-sym", Device::cpu, "OpenMP on the stored triangle of a symmetric kind",
                 make<SymRunner<I, T>, I, T>(SpmvInput::stored_triangle)});
    l.push_back(
        {"ref", Device::cpu, "serial reference, plain CSR loops", make<RefRunner<I, T>, I, T>()});
#ifdef MM_HAVE_CUDA
    auto cuda = [](SpmvCudaKernel k) -> SpmvMake<I, T> {
      return {.fn = [k](const SpmvProblem<I, T>& p) { return make_spmv_cuda(p, k); }};
    };
    l.push_back({"cuda-adaptive", Device::cuda,
                 "row blocks balanced by nonzeros, staged in shared memory",
                 cuda(SpmvCudaKernel::adaptive)});
    const SpmvMake<I, T> cusparse{
        .fn = [](const SpmvProblem<I, T>& p) { return make_spmv_cusparse(p); }};
    l.push_back({"cusparse", Device::cuda, "cuSPARSE SpMV (CSR_ALG1)", cusparse});
    l.push_back({"cuda-vector", Device::cuda, "a warp per row", cuda(SpmvCudaKernel::vector)});
    l.push_back({"cuda-scalar", Device::cuda, "a thread per row", cuda(SpmvCudaKernel::scalar)});
#endif
    return l;
  }();
  return list;
}

#define MM_SPMV_IMPLS(I, T) template const ImplList<SpmvMake<I, T>>& spmv_impls<I, T>();
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_IMPLS)

}  // namespace mm
