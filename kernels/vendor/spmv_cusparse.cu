// cuSPARSE SpMV (generic API, CSR, algorithm CSR_ALG1) as an implementation of spmv.
#include "cuda/cuda_util.cuh"
#include "cuda/spmv_cuda.hpp"
#include "instantiate.hpp"

namespace mm {

namespace {

template <class I>
constexpr cusparseIndexType_t index_type() {
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

template <class I, class T>
class CusparseSpmv final : public cuda::CudaRunner {
 public:
  explicit CusparseSpmv(const SpmvProblem<I, T>& p) : p_(p), alpha_{p.alpha}, beta_{p.beta} {}
  ~CusparseSpmv() override {
    if (x_desc_) cusparseDestroyDnVec(x_desc_);
    if (y_desc_) cusparseDestroyDnVec(y_desc_);
    if (a_desc_) cusparseDestroySpMat(a_desc_);
  }

  void upload() override {
    const Csr<I, T>& a = *p_.full;
    ptr_ = cuda::Buffer<I>(a.ptr.data(), a.ptr.size());
    idx_ = cuda::Buffer<I>(a.idx.data(), a.idx.size());
    val_ = cuda::Buffer<T>(a.val.data(), a.val.size());
    x_ = cuda::Buffer<T>(p_.x, static_cast<std::size_t>(a.cols));
    if (p_.beta != T{}) y0_ = cuda::Buffer<T>(p_.y0, static_cast<std::size_t>(a.rows));
    y_ = cuda::Buffer<T>(static_cast<std::size_t>(a.rows));
    y_.fill_bytes(0);
    if (a.rows == 0 || a.cols == 0) return;  // nothing to multiply; cuSPARSE refuses empty shapes
    constexpr cudaDataType dt = cuda::data_type<T>();
    MM_CUDA(cusparseCreateCsr(&a_desc_, a.rows, a.cols, a.nnz(), ptr_.get(), idx_.get(), val_.get(),
                              index_type<I>(), index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, dt));
    MM_CUDA(cusparseCreateDnVec(&x_desc_, a.cols, x_.get(), dt));
    MM_CUDA(cusparseCreateDnVec(&y_desc_, a.rows, y_.get(), dt));
    std::size_t bytes = 0;
    MM_CUDA(cusparseSpMV_bufferSize(h_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_.ptr(),
                                    a_desc_, x_desc_, beta_.ptr(), y_desc_, dt,
                                    CUSPARSE_SPMV_CSR_ALG1, &bytes));
    work_ = cuda::Buffer<char>(std::max<std::size_t>(bytes, 1));
    MM_CUDA(cusparseSpMV_preprocess(h_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_.ptr(),
                                    a_desc_, x_desc_, beta_.ptr(), y_desc_, dt,
                                    CUSPARSE_SPMV_CSR_ALG1, work_.get()));
  }

  void download() override { y_.download(p_.y, static_cast<std::size_t>(p_.full->rows)); }

 protected:
  void launch() override {
    if (!a_desc_) return;
    // cuSPARSE updates y in place: y0 is copied in first when beta != 0.
    if (p_.beta != T{})
      MM_CUDA(
          cudaMemcpyAsync(y_.get(), y0_.get(), y_.size() * sizeof(T), cudaMemcpyDeviceToDevice));
    MM_CUDA(cusparseSpMV(h_.get(), CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_.ptr(), a_desc_, x_desc_,
                         beta_.ptr(), y_desc_, cuda::data_type<T>(), CUSPARSE_SPMV_CSR_ALG1,
                         work_.get()));
  }

 private:
  SpmvProblem<I, T> p_;
  cuda::Scalar<T> alpha_, beta_;
  cuda::Cusparse h_;
  cuda::Buffer<I> ptr_, idx_;
  cuda::Buffer<T> val_, x_, y0_, y_;
  cuda::Buffer<char> work_;
  cusparseSpMatDescr_t a_desc_{};
  cusparseDnVecDescr_t x_desc_{}, y_desc_{};
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_spmv_cusparse(const SpmvProblem<I, T>& p) {
  return std::make_unique<CusparseSpmv<I, T>>(p);
}

#define MM_SPMV_CUSPARSE(I, T) \
  template std::unique_ptr<Runner> make_spmv_cusparse<I, T>(const SpmvProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_SPMV_CUSPARSE)

}  // namespace mm
