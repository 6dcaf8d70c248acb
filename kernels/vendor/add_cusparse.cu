// cuSPARSE ?csrgeam2 as sparse + sparse addition (32-bit indices): C = alpha*A + beta*B.
#include <climits>

#include "cuda/add_cuda.hpp"
#include "cuda/cuda_util.cuh"
#include "instantiate.hpp"

namespace mm {

namespace {

class MatDescr {
 public:
  MatDescr() {  // general, zero-based: the defaults
    MM_CUDA(cusparseCreateMatDescr(&d_));
  }
  ~MatDescr() { cusparseDestroyMatDescr(d_); }
  MatDescr(const MatDescr&) = delete;
  MatDescr& operator=(const MatDescr&) = delete;
  cusparseMatDescr_t get() const { return d_; }

 private:
  cusparseMatDescr_t d_{};
};

// The ?csrgeam2 family by value type (the bufferSize query when C's arrays are unused).
template <class T>
cusparseStatus_t geam(bool size_only, cusparseHandle_t h, int m, int n, const T* alpha,
                      const MatDescr& da, int nnza, const T* va, const int* pa, const int* ia,
                      const T* beta, const MatDescr& db, int nnzb, const T* vb, const int* pb,
                      const int* ib, const MatDescr& dc, T* vc, int* pc, int* ic, void* work,
                      std::size_t* bytes) {
  if constexpr (std::is_same_v<T, float>) {
    if (size_only)
      return cusparseScsrgeam2_bufferSizeExt(h, m, n, alpha, da.get(), nnza, va, pa, ia, beta,
                                             db.get(), nnzb, vb, pb, ib, dc.get(), vc, pc, ic,
                                             bytes);
    return cusparseScsrgeam2(h, m, n, alpha, da.get(), nnza, va, pa, ia, beta, db.get(), nnzb, vb,
                             pb, ib, dc.get(), vc, pc, ic, work);
  } else if constexpr (std::is_same_v<T, double>) {
    if (size_only)
      return cusparseDcsrgeam2_bufferSizeExt(h, m, n, alpha, da.get(), nnza, va, pa, ia, beta,
                                             db.get(), nnzb, vb, pb, ib, dc.get(), vc, pc, ic,
                                             bytes);
    return cusparseDcsrgeam2(h, m, n, alpha, da.get(), nnza, va, pa, ia, beta, db.get(), nnzb, vb,
                             pb, ib, dc.get(), vc, pc, ic, work);
  } else {
    using Z =
        std::conditional_t<std::is_same_v<T, std::complex<float>>, cuComplex, cuDoubleComplex>;
    auto z = [](const T* p) { return reinterpret_cast<const Z*>(p); };
    auto* zc = reinterpret_cast<Z*>(vc);
    if constexpr (std::is_same_v<Z, cuComplex>) {
      if (size_only)
        return cusparseCcsrgeam2_bufferSizeExt(h, m, n, z(alpha), da.get(), nnza, z(va), pa, ia,
                                               z(beta), db.get(), nnzb, z(vb), pb, ib, dc.get(), zc,
                                               pc, ic, bytes);
      return cusparseCcsrgeam2(h, m, n, z(alpha), da.get(), nnza, z(va), pa, ia, z(beta), db.get(),
                               nnzb, z(vb), pb, ib, dc.get(), zc, pc, ic, work);
    } else {
      if (size_only)
        return cusparseZcsrgeam2_bufferSizeExt(h, m, n, z(alpha), da.get(), nnza, z(va), pa, ia,
                                               z(beta), db.get(), nnzb, z(vb), pb, ib, dc.get(), zc,
                                               pc, ic, bytes);
      return cusparseZcsrgeam2(h, m, n, z(alpha), da.get(), nnza, z(va), pa, ia, z(beta), db.get(),
                               nnzb, z(vb), pb, ib, dc.get(), zc, pc, ic, work);
    }
  }
}

template <class I, class T>
class CusparseAdd final : public cuda::CudaRunner {
 public:
  explicit CusparseAdd(const AddProblem<I, T>& p) : p_(p) {}

  // Every array holds at least one element: cuSPARSE may refuse null pointers even where
  // it reads nothing. C gets room for nnz(A) + nnz(B) entries, so runs allocate nothing.
  void upload() override {
    const Csr<I, T>&a = *p_.a.sparse, &b = *p_.b.sparse;
    auto up = [](const auto& v, auto& buf) {
      using E = typename std::decay_t<decltype(v)>::value_type;
      buf = cuda::Buffer<E>(std::max<std::size_t>(v.size(), 1));
      buf.upload(v.data(), v.size());
    };
    up(a.ptr, ap_), up(a.idx, ai_), up(a.val, av_);
    up(b.ptr, bp_), up(b.idx, bi_), up(b.val, bv_);
    const auto cap = std::max<std::size_t>(a.idx.size() + b.idx.size(), 1);
    cp_ = cuda::Buffer<I>(a.ptr.size());
    cp_.fill_bytes(0);
    ci_ = cuda::Buffer<I>(cap);
    cv_ = cuda::Buffer<T>(cap);
    ci_.fill_bytes(0xff);  // poison: every entry must be written
    cv_.fill_bytes(0xff);
    if (empty()) return;
    std::size_t bytes = 0;
    MM_CUDA(call(true, &bytes));
    work_ = cuda::Buffer<char>(std::max<std::size_t>(bytes, 1));
  }

  void download() override {
    Csr<I, T>& c = *p_.sparse_out;
    c.rows = p_.a.sparse->rows;
    c.cols = p_.a.sparse->cols;
    c.ptr.resize(static_cast<std::size_t>(c.rows) + 1);
    cp_.download(c.ptr.data(), c.ptr.size());
    c.idx.resize(static_cast<std::size_t>(nnz_c_));
    c.val.resize(static_cast<std::size_t>(nnz_c_));
    ci_.download(c.idx.data(), c.idx.size());
    cv_.download(c.val.data(), c.val.size());
  }

 protected:
  void launch() override {
    if (empty()) return;  // C's row pointers are all zeros from upload()
    const Csr<I, T>&a = *p_.a.sparse, &b = *p_.b.sparse;
    // The pattern pass: C's row pointers and, synchronously (host pointer mode), nnz(C).
    MM_CUDA(cusparseXcsrgeam2Nnz(h_.get(), static_cast<int>(a.rows), static_cast<int>(a.cols),
                                 da_.get(), static_cast<int>(a.nnz()), ap_.get(), ai_.get(),
                                 db_.get(), static_cast<int>(b.nnz()), bp_.get(), bi_.get(),
                                 dc_.get(), cp_.get(), &nnz_c_, work_.get()));
    MM_CUDA(call(false, nullptr));
  }

 private:
  bool empty() const {
    const Csr<I, T>&a = *p_.a.sparse, &b = *p_.b.sparse;
    return a.rows == 0 || a.cols == 0 || a.nnz() + b.nnz() == 0;
  }
  cusparseStatus_t call(bool size_only, std::size_t* bytes) {
    const Csr<I, T>&a = *p_.a.sparse, &b = *p_.b.sparse;
    const cuda::Scalar<T> al{p_.alpha}, be{p_.beta};
    return geam<T>(size_only, h_.get(), static_cast<int>(a.rows), static_cast<int>(a.cols),
                   al.ptr(), da_, static_cast<int>(a.nnz()), av_.get(), ap_.get(), ai_.get(),
                   be.ptr(), db_, static_cast<int>(b.nnz()), bv_.get(), bp_.get(), bi_.get(), dc_,
                   cv_.get(), cp_.get(), ci_.get(), work_.get(), bytes);
  }

  AddProblem<I, T> p_;
  cuda::Cusparse h_;
  MatDescr da_, db_, dc_;
  cuda::Buffer<I> ap_, ai_, bp_, bi_, cp_, ci_;
  cuda::Buffer<T> av_, bv_, cv_;
  cuda::Buffer<char> work_;
  int nnz_c_ = 0;
};

}  // namespace

template <class I, class T>
std::unique_ptr<Runner> make_add_cusparse(const AddProblem<I, T>& p) {
  if constexpr (sizeof(I) != 4) {
    throw InputError("cusparse's csrgeam2 takes 32-bit indices; use --impl cuda-sparse");
  } else {
    if (p.a.sparse->nnz() + p.b.sparse->nnz() > INT_MAX)
      throw InputError("nnz(A) + nnz(B) too large for cuSPARSE's 32-bit sizes; use cuda-sparse");
    return std::make_unique<CusparseAdd<I, T>>(p);
  }
}

#define MM_ADD_CUSPARSE(I, T) \
  template std::unique_ptr<Runner> make_add_cusparse<I, T>(const AddProblem<I, T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_ADD_CUSPARSE)

}  // namespace mm
