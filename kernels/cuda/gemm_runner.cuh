// The runner of a hand-written CUDA GEMM kernel in one of its shapes (cuda-dmma, cuda-sgemm):
// A and B uploaded, C poisoned, the shape's launch limits set once, the launch timed.
#pragma once

#include <cstdint>

#include "cuda/cuda_util.cuh"
#include "gemm.hpp"

namespace mm::cuda {

// Output tiles of TM x TN over an M x N product (a block each, on a cuda::grid_1d).
inline std::int64_t output_tiles(std::int64_t m, std::int64_t n, int tm, int tn) {
  return ((m + tm - 1) / tm) * ((n + tn - 1) / tn);
}

template <class T>
class ShapedGemmRunner final : public CudaRunner {
 public:
  // PREPARE sets the shape's kernel attributes (shared memory above the default); LAUNCH queues
  // C = alpha*A*B (m x k times k x n, row-major, none 0 but k) on the default stream.
  using Prepare = void (*)();
  using Launch = void (*)(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b,
                          T* c, T alpha);

  ShapedGemmRunner(const GemmProblem<T>& p, Prepare prepare, Launch launch)
      : p_(p), prepare_(prepare), launch_(launch) {
    gemm_check_shapes(*p.a, *p.b, *p.c);
  }

  void upload() override {
    a_ = Buffer<T>(p_.a->data.data(), p_.a->data.size());
    b_ = Buffer<T>(p_.b->data.data(), p_.b->data.size());
    c_ = Buffer<T>(p_.c->data.size());
    c_.fill_bytes(0xff);  // poison (NaN): every element must be written
    prepare_();
  }

  void download() override { c_.download(p_.c->data.data(), p_.c->data.size()); }

 protected:
  void launch() override {
    const std::int64_t m = p_.a->rows, n = p_.b->cols, k = p_.a->cols;
    if (m == 0 || n == 0) return;
    launch_(m, n, k, a_.get(), b_.get(), c_.get(), p_.alpha);
  }

 private:
  GemmProblem<T> p_;
  Prepare prepare_;
  Launch launch_;
  Buffer<T> a_, b_, c_;
};

}  // namespace mm::cuda
