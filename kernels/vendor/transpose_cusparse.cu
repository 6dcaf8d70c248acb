// cuSPARSE Csr2cscEx2 as a sparse transpose (the CSC of A is the CSR of A^T); 32-bit indices.
#include <climits>

#include "cuda/cuda_util.cuh"
#include "cuda/transpose_cuda.hpp"

namespace mm {

namespace {

// The value type cuSPARSE is told: int64 values travel as 64-bit floats, which the
// conversion only moves, never computes with.
template <class T>
constexpr cudaDataType value_type() {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return CUDA_R_64F;
  else
    return cuda::data_type<T>();
}

template <class I, class T>
class CusparseCsr2Csc final : public cuda::CudaRunner {
 public:
  explicit CusparseCsr2Csc(const CsrTransposeProblem<I, T>& p) : p_(p) {}

  void upload() override {
    const Csr<I, T>& a = *p_.a;
    const auto nnz = static_cast<std::size_t>(a.nnz());
    ptr_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    idx_ = cuda::Buffer<I>(a.idx.data(), nnz);
    val_ = cuda::Buffer<T>(a.val.data(), nnz);
    t_ptr_ = cuda::Buffer<I>(static_cast<std::size_t>(a.cols) + 1);
    t_ptr_.fill_bytes(0);  // stays all zeros when there is nothing to convert
    t_idx_ = cuda::Buffer<I>(nnz);
    t_val_ = cuda::Buffer<T>(nnz);
    t_idx_.fill_bytes(0xff);  // poison: every entry must be written
    t_val_.fill_bytes(0xff);
    if (nnz == 0) return;  // cuSPARSE refuses empty shapes; the zero pointers are the answer
    std::size_t bytes = 0;
    MM_CUDA(cusparseCsr2cscEx2_bufferSize(
        h_.get(), static_cast<int>(a.rows), static_cast<int>(a.cols), static_cast<int>(nnz),
        val_.get(), ptr_.get(), idx_.get(), t_val_.get(), t_ptr_.get(), t_idx_.get(),
        value_type<T>(), CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
        &bytes));
    work_ = cuda::Buffer<char>(std::max<std::size_t>(bytes, 1));
  }

  void download() override {
    Csr<I, T>& t = *p_.out;
    t_ptr_.download(t.ptr.data(), t.ptr.size());
    t_idx_.download(t.idx.data(), t.idx.size());
    t_val_.download(t.val.data(), t.val.size());
  }

 protected:
  void launch() override {
    const Csr<I, T>& a = *p_.a;
    if (a.nnz() == 0) return;
    MM_CUDA(cusparseCsr2cscEx2(h_.get(), static_cast<int>(a.rows), static_cast<int>(a.cols),
                               static_cast<int>(a.nnz()), val_.get(), ptr_.get(), idx_.get(),
                               t_val_.get(), t_ptr_.get(), t_idx_.get(), value_type<T>(),
                               CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                               CUSPARSE_CSR2CSC_ALG1, work_.get()));
    if (is_complex_v<T> && p_.conjugate) cuda_conjugate_bits(t_val_.get(), a.nnz(), sizeof(T));
  }

 private:
  CsrTransposeProblem<I, T> p_;
  cuda::Cusparse h_;
  cuda::Buffer<I> ptr_, idx_, t_ptr_, t_idx_;
  cuda::Buffer<T> val_, t_val_;
  cuda::Buffer<char> work_;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_transpose_cusparse(const CsrTransposeProblem<I, T>& p) {
  if constexpr (sizeof(I) != 4) {
    throw InputError("cusparse's Csr2cscEx2 takes 32-bit indices; use --impl cuda-csr2csc");
  } else {
    transpose_shape(*p.a, *p.out);
    return std::make_unique<CusparseCsr2Csc<I, T>>(p);
  }
}

#define MM_TRANSPOSE_CUSPARSE(I, T) \
  template std::unique_ptr<Runner> make_transpose_cusparse<I, T>(const CsrTransposeProblem<I, T>&);
MM_TRANSPOSE_INDEX_VALUE_TYPES(MM_TRANSPOSE_CUSPARSE)

}  // namespace mm
