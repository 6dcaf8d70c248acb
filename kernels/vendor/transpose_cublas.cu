// cuBLAS ?geam as a dense out-of-place transpose: B = 1*op(A) with op = T (or C for A^H).
#include <climits>

#include "cuda/cuda_util.cuh"
#include "cuda/transpose_cuda.hpp"
#include "instantiate.hpp"

namespace mm {

namespace {

template <class T>
class CublasTranspose final : public cuda::CudaRunner {
 public:
  explicit CublasTranspose(const DenseTransposeProblem<T>& p) : p_(p) {}

  void upload() override {
    const auto n = static_cast<std::size_t>(p_.rows * p_.cols);
    in_ = cuda::Buffer<T>(p_.in, n);
    out_ = cuda::Buffer<T>(n);
    out_.fill_bytes(0xff);  // poison: every element must be written
  }
  void download() override { out_.download(p_.out, static_cast<std::size_t>(p_.rows * p_.cols)); }

 protected:
  // Row-major A (rows x cols) is column-major A' (cols x rows, ld cols); the row-major result
  // (cols x rows) is column-major C (rows x cols, ld rows) = op(A'). beta = 0, so B is not
  // used: A's own buffer (in bounds at ld rows) stands in for it, apart from C.
  void launch() override {
    if (p_.rows == 0 || p_.cols == 0) return;
    const int m = static_cast<int>(p_.rows), n = static_cast<int>(p_.cols);
    // OP_C on a real type gave wrong values on the H200; conjugation means nothing there.
    const cublasOperation_t op = p_.conjugate && is_complex_v<T> ? CUBLAS_OP_C : CUBLAS_OP_T;
    const cuda::Scalar<T> one_s{T(1)}, zero_s{T(0)};
    const T &one = one_s.value, &zero = zero_s.value;
    const T* a = in_.get();
    T* c = out_.get();
    if constexpr (std::is_same_v<T, float>) {
      MM_CUDA(cublasSgeam(h_.get(), op, CUBLAS_OP_N, m, n, &one, a, n, &zero, a, m, c, m));
    } else if constexpr (std::is_same_v<T, double>) {
      MM_CUDA(cublasDgeam(h_.get(), op, CUBLAS_OP_N, m, n, &one, a, n, &zero, a, m, c, m));
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      auto z = [](const auto* p) { return reinterpret_cast<const cuComplex*>(p); };
      MM_CUDA(cublasCgeam(h_.get(), op, CUBLAS_OP_N, m, n, z(&one), z(a), n, z(&zero), z(a), m,
                          reinterpret_cast<cuComplex*>(c), m));
    } else {
      auto z = [](const auto* p) { return reinterpret_cast<const cuDoubleComplex*>(p); };
      MM_CUDA(cublasZgeam(h_.get(), op, CUBLAS_OP_N, m, n, z(&one), z(a), n, z(&zero), z(a), m,
                          reinterpret_cast<cuDoubleComplex*>(c), m));
    }
  }

 private:
  DenseTransposeProblem<T> p_;
  cuda::Cublas h_;
  cuda::Buffer<T> in_, out_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> make_transpose_cublas(const DenseTransposeProblem<T>& p) {
  if (p.rows > INT_MAX || p.cols > INT_MAX)
    throw InputError("matrix too large for cuBLAS's 32-bit sizes; use --impl cuda-tiled32");
  return std::make_unique<CublasTranspose<T>>(p);
}

#define MM_TRANSPOSE_CUBLAS(T) \
  template std::unique_ptr<Runner> make_transpose_cublas<T>(const DenseTransposeProblem<T>&);
MM_FOR_VALUE_TYPES(MM_TRANSPOSE_CUBLAS)

}  // namespace mm
