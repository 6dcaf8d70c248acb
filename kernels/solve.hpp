// Linear solvers A X = B (B n x k): dense LU and Gaussian elimination, UMFPACK, and the
// Krylov methods CG, BiCGSTAB and restarted GMRES: declarations for every backend.
//
// Work formulas (the record's flops; bytes are the matrix read once per pass plus vectors):
//   lu:        2/3 n^3 + 2 n^2 k               (x4 complex)
//   gauss:     2/3 n^3 + 2 n^2 k               (no pivoting; same count)
//   umfpack:   UMFPACK's own count of the factorization (Info[UMFPACK_FLOPS]) + 4 nnz(LU) k
//   cg:        per iteration 2 nnz + 10 n      (+ n with Jacobi)
//   bicgstab:  per iteration 4 nnz + 20 n      (+ 2n with Jacobi)
//   gmres:     per inner step 2 nnz + 4 n (j+1) + 6 n for Arnoldi step j (+ n with Jacobi);
//              classical Gram-Schmidt twice (IterOptions::orth, the distributed default)
//              projects twice: 2 nnz + 8 n (j+1) + 6 n
// Iterative counts are summed over the iterations actually run (x4 for complex values).
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "impl.hpp"
#include "lu.hpp"
#include "mm/matrix.hpp"

namespace mm {

enum class SolveMethod { lu, gauss, umfpack, cg, bicgstab, gmres };
const char* method_name(SolveMethod m);
// Throws UsageError for an unknown name.
SolveMethod parse_method(const std::string& name);
inline bool is_iterative(SolveMethod m) {
  return m == SolveMethod::cg || m == SolveMethod::bicgstab || m == SolveMethod::gmres;
}
// The methods that read A dense (SolveProblem::dense); the others read the CSR only.
inline bool is_dense(SolveMethod m) {
  return m == SolveMethod::lu || m == SolveMethod::gauss;
}

// GMRES's orthogonalization of each new Krylov vector against the basis. mgs: modified
// Gram-Schmidt, j+2 dot products in sequence at step j (each after the previous projection):
// every backend's algorithm in one process. cgs2: classical Gram-Schmidt twice ("twice is
// enough": orthogonal to working precision), the same vectors in exact arithmetic with all
// dot products of a pass in one batch (KrylovOps::dots), so two reductions a step: what ranks
// use, where every reduction is a synchronisation of all of them.
enum class Orthogonalization { mgs, cgs2 };

struct IterOptions {
  double tol = 1e-8;  // stop at ||b - Ax|| <= tol ||b||
  std::int64_t max_iter = 1000;
  int restart = 30;     // GMRES inner steps per cycle
  bool jacobi = false;  // diagonal preconditioner (right-preconditioned for BiCGSTAB, GMRES)
  Orthogonalization orth = Orthogonalization::mgs;  // GMRES; CPU drivers only
  // CUDA: the host reads the device's state (stop flag, iteration count) every this many
  // iterations (GMRES: inner steps). The device decides each iteration itself, so counts are
  // exact whatever the value; a read costs a sync (~10-20 us of idle GPU), so 20 keeps it
  // near 1% on large systems, and at most 19 empty iterations are queued past the end.
  int check_every = 20;
};

// What a solve reports, over all right-hand-side columns: the most iterations, the
// worst ||b - Ax|| / ||b|| the method itself measured at its end, whether every column
// met the tolerance, and the flops by the formulas above.
struct SolveReport {
  std::int64_t iterations = 0;
  double relative_residual = 0;
  bool converged = true;
  std::string note;  // e.g. "breakdown (rho = 0)"
  double flops = 0;
};

template <class I, class T>
struct SolveProblem {
  SolveMethod method = SolveMethod::lu;
  const Dense<T>* dense = nullptr;  // lu and gauss
  const Csr<I, T>* csr = nullptr;   // umfpack and the iterative methods
  const Dense<T>* b = nullptr;      // n x k
  Dense<T>* x = nullptr;            // n x k; the result
  IterOptions opt;
  SolveReport* report = nullptr;
  LuTuning lu_tuning{};  // lu's cuda-blocked (mmlu's keys); the other methods take none
  int profile = 0;       // --profile: lu's cuda-blocked, as LuProblem::profile
};

template <class I, class T>
using SolveMake = std::function<std::unique_ptr<Runner>(const SolveProblem<I, T>&)>;

// The implementations of METHOD, best first for each device.
template <class I, class T>
const ImplList<SolveMake<I, T>>& solve_impls(SolveMethod method);

// ---- dense: Gaussian elimination without pivoting, in place on A; B becomes X.
// A zero pivot throws NumericalError naming its column.
template <class T>
void gauss_ref(Dense<T>& a, Dense<T>& b);
template <class T>
void gauss_cpu(Dense<T>& a, Dense<T>& b);

// ---- dense: LAPACK getrf + getrs on A (a copy is factored); B becomes X.
template <class T>
void solve_lapack(const Dense<T>& a, Dense<T>& b);

// ---- sparse direct: UMFPACK (real only; single precision is solved in double). Returns
// the factorization's flop count.
template <class I, class T>
double solve_umfpack(const Csr<I, T>& a, const Dense<T>& b, Dense<T>& x);

// ---- Krylov methods over the vector operations of one backend. A backend whose vectors live
// elsewhere (a GPU rank's: device memory) gives its operations and its vectors; the method
// drivers stay the same.

// A vector of N values where the ops work on them (host memory by default); data() is what the
// ops' functions take. load and store copy N values from and to host memory.
template <class T>
class KrylovVector {
 public:
  virtual ~KrylovVector() = default;
  virtual T* data() = 0;
  virtual void load(const T* host) = 0;
  virtual void store(T* host) const = 0;
};

// Host memory: N zeros in a std::vector.
template <class T>
class HostKrylovVector final : public KrylovVector<T> {
 public:
  explicit HostKrylovVector(std::int64_t n) : v_(static_cast<std::size_t>(n)) {}
  T* data() override { return v_.data(); }
  void load(const T* host) override { std::copy(host, host + v_.size(), v_.begin()); }
  void store(T* host) const override { std::copy(v_.begin(), v_.end(), host); }

 private:
  std::vector<T> v_;
};

template <class T>
class KrylovOps {
 public:
  virtual ~KrylovOps() = default;
  // The drivers' work vectors (N values, zero), where the functions below work on them.
  virtual std::unique_ptr<KrylovVector<T>> vector(std::int64_t n) const {
    return std::make_unique<HostKrylovVector<T>>(n);
  }
  virtual std::int64_t size() const = 0;
  virtual void matvec(const T* x, T* y) = 0;  // y = A x
  virtual T dot(const T* x, const T* y) = 0;  // sum conj(x_i) y_i
  // OUT[i] = dot(X[i], Y[i]) for i < K, as one reduction where that saves something (ranks:
  // one allreduce); here one dot after the other, so the values are dot()'s to the bit.
  virtual void dots(int k, const T* const* x, const T* const* y, T* out) {
    for (int i = 0; i < k; ++i) out[i] = dot(x[i], y[i]);
  }
  virtual void axpby(T a, const T* x, T b, T* y) = 0;  // y = a x + b y
  virtual void precond(const T* r, T* z) = 0;          // z = M^-1 r (a copy when none)
  virtual double nnz() const = 0;                      // for the flop count
};

// Serial: spmv_ref and plain loops.
// The inverted diagonal of square A for the Jacobi preconditioner; a zero diagonal entry is a
// NumericalError naming its row, numbered from ROW_OFFSET + 1 (a rank's block: its first row).
template <class I, class T>
std::vector<T> jacobi_inverse(const Csr<I, T>& a, std::int64_t row_offset = 0);

template <class I, class T>
std::unique_ptr<KrylovOps<T>> krylov_ops_ref(const Csr<I, T>& a, bool jacobi);
// OpenMP: spmv_cpu_csr (rows split by nonzeros) and parallel vector loops.
template <class I, class T>
std::unique_ptr<KrylovOps<T>> krylov_ops_cpu(const Csr<I, T>& a, bool jacobi);

// One right-hand side: x (zero on entry) becomes the solution. Adds its flops and takes
// the worst residual and most iterations into REPORT. B and X are in the ops' memory (as
// their vector() gives).
template <class T>
void krylov_solve(SolveMethod m, KrylovOps<T>& ops, const T* b, T* x, const IterOptions& opt,
                  SolveReport& report);

}  // namespace mm
