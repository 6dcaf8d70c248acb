// The implementations of SpGEMM, SpMM and DSMM by name, best first for each device.
#include "instantiate.hpp"
#include "spgemm.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/spgemm_cuda.hpp"
#endif

namespace mm {

namespace {

// SpGEMM builds C afresh on every run (its size is known only after the symbolic pass).
template <class I, class T, Csr<I, T> (*F)(const Csr<I, T>&, const Csr<I, T>&, T)>
class SpgemmRunner final : public Runner {
 public:
  explicit SpgemmRunner(const SpgemmProblem<I, T>& p) : p_(p) {}
  void run() override { *p_.c = F(*p_.a, *p_.b, p_.alpha); }

 private:
  SpgemmProblem<I, T> p_;
};

// SpMM and DSMM write every element of the dense C on each run.
template <class P,
          void (*F)(decltype(*P{}.a)&, decltype(*P{}.b)&, decltype(*P{}.c)&, decltype(P{}.alpha))>
class DenseOutRunner final : public Runner {
 public:
  explicit DenseOutRunner(const P& p) : p_(p) {}
  void run() override { F(*p_.a, *p_.b, *p_.c, p_.alpha); }

 private:
  P p_;
};

template <class R, class P>
std::function<std::unique_ptr<Runner>(const P&)> make() {
  return [](const P& p) -> std::unique_ptr<Runner> { return std::make_unique<R>(p); };
}

#ifdef MM_HAVE_CUDA
// The GPU ones, best first. cuSPARSE's SpGEMM takes 32-bit indices only, the hand-written
// kernels real values only: each is listed where it runs.
template <class I, class T>
void add_cuda_spgemm(ImplList<SpgemmMake<I, T>>& l) {
  if constexpr (sizeof(I) == 4)
    l.push_back({"cusparse", Device::cuda,
                 "cuSPARSE SpGEMM (workEstimation, compute, copy; 32-bit indices)",
                 [](const SpgemmProblem<I, T>& p) { return make_spgemm_cusparse(p); }});
  if constexpr (!is_complex_v<T>)
    l.push_back({"cuda-gustavson", Device::cuda,
                 "binned rows, shared-memory hash tables (symbolic, numeric), bitonic sort; "
                 "dense accumulator for long rows",
                 [](const SpgemmProblem<I, T>& p) { return make_spgemm_cuda(p); }});
}
template <class I, class T>
void add_cuda_spmm(ImplList<SpmmMake<I, T>>& l) {
  l.push_back({"cusparse", Device::cuda, "cuSPARSE SpMM, row-major B and C",
               [](const SpmmProblem<I, T>& p) { return make_spmm_cusparse(p); }});
  if constexpr (!is_complex_v<T>)
    l.push_back({"cuda-csr", Device::cuda,
                 "lanes of a group per row of A across columns of B (coalesced rows of B, C)",
                 [](const SpmmProblem<I, T>& p) { return make_spmm_cuda(p); }});
}
#endif

}  // namespace

template <class I, class T>
const ImplList<SpgemmMake<I, T>>& spgemm_impls() {
  using P = SpgemmProblem<I, T>;
  static const ImplList<SpgemmMake<I, T>> list = [] {
    ImplList<SpgemmMake<I, T>> l{
        {"cpu-spgemm", Device::cpu,
         "OpenMP row-wise Gustavson, symbolic then numeric pass, sorted columns",
         make<SpgemmRunner<I, T, spgemm_cpu<I, T>>, P>()},
        {"ref", Device::cpu, "serial Gustavson with a dense accumulator",
         make<SpgemmRunner<I, T, spgemm_ref<I, T>>, P>()},
    };
#ifdef MM_HAVE_CUDA
    add_cuda_spgemm(l);
#endif
    return l;
  }();
  return list;
}

template <class I, class T>
const ImplList<SpmmMake<I, T>>& spmm_impls() {
  using P = SpmmProblem<I, T>;
  static const ImplList<SpmmMake<I, T>> list = [] {
    ImplList<SpmmMake<I, T>> l{
        {"cpu", Device::cpu, "OpenMP over rows of A split by nonzeros, rows of B streamed",
         make<DenseOutRunner<P, spmm_cpu<I, T>>, P>()},
        {"ref", Device::cpu, "serial, row of C = sum of a_ik * row k of B",
         make<DenseOutRunner<P, spmm_ref<I, T>>, P>()},
    };
#ifdef MM_HAVE_CUDA
    add_cuda_spmm(l);
#endif
    return l;
  }();
  return list;
}

template <class I, class T>
const ImplList<DsmmMake<I, T>>& dsmm_impls() {
  using P = DsmmProblem<I, T>;
  static const ImplList<DsmmMake<I, T>> list{
      {"cpu", Device::cpu, "OpenMP over rows of A, sparse rows of B scattered",
       make<DenseOutRunner<P, dsmm_cpu<I, T>>, P>()},
      {"ref", Device::cpu, "serial, row of C = sum of a_ik * sparse row k of B",
       make<DenseOutRunner<P, dsmm_ref<I, T>>, P>()},
#ifdef MM_HAVE_CUDA
      {"cusparse", Device::cuda, "cuSPARSE SpMM on the transposes: C^T = B^T A^T",
       [](const P& p) { return make_dsmm_cusparse(p); }},
#endif
  };
  return list;
}

#define MM_SPGEMM_IMPLS(I, T)                                      \
  template const ImplList<SpgemmMake<I, T>>& spgemm_impls<I, T>(); \
  template const ImplList<SpmmMake<I, T>>& spmm_impls<I, T>();     \
  template const ImplList<DsmmMake<I, T>>& dsmm_impls<I, T>();
MM_FOR_INDEX_VALUE_TYPES(MM_SPGEMM_IMPLS)

}  // namespace mm
