// cuSPARSE products with a sparse operand: SpGEMM (workEstimation / compute / copy, 32-bit
// indices), SpMM with row-major dense operands, and dense x sparse as SpMM on transposes.
#include <optional>

#include "cuda/cuda_util.cuh"
#include "cuda/spgemm_cuda.hpp"
#include "cuda/spgemm_rows.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

template <class I>
constexpr cusparseIndexType_t index_type() {
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

// A host vector on the device with at least one element: cuSPARSE may refuse null
// pointers even where it reads nothing.
template <class E>
cuda::Buffer<E> upload_min1(const std::vector<E>& v) {
  cuda::Buffer<E> b(std::max<std::size_t>(v.size(), 1));
  b.upload(v.data(), v.size());
  return b;
}

// Grows BUF to N bytes (at least one) when smaller: repeats of one product allocate once.
void grow(cuda::Buffer<char>& buf, std::size_t n) {
  if (buf.size() < std::max<std::size_t>(n, 1))
    buf = cuda::Buffer<char>(std::max<std::size_t>(n, 1));
}

// A device CSR matrix and its cuSPARSE descriptor.
template <class I, class T>
struct CsrOnDevice {
  cuda::Buffer<I> ptr, idx;
  cuda::Buffer<T> val;
  cusparseSpMatDescr_t desc{};
  CsrOnDevice() = default;
  CsrOnDevice(const CsrOnDevice&) = delete;
  CsrOnDevice& operator=(const CsrOnDevice&) = delete;
  ~CsrOnDevice() {
    if (desc) cusparseDestroySpMat(desc);
  }
  void upload(const Csr<I, T>& a) {
    ptr = upload_min1(a.ptr), idx = upload_min1(a.idx), val = upload_min1(a.val);
    MM_CUDA(cusparseCreateCsr(&desc, a.rows, a.cols, a.nnz(), ptr.get(), idx.get(), val.get(),
                              index_type<I>(), index_type<I>(), CUSPARSE_INDEX_BASE_ZERO,
                              cuda::data_type<T>()));
  }
};

// C's descriptor and the SpGEMM state of one run.
struct SpgemmRun {
  cusparseSpMatDescr_t c{};
  cusparseSpGEMMDescr_t d{};
  SpgemmRun() { MM_CUDA(cusparseSpGEMM_createDescr(&d)); }
  ~SpgemmRun() {
    if (c) cusparseDestroySpMat(c);
    cusparseSpGEMM_destroyDescr(d);
  }
  SpgemmRun(const SpgemmRun&) = delete;
  SpgemmRun& operator=(const SpgemmRun&) = delete;
};

template <class I, class T>
class CusparseSpgemm final : public cuda::CudaRunner {
 public:
  explicit CusparseSpgemm(const SpgemmProblem<I, T>& p) : p_(p), alpha_{p.alpha}, beta_{T{}} {}

  void upload() override {
    cp_ = cuda::Buffer<I>(static_cast<std::size_t>(p_.a->rows) + 1);
    cp_.fill_bytes(0);  // the answer when the product is empty
    ci_ = cuda::Buffer<I>(1);
    cv_ = cuda::Buffer<T>(1);
    if (empty()) return;
    a_.upload(*p_.a);
    b_.upload(*p_.b);
  }

  void download() override { spgemm::download_product(p_, cp_, ci_, cv_, nnz_); }

 protected:
  // The whole product on every run: C's size comes from the compute step (a synchronous
  // query), its arrays grow when too small, then the copy fills them.
  void launch() override {
    if (empty()) return;
    constexpr auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    constexpr auto alg = CUSPARSE_SPGEMM_DEFAULT;
    constexpr cudaDataType dt = cuda::data_type<T>();
    const auto h = h_.get();
    // The last run's state lives until now: its copy may run after launch() returns.
    run_.reset();
    SpgemmRun& r = run_.emplace();
    MM_CUDA(cusparseCreateCsr(&r.c, p_.a->rows, p_.b->cols, 0, nullptr, nullptr, nullptr,
                              index_type<I>(), index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, dt));
    std::size_t s1 = 0, s2 = 0;
    MM_CUDA(cusparseSpGEMM_workEstimation(h, op, op, alpha_.ptr(), a_.desc, b_.desc, beta_.ptr(),
                                          r.c, dt, alg, r.d, &s1, nullptr));
    grow(work1_, s1);
    MM_CUDA(cusparseSpGEMM_workEstimation(h, op, op, alpha_.ptr(), a_.desc, b_.desc, beta_.ptr(),
                                          r.c, dt, alg, r.d, &s1, work1_.get()));
    MM_CUDA(cusparseSpGEMM_compute(h, op, op, alpha_.ptr(), a_.desc, b_.desc, beta_.ptr(), r.c, dt,
                                   alg, r.d, &s2, nullptr));
    grow(work2_, s2);
    MM_CUDA(cusparseSpGEMM_compute(h, op, op, alpha_.ptr(), a_.desc, b_.desc, beta_.ptr(), r.c, dt,
                                   alg, r.d, &s2, work2_.get()));
    std::int64_t rows = 0, cols = 0;
    MM_CUDA(cusparseSpMatGetSize(r.c, &rows, &cols, &nnz_));
    if (ci_.size() < static_cast<std::size_t>(nnz_)) {
      ci_ = cuda::Buffer<I>(static_cast<std::size_t>(nnz_));
      cv_ = cuda::Buffer<T>(static_cast<std::size_t>(nnz_));
    }
    MM_CUDA(cusparseCsrSetPointers(r.c, cp_.get(), ci_.get(), cv_.get()));
    MM_CUDA(cusparseSpGEMM_copy(h, op, op, alpha_.ptr(), a_.desc, b_.desc, beta_.ptr(), r.c, dt,
                                alg, r.d));
  }

 private:
  bool empty() const {
    return p_.a->rows == 0 || p_.a->cols == 0 || p_.b->cols == 0 || p_.a->nnz() == 0 ||
           p_.b->nnz() == 0;
  }

  SpgemmProblem<I, T> p_;
  cuda::Scalar<T> alpha_, beta_;
  cuda::Cusparse h_;
  CsrOnDevice<I, T> a_, b_;
  cuda::Buffer<I> cp_, ci_;
  cuda::Buffer<T> cv_;
  cuda::Buffer<char> work1_, work2_;
  std::optional<SpgemmRun> run_;
  std::int64_t nnz_ = 0;
};

// C = alpha * op(S) * D by cusparseSpMM, D and C dense with the given shapes and orders.
// SpMM: S = A, D = B, C row-major. DSMM: op(S) = B^T, D = A^T and C^T column-major (the same
// memory as A and C row-major).
template <class I, class T>
class CusparseSpmm final : public cuda::CudaRunner {
 public:
  struct Shape {
    const Csr<I, T>* s;
    const Dense<T>* d;
    Dense<T>* c;
    cusparseOperation_t op;
    cusparseOrder_t order;
    std::int64_t d_rows, d_cols, c_rows, c_cols;  // as cuSPARSE sees them
  };
  CusparseSpmm(const Shape& sh, T alpha) : sh_(sh), alpha_{alpha}, beta_{T{}} {}
  ~CusparseSpmm() override {
    if (d_desc_) cusparseDestroyDnMat(d_desc_);
    if (c_desc_) cusparseDestroyDnMat(c_desc_);
  }

  void upload() override {
    d_ = cuda::Buffer<T>(sh_.d->data.data(), sh_.d->data.size());
    c_ = cuda::Buffer<T>(std::max<std::size_t>(sh_.c->data.size(), 1));
    c_.fill_bytes(0);  // an empty S leaves C zero without a call
    if (sh_.c->data.empty() || sh_.s->nnz() == 0) return;
    s_.upload(*sh_.s);
    const bool row = sh_.order == CUSPARSE_ORDER_ROW;
    constexpr cudaDataType dt = cuda::data_type<T>();
    MM_CUDA(cusparseCreateDnMat(&d_desc_, sh_.d_rows, sh_.d_cols, row ? sh_.d_cols : sh_.d_rows,
                                d_.get(), dt, sh_.order));
    MM_CUDA(cusparseCreateDnMat(&c_desc_, sh_.c_rows, sh_.c_cols, row ? sh_.c_cols : sh_.c_rows,
                                c_.get(), dt, sh_.order));
    std::size_t bytes = 0;
    MM_CUDA(cusparseSpMM_bufferSize(h_.get(), sh_.op, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    alpha_.ptr(), s_.desc, d_desc_, beta_.ptr(), c_desc_, dt,
                                    CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
    work_ = cuda::Buffer<char>(std::max<std::size_t>(bytes, 1));
  }
  void download() override { c_.download(sh_.c->data.data(), sh_.c->data.size()); }

 protected:
  void launch() override {
    if (!c_desc_) return;
    MM_CUDA(cusparseSpMM(h_.get(), sh_.op, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_.ptr(), s_.desc,
                         d_desc_, beta_.ptr(), c_desc_, cuda::data_type<T>(),
                         CUSPARSE_SPMM_ALG_DEFAULT, work_.get()));
  }

 private:
  Shape sh_;
  cuda::Scalar<T> alpha_, beta_;
  cuda::Cusparse h_;
  CsrOnDevice<I, T> s_;
  cuda::Buffer<T> d_, c_;
  cuda::Buffer<char> work_;
  cusparseDnMatDescr_t d_desc_{}, c_desc_{};
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_spgemm_cusparse(const SpgemmProblem<I, T>& p) {
  check_inner(p.a->rows, p.a->cols, p.b->rows, p.b->cols);  // before the runner needs a GPU
  if constexpr (sizeof(I) != 4) {
    throw InputError("cuSPARSE SpGEMM takes 32-bit indices; use --impl cuda-gustavson");
  } else {
    return std::make_unique<CusparseSpgemm<I, T>>(p);
  }
}

template <class I, class T>
std::unique_ptr<Runner> make_spmm_cusparse(const SpmmProblem<I, T>& p) {
  check_inner(p.a->rows, p.a->cols, p.b->rows, p.b->cols);
  const std::int64_t m = p.a->rows, k = p.a->cols, n = p.b->cols;
  using R = CusparseSpmm<I, T>;
  return std::make_unique<R>(typename R::Shape{p.a, p.b, p.c, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_ORDER_ROW, k, n, m, n},
                             p.alpha);
}

template <class I, class T>
std::unique_ptr<Runner> make_dsmm_cusparse(const DsmmProblem<I, T>& p) {
  check_inner(p.a->rows, p.a->cols, p.b->rows, p.b->cols);
  const std::int64_t m = p.a->rows, k = p.a->cols, n = p.b->cols;
  using R = CusparseSpmm<I, T>;
  // C^T (n x m) = B^T (n x k) * A^T (k x m), the dense ones column-major.
  return std::make_unique<R>(typename R::Shape{p.b, p.a, p.c, CUSPARSE_OPERATION_TRANSPOSE,
                                               CUSPARSE_ORDER_COL, k, m, n, m},
                             p.alpha);
}

#define MM_SPGEMM_CUSPARSE(I, T)                                                           \
  template std::unique_ptr<Runner> make_spgemm_cusparse<I, T>(const SpgemmProblem<I, T>&); \
  template std::unique_ptr<Runner> make_spmm_cusparse<I, T>(const SpmmProblem<I, T>&);     \
  template std::unique_ptr<Runner> make_dsmm_cusparse<I, T>(const DsmmProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_SPGEMM_CUSPARSE)

}  // namespace mm
