// cuBLAS ?geam as dense addition: C = alpha*A + beta*B.
#include <climits>

#include "cuda/add_cuda.hpp"
#include "cuda/cuda_util.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

template <class I, class T>
class CublasAdd final : public cuda::CudaRunner {
 public:
  explicit CublasAdd(const AddProblem<I, T>& p) : p_(p) {}

  void upload() override {
    a_ = cuda::Buffer<T>(p_.a.dense->data.data(), p_.a.dense->data.size());
    b_ = cuda::Buffer<T>(p_.b.dense->data.data(), p_.b.dense->data.size());
    c_ = cuda::Buffer<T>(p_.a.dense->data.size());
    c_.fill_bytes(0xff);  // poison: every element must be written
  }
  void download() override { c_.download(p_.dense_out->data.data(), c_.size()); }

 protected:
  // Row-major rows x cols is column-major cols x rows with leading dimension cols; an
  // element-wise sum does not care which.
  void launch() override {
    const int m = static_cast<int>(p_.a.dense->cols), n = static_cast<int>(p_.a.dense->rows);
    if (m == 0 || n == 0) return;
    const T *a = a_.get(), *b = b_.get();
    T* c = c_.get();
    const auto N = CUBLAS_OP_N;
    const cuda::Scalar<T> al{p_.alpha}, be{p_.beta};
    if constexpr (std::is_same_v<T, float>) {
      MM_CUDA(cublasSgeam(h_.get(), N, N, m, n, al.ptr(), a, m, be.ptr(), b, m, c, m));
    } else if constexpr (std::is_same_v<T, double>) {
      MM_CUDA(cublasDgeam(h_.get(), N, N, m, n, al.ptr(), a, m, be.ptr(), b, m, c, m));
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      auto z = [](const auto* p) { return reinterpret_cast<const cuComplex*>(p); };
      MM_CUDA(cublasCgeam(h_.get(), N, N, m, n, z(al.ptr()), z(a), m, z(be.ptr()), z(b), m,
                          reinterpret_cast<cuComplex*>(c), m));
    } else {
      auto z = [](const auto* p) { return reinterpret_cast<const cuDoubleComplex*>(p); };
      MM_CUDA(cublasZgeam(h_.get(), N, N, m, n, z(al.ptr()), z(a), m, z(be.ptr()), z(b), m,
                          reinterpret_cast<cuDoubleComplex*>(c), m));
    }
  }

 private:
  AddProblem<I, T> p_;
  cuda::Cublas h_;
  cuda::Buffer<T> a_, b_, c_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_add_cublas(const AddProblem<I, T>& p) {
  if (p.a.dense->rows > INT_MAX || p.a.dense->cols > INT_MAX)
    throw InputError("matrix too large for cuBLAS's 32-bit sizes; use --impl cuda-vec");
  return std::make_unique<CublasAdd<I, T>>(p);
}

#define MM_ADD_CUBLAS(I, T) \
  template std::unique_ptr<Runner> make_add_cublas<I, T>(const AddProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_ADD_CUBLAS)

}  // namespace mm
