// The matrix addition implementations by name, best first for each device, with the
// operand kinds each one handles.
#include <stdexcept>

#include "add.hpp"
#include "instantiate.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/add_cuda.hpp"
#endif

namespace mm {

std::string add_kinds_text(unsigned kinds) {
  std::string s;
  auto put = [&](unsigned bit, const char* text) {
    if (kinds & bit) s += (s.empty() ? "" : ", ") + std::string(text);
  };
  put(add_dense, "dense+dense");
  put(add_mixed, "dense+sparse");
  put(add_sparse, "sparse+sparse");
  return s;
}

namespace {

// The dense operand of a mixed problem first: C = ds*D + ss*S.
template <class I, class T>
struct Mixed {
  const Dense<T>* d;
  T ds;
  const Csr<I, T>* s;
  T ss;
};
template <class I, class T>
Mixed<I, T> mixed_of(const AddProblem<I, T>& p) {
  if (p.a.dense) return {p.a.dense, p.alpha, p.b.sparse, p.beta};
  return {p.b.dense, p.beta, p.a.sparse, p.alpha};
}

template <class I, class T>
class DenseRefRunner final : public Runner {
 public:
  explicit DenseRefRunner(const AddProblem<I, T>& p) : p_(p) {}
  void run() override {
    if (add_kind(p_) == add_dense)
      return add_dense_ref(*p_.a.dense, *p_.b.dense, *p_.dense_out, p_.alpha, p_.beta);
    const auto m = mixed_of(p_);
    add_mixed_ref(*m.d, m.ds, *m.s, m.ss, *p_.dense_out);
  }

 private:
  AddProblem<I, T> p_;
};

template <class I, class T>
class DenseCpuRunner final : public Runner {
 public:
  explicit DenseCpuRunner(const AddProblem<I, T>& p) : p_(p) {}
  void run() override {
    if (add_kind(p_) == add_dense)
      return add_dense_cpu(*p_.a.dense, *p_.b.dense, *p_.dense_out, p_.alpha, p_.beta, p_.threads);
    const auto m = mixed_of(p_);
    add_mixed_cpu(*m.d, m.ds, *m.s, m.ss, *p_.dense_out, p_.threads);
  }

 private:
  AddProblem<I, T> p_;
};

template <class I, class T>
class OpenblasRunner final : public Runner {
 public:
  explicit OpenblasRunner(const AddProblem<I, T>& p) : p_(p) {}
  void run() override {
    add_dense_openblas(*p_.a.dense, *p_.b.dense, *p_.dense_out, p_.alpha, p_.beta);
  }

 private:
  AddProblem<I, T> p_;
};

template <class I, class T>
class SparseRefRunner final : public Runner {
 public:
  explicit SparseRefRunner(const AddProblem<I, T>& p) : p_(p) {}
  void run() override {
    add_sparse_ref(*p_.a.sparse, *p_.b.sparse, *p_.sparse_out, p_.alpha, p_.beta);
  }

 private:
  AddProblem<I, T> p_;
};

template <class I, class T>
class SparseCpuRunner final : public Runner {
 public:
  explicit SparseCpuRunner(const AddProblem<I, T>& p) : p_(p) {}
  void run() override {
    add_sparse_cpu(*p_.a.sparse, *p_.b.sparse, *p_.sparse_out, p_.alpha, p_.beta, p_.threads);
  }

 private:
  AddProblem<I, T> p_;
};

// A factory that refuses operands its runner cannot handle (a caller that skipped
// pick_add_impl's check) instead of dereferencing a missing operand.
template <class R, class I, class T>
AddMake<I, T> make(unsigned kinds, std::int64_t min_size = 0, int min_threads = 1) {
  return {kinds, min_size, min_threads,
          [kinds](const AddProblem<I, T>& p) -> std::unique_ptr<Runner> {
            if (!(add_kind(p) & kinds))
              throw std::logic_error("add runner given operands of kind " +
                                     add_kinds_text(add_kind(p)));
            return std::make_unique<R>(p);
          }};
}

template <class I, class T>
Impl<AddMake<I, T>> impl(const char* name, const char* what, AddMake<I, T> m,
                         Device device = Device::cpu) {
  std::string d = "[" + add_kinds_text(m.kinds) + "] " + what;
  if (m.min_size > 0) d += "; default from " + std::to_string(m.min_size) + " elements";
  if (m.min_threads > 1) d += " and " + std::to_string(m.min_threads) + " threads";
  return {name, device, std::move(d), std::move(m)};
}

#ifdef MM_HAVE_CUDA
// A CUDA implementation: the same refusal of operands it does not handle as make().
template <class I, class T>
AddMake<I, T> make_gpu(unsigned kinds,
                       std::function<std::unique_ptr<Runner>(const AddProblem<I, T>&)> fn) {
  return {kinds, 0, 1, [kinds, fn](const AddProblem<I, T>& p) -> std::unique_ptr<Runner> {
            if (!(add_kind(p) & kinds))
              throw std::logic_error("add runner given operands of kind " +
                                     add_kinds_text(add_kind(p)));
            return fn(p);
          }};
}

template <class I, class T>
void add_cuda_impls(ImplList<AddMake<I, T>>& l) {
  auto gpu = [&](const char* name, const char* what, unsigned kinds, auto fn) {
    l.push_back(impl<I, T>(name, what, make_gpu<I, T>(kinds, fn), Device::cuda));
  };
  auto kernel = [](AddCudaKernel k) {
    return [k](const AddProblem<I, T>& p) { return make_add_cuda(p, k); };
  };
  gpu("cuda-vec",
      "grid-stride loop of 16-byte loads; mixed: ds*D the same way, then ss*S a thread per row",
      add_dense | add_mixed, kernel(AddCudaKernel::vec));
  gpu("cublas", "cuBLAS ?geam", add_dense,
      [](const AddProblem<I, T>& p) { return make_add_cublas(p); });
  gpu("cuda-sparse", "a thread per row: union counts, scan (CUB), merge into place", add_sparse,
      kernel(AddCudaKernel::sparse));
  if constexpr (sizeof(I) == 4)  // csrgeam2 has 32-bit indices only
    gpu("cusparse", "cuSPARSE ?csrgeam2 (32-bit indices)", add_sparse,
        [](const AddProblem<I, T>& p) { return make_add_cusparse(p); });
  gpu("cuda-shared", "a thread per element, A and B staged in shared tiles (16x16)", add_dense,
      kernel(AddCudaKernel::shared));
  gpu("cuda-naive", "a thread per element, 16x16 blocks on a 2D grid", add_dense,
      kernel(AddCudaKernel::naive));
  gpu("cuda-seq", "one GPU thread does every element (at most 2^20)", add_dense,
      kernel(AddCudaKernel::seq));
}
#endif

}  // namespace

template <class I, class T>
const ImplList<AddMake<I, T>>& add_impls() {
  static const ImplList<AddMake<I, T>> list = [] {
    ImplList<AddMake<I, T>> l;
    l.push_back(
        impl<I, T>("cpu", "OpenMP, one flat vectorized loop; mixed: rows split, scale then scatter",
                   make<DenseCpuRunner<I, T>, I, T>(add_dense | add_mixed, add_parallel_min_size)));
    l.push_back(impl<I, T>("openblas", "OpenBLAS cblas_?copy of B, then cblas_?geadd",
                           make<OpenblasRunner<I, T>, I, T>(add_dense, add_parallel_min_size)));
    l.push_back(impl<I, T>("ref", "serial reference, plain loops",
                           make<DenseRefRunner<I, T>, I, T>(add_dense | add_mixed)));
    l.push_back(impl<I, T>("cpu-sparse", "OpenMP, rows split by nonzeros: count, prefix sum, fill",
                           make<SparseCpuRunner<I, T>, I, T>(add_sparse, add_parallel_min_size,
                                                             add_sparse_min_threads)));
    l.push_back(impl<I, T>("ref-sparse", "serial reference, merge of sorted rows",
                           make<SparseRefRunner<I, T>, I, T>(add_sparse)));
#ifdef MM_HAVE_CUDA
    add_cuda_impls(l);
#endif
    return l;
  }();
  return list;
}

template <class I, class T>
const Impl<AddMake<I, T>>& pick_add_impl(unsigned kind, std::int64_t size, int threads,
                                         const std::string& name, Device device) {
  const auto& list = add_impls<I, T>();
  if (!name.empty()) {
    const auto& i = pick_impl(list, "add", name, device);
    if (!(i.make.kinds & kind))
      throw InputError("--impl " + name + " handles " + add_kinds_text(i.make.kinds) + ", not " +
                       add_kinds_text(kind) + " (see --list-impls)");
    return i;
  }
  for (const auto& i : list)
    if (i.device == device && !i.experimental() && (i.make.kinds & kind) &&
        size >= i.make.min_size && threads >= i.make.min_threads)
      return i;
  throw DeviceError(std::string("no ") + device_word(device) + " implementation of add for " +
                    add_kinds_text(kind));
}

#define MM_ADD_IMPLS(I, T)                                                             \
  template const ImplList<AddMake<I, T>>& add_impls<I, T>();                           \
  template const Impl<AddMake<I, T>>& pick_add_impl<I, T>(unsigned, std::int64_t, int, \
                                                          const std::string&, Device);
MM_FOR_INDEX_VALUE_TYPES(MM_ADD_IMPLS)

}  // namespace mm
