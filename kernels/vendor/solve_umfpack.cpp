// Sparse direct solve by SuiteSparse UMFPACK (umfpack_dl_*: 64-bit indices, real double).
#include <umfpack.h>

#include "instantiate.hpp"
#include "solve.hpp"

namespace mm {

namespace {

// The symbolic and numeric objects, freed however the solve ends.
struct Symbolic {
  void* p = nullptr;
  ~Symbolic() { umfpack_dl_free_symbolic(&p); }
};
struct Numeric {
  void* p = nullptr;
  ~Numeric() { umfpack_dl_free_numeric(&p); }
};

void check(SuiteSparse_long status, const char* call) {
  if (status == UMFPACK_OK) return;
  if (status == UMFPACK_WARNING_singular_matrix)
    throw NumericalError(std::string("singular matrix (UMFPACK ") + call + ")");
  if (status == UMFPACK_ERROR_out_of_memory)
    throw DeviceError(std::string("UMFPACK ") + call + ": out of memory");
  throw Error(ExitCode::check_failed,
              std::string("UMFPACK ") + call + " failed, status " + std::to_string(status));
}

}  // namespace

template <class I, class T>
double solve_umfpack(const Csr<I, T>& a, const Dense<T>& b, Dense<T>& x) {
  if constexpr (is_complex_v<T>) {
    throw InputError("umfpack: real matrices only here; use --method lu or gmres for complex ones");
  } else {
    const std::int64_t n = a.rows, k = b.cols;
    // CSR of A is CSC of A^T: UMFPACK factors A^T and solves with its transpose (UMFPACK_At).
    std::vector<SuiteSparse_long> ptr(a.ptr.begin(), a.ptr.end()), idx(a.idx.begin(), a.idx.end());
    std::vector<double> val(a.val.begin(), a.val.end());
    double info[UMFPACK_INFO];
    Symbolic sym;
    Numeric num;
    check(umfpack_dl_symbolic(n, n, ptr.data(), idx.data(), val.data(), &sym.p, nullptr, info),
          "symbolic");
    check(umfpack_dl_numeric(ptr.data(), idx.data(), val.data(), sym.p, &num.p, nullptr, info),
          "numeric");
    const double flops = info[UMFPACK_FLOPS] > 0 ? info[UMFPACK_FLOPS] : 0;
    const double lu_nnz = info[UMFPACK_LNZ] + info[UMFPACK_UNZ];
    std::vector<double> bc(static_cast<std::size_t>(n)), xc(static_cast<std::size_t>(n));
    for (std::int64_t c = 0; c < k; ++c) {
      for (std::int64_t i = 0; i < n; ++i) bc[i] = static_cast<double>(b(i, c));
      check(umfpack_dl_solve(UMFPACK_At, ptr.data(), idx.data(), val.data(), xc.data(), bc.data(),
                             num.p, nullptr, info),
            "solve");
      for (std::int64_t i = 0; i < n; ++i) x(i, c) = static_cast<T>(xc[i]);
    }
    return flops + 4 * lu_nnz * static_cast<double>(k);
  }
}

#define MM_SOLVE_UMFPACK(I, T) \
  template double solve_umfpack<I, T>(const Csr<I, T>&, const Dense<T>&, Dense<T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_SOLVE_UMFPACK)

}  // namespace mm
