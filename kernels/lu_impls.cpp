// The LU implementations by name, best first for each device.
#include <algorithm>

#include "instantiate.hpp"
#include "lu.hpp"

#ifdef MM_HAVE_CUDA
#include "cuda/lu/lu_cuda.hpp"
#endif

namespace mm {

namespace {

// Every runner factors a fresh copy of A, so repeated runs time the same work.
template <class T, void (*Factor)(Dense<T>&, std::int64_t*)>
class LuRunner final : public Runner {
 public:
  explicit LuRunner(const LuProblem<T>& p) : p_(p) {}
  void run() override {
    std::copy(p_.a->data.begin(), p_.a->data.end(), p_.lu->data.begin());
    Factor(*p_.lu, p_.ipiv->data());
  }

 private:
  LuProblem<T> p_;
};

// Block width of cpu-blocked: 128. Measured at n = 2048 on a 2-core Xeon (2026-11-21), 128 and
// 64 swapped places between two runs (0.72 / 0.60x LAPACK dgetrf against 0.20 / 0.65x), and 192
// and 256 trailed (0.44-0.49x).
template <class T>
void blocked(Dense<T>& a, std::int64_t* ipiv) {
  lu_cpu_blocked(a, ipiv, 128);
}

template <class T, void (*Factor)(Dense<T>&, std::int64_t*)>
LuMake<T> make() {
  return [](const LuProblem<T>& p) -> std::unique_ptr<Runner> {
    return std::make_unique<LuRunner<T, Factor>>(p);
  };
}

#ifdef MM_HAVE_CUDA
// The GPU ones, best first: cuSOLVER (measured on an H200, 2026-11-21, cuda-blocked ran at
// 0.64 / 0.74 / 0.87 / 1.00 / 1.16x its speed at n = 1024 / 2048 / 4096 / 8192 / 16384:
// cuSOLVER is ahead below 8192), cuda-blocked, and the per-column kernels (slow by design:
// 0.08-0.19x cuSOLVER).
template <class T>
void add_cuda_impls(ImplList<LuMake<T>>& l) {
  l.push_back({"cusolver", Device::cuda,
               "cuSOLVER Xgetrf between device transposes (row-major <-> column-major)",
               [](const LuProblem<T>& p) { return make_lu_cusolver(p); }});
  l.push_back({"cuda-blocked", Device::cuda,
               "panel leaves on a thread-block cluster (grid for tall ones), cuBLAS TRSM + GEMM, "
               "look-ahead",
               [](const LuProblem<T>& p) { return make_lu_cuda_blocked(p); }});
  l.push_back({"cuda-hybrid", Device::cuda,
               "a kernel per column step: pivot search, swap, scale, rank-1 update",
               [](const LuProblem<T>& p) { return make_lu_cuda_hybrid(p); }});
}
#endif

}  // namespace

template <class T>
const ImplList<LuMake<T>>& lu_impls() {
  static const ImplList<LuMake<T>> list = [] {
    ImplList<LuMake<T>> l;
    l.push_back({"lapack", Device::cpu, "LAPACK getrf (OpenBLAS), via a column-major copy",
                 make<T, lu_lapack<T>>()});
    l.push_back({"cpu-blocked", Device::cpu,
                 "OpenMP blocked, recursive panels, packed AVX-512 trailing update",
                 make<T, blocked<T>>()});
    l.push_back({"ref", Device::cpu, "serial unblocked Doolittle with partial pivoting",
                 make<T, lu_ref<T>>()});
#ifdef MM_HAVE_CUDA
    add_cuda_impls<T>(l);
#endif
    return l;
  }();
  return list;
}

#define MM_LU_IMPLS(T) template const ImplList<LuMake<T>>& lu_impls<T>();
MM_FOR_VALUE_TYPES(MM_LU_IMPLS)

}  // namespace mm
