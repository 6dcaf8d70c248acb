// The transpose implementations by name, best first for each device: dense out of place,
// dense square in place, sparse CSR -> CSC.
#include <omp.h>

#include <algorithm>

#include "transpose.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/transpose_cuda.hpp"
#endif

namespace mm {

namespace {

// Threads for a problem of N values: one below 2^15, where starting a parallel region
// costs more than the data movement it would share.
int threads_for(std::int64_t n) {
  return n < (1 << 15) ? 1 : omp_get_max_threads();
}

template <class T>
class DenseRunner : public Runner {
 public:
  explicit DenseRunner(const DenseTransposeProblem<T>& p) : p_(p) {}

 protected:
  DenseTransposeProblem<T> p_;
};

template <class T>
class RefRunner final : public DenseRunner<T> {
 public:
  using DenseRunner<T>::DenseRunner;
  void run() override {
    transpose_ref(this->p_.rows, this->p_.cols, this->p_.in, this->p_.out, this->p_.conjugate);
  }
};

template <class T>
class BlockedRunner final : public DenseRunner<T> {
 public:
  using DenseRunner<T>::DenseRunner;
  void run() override {
    transpose_cpu_blocked(this->p_.rows, this->p_.cols, this->p_.in, this->p_.out,
                          this->p_.conjugate, threads_for(this->p_.rows * this->p_.cols));
  }
};

// In place: every run transposes OUT again, so runs alternate between A and A^T; download()
// adds one untimed run after an even count so that OUT ends as A^T.
template <class T>
class InplaceRunner : public DenseRunner<T> {
 public:
  explicit InplaceRunner(const DenseTransposeProblem<T>& p) : DenseRunner<T>(p) {
    if (p.rows != p.cols)
      throw InputError("an in-place transpose needs a square matrix, not " +
                       std::to_string(p.rows) + " x " + std::to_string(p.cols));
  }
  void upload() override {
    if (this->p_.in && this->p_.in != this->p_.out)
      std::copy(this->p_.in, this->p_.in + this->p_.rows * this->p_.cols, this->p_.out);
  }
  void run() override {
    transpose_in_place();
    ++runs_;
  }
  void download() override {
    if (runs_ % 2 == 0) run();
  }

 protected:
  virtual void transpose_in_place() = 0;

 private:
  long runs_ = 0;
};

template <class T>
class InplaceRefRunner final : public InplaceRunner<T> {
 public:
  using InplaceRunner<T>::InplaceRunner;

 protected:
  void transpose_in_place() override {
    transpose_inplace_ref(this->p_.rows, this->p_.out, this->p_.conjugate);
  }
};

template <class T>
class InplaceBlockedRunner final : public InplaceRunner<T> {
 public:
  using InplaceRunner<T>::InplaceRunner;

 protected:
  void transpose_in_place() override {
    transpose_cpu_inplace(this->p_.rows, this->p_.out, this->p_.conjugate,
                          threads_for(this->p_.rows * this->p_.rows));
  }
};

template <class I, class T>
class CsrRefRunner final : public Runner {
 public:
  explicit CsrRefRunner(const CsrTransposeProblem<I, T>& p) : p_(p) {
    transpose_shape(*p.a, *p.out);
  }
  void run() override { transpose_csr_ref(*p_.a, *p_.out, p_.conjugate); }

 private:
  CsrTransposeProblem<I, T> p_;
};

template <class I, class T>
class Csr2CscRunner final : public Runner {
 public:
  explicit Csr2CscRunner(const CsrTransposeProblem<I, T>& p) : p_(p) {
    transpose_shape(*p.a, *p.out);
  }
  void run() override {
    transpose_cpu_csr2csc(*p_.a, *p_.out, p_.conjugate, threads_for(p_.a->nnz()), scratch_);
  }

 private:
  CsrTransposeProblem<I, T> p_;
  std::vector<I> scratch_;  // per-thread column counts, kept between runs
};

template <class R, class P>
std::function<std::unique_ptr<Runner>(const P&)> make() {
  return [](const P& p) -> std::unique_ptr<Runner> { return std::make_unique<R>(p); };
}

}  // namespace

template <class T>
const ImplList<DenseTransposeMake<T>>& transpose_dense_impls() {
  using P = DenseTransposeProblem<T>;
  static const ImplList<DenseTransposeMake<T>> list = [] {
    ImplList<DenseTransposeMake<T>> l{
        {"cpu-blocked", Device::cpu, "OpenMP, cache tiles read and written row by row",
         make<BlockedRunner<T>, P>()},
        {"ref", Device::cpu, "serial reference, naive double loop", make<RefRunner<T>, P>()},
    };
#ifdef MM_HAVE_CUDA
    auto cuda = [](TransposeCudaKernel k) -> DenseTransposeMake<T> {
      return [k](const P& p) { return make_transpose_cuda(p, k); };
    };
    // One name a kernel: the tiled kind runs its own kernel for float only (every other type
    // runs tiled32's, so it is not listed there). Measured at 8192^2 on an H200 (of the copy):
    // float 0.93 / 0.86 / 0.78, double tiled32 0.90 ahead of tiled64 0.86.
    const Impl<DenseTransposeMake<T>> tiled32{
        "cuda-tiled32", Device::cuda, "32x32 shared tiles padded to 33, a value a thread access",
        cuda(TransposeCudaKernel::tiled32)};
    if constexpr (std::is_same_v<T, float>)
      l.push_back({"cuda-tiled", Device::cuda,
                   "64x64 tiles, 2x2 blocks transposed in registers, 8-byte accesses to a "
                   "swizzled shared tile (even sides; else as cuda-tiled32)",
                   cuda(TransposeCudaKernel::tiled)});
    else
      l.push_back(tiled32);
    if constexpr (sizeof(T) <= 8)
      l.push_back({"cuda-tiled64", Device::cuda,
                   "64x64 shared tiles, pairs of values a thread access (even sides; else as "
                   "cuda-tiled32)",
                   cuda(TransposeCudaKernel::tiled64)});
    if constexpr (std::is_same_v<T, float>) l.push_back(tiled32);
    // cuBLAS multiplies by alpha = 1: not for int64 values, which must come back exact.
    if constexpr (!std::is_same_v<T, std::int64_t>)
      l.push_back({"cublas", Device::cuda, "cuBLAS ?geam with op(A) = A^T (A^H)",
                   [](const P& p) { return make_transpose_cublas(p); }});
    l.push_back({"cuda-naive", Device::cuda, "a thread per element, strided writes",
                 cuda(TransposeCudaKernel::naive)});
#endif
    return l;
  }();
  return list;
}

template <class T>
const ImplList<DenseTransposeMake<T>>& transpose_inplace_impls() {
  using P = DenseTransposeProblem<T>;
  static const ImplList<DenseTransposeMake<T>> list = [] {
    ImplList<DenseTransposeMake<T>> l{
        {"cpu-inplace", Device::cpu, "OpenMP, tile (I,J) swapped with tile (J,I); square only",
         make<InplaceBlockedRunner<T>, P>()},
        {"ref", Device::cpu, "serial reference, element swaps above the diagonal; square only",
         make<InplaceRefRunner<T>, P>()},
    };
#ifdef MM_HAVE_CUDA
    l.push_back({"cuda-inplace", Device::cuda,
                 "tile pairs (I,J),(J,I) swapped through shared memory; square only",
                 [](const P& p) { return make_transpose_cuda_inplace(p); }});
#endif
    return l;
  }();
  return list;
}

template <class I, class T>
const ImplList<CsrTransposeMake<I, T>>& transpose_csr_impls() {
  using P = CsrTransposeProblem<I, T>;
  static const ImplList<CsrTransposeMake<I, T>> list = [] {
    ImplList<CsrTransposeMake<I, T>> l{
        {"cpu-csr2csc", Device::cpu, "OpenMP counting sort: per-thread column counts, scatter",
         make<Csr2CscRunner<I, T>, P>()},
        {"ref", Device::cpu, "serial reference, counting sort by column",
         make<CsrRefRunner<I, T>, P>()},
    };
#ifdef MM_HAVE_CUDA
    // The default on the GPU: 1.28x (random columns) and 1.26x (power-law rows) cuSPARSE on an
    // H100 (bench/results/transpose_gpu_2026-11-24_e887a76.md).
    l.push_back(
        {"cuda-csr2csc", Device::cuda,
         "stable radix sort by column carrying rows and positions, row pointers from the sorted "
         "columns, value gather",
         [](const P& p) { return make_transpose_cuda_csr2csc(p, CsrTransposeCudaKernel::sort); }});
    if constexpr (sizeof(I) == 4)  // Csr2cscEx2 has 32-bit indices only
      l.push_back({"cusparse", Device::cuda, "cuSPARSE Csr2cscEx2 (32-bit indices)",
                   [](const P& p) { return make_transpose_cusparse(p); }});
    // Research: on an H100 (4M x 4M, 8 a row, random and power-law rows) 0.47x cuSPARSE where
    // the first cuda-csr2csc (radix sort of positions, then a gather of rows) ran at 0.80x: the
    // returning atomics and the 4M-segment sort cost more than the radix sort's passes
    // (bench/results/transpose_gpu_2026-11-24_e887a76.md).
    l.push_back(
        {"cuda-scatter", Device::cuda,
         "column counts by atomics + scan, entries scattered by atomic column cursors, "
         "each column sorted by row (cub segmented sort)",
         [](const P& p) { return make_transpose_cuda_csr2csc(p, CsrTransposeCudaKernel::scatter); },
         ImplKind::experimental});
#endif
    return l;
  }();
  return list;
}

#define MM_TRANSPOSE_DENSE_IMPLS(T)                                           \
  template const ImplList<DenseTransposeMake<T>>& transpose_dense_impls<T>(); \
  template const ImplList<DenseTransposeMake<T>>& transpose_inplace_impls<T>();
MM_TRANSPOSE_VALUE_TYPES(MM_TRANSPOSE_DENSE_IMPLS)

#define MM_TRANSPOSE_CSR_IMPLS(I, T) \
  template const ImplList<CsrTransposeMake<I, T>>& transpose_csr_impls<I, T>();
MM_TRANSPOSE_INDEX_VALUE_TYPES(MM_TRANSPOSE_CSR_IMPLS)

}  // namespace mm
