// Dense matrix product C = alpha*A*B + beta*C (row-major): declarations for every backend.
//
// Work formula (the record's flops and bytes): flops = 2*m*n*k (8*m*n*k for complex);
// bytes = (m*k + k*n + m*n)*sizeof(T): A and B read once, C written once (the least
// traffic any implementation needs; blocked ones re-read panels from cache, not memory).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "impl.hpp"
#include "mm/matrix.hpp"
#include "mm/tuning.hpp"

namespace mm {

// The micro-kernel families of gemm_cpu_blocked. `best` is the widest the running CPU
// supports (checked at run time: the binary itself is built for plain x86-64).
enum class GemmKernel { best, portable, avx2, avx512 };

// cpu-blocked's tuning: which micro-kernel runs its register tile (`--tune microkernel=...`).
// The ISA variants were once implementations of their own (blocked-avx512, -avx2, -sse2),
// but each is cpu-blocked with one micro-kernel forced: one name, a recorded tuning value.
struct GemmTuning {
  GemmKernel microkernel = GemmKernel::best;  // best: the widest this CPU runs

  static const TuneKeys& keys();
  static GemmTuning from(const TuneArgs& args);
};

// What a GEMM implementation is given: C (already sized m x n) = alpha*A*B.
template <class T>
struct GemmProblem {
  const Dense<T>* a = nullptr;
  const Dense<T>* b = nullptr;
  Dense<T>* c = nullptr;
  T alpha = T(1);
  GemmTuning tuning;
};

template <class T>
using GemmMake = std::function<std::unique_ptr<Runner>(const GemmProblem<T>&)>;

// Every implementation, best first for its device.
template <class T>
const ImplList<GemmMake<T>>& gemm_impls();

inline double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k, bool complex) {
  return (complex ? 8.0 : 2.0) * static_cast<double>(m) * static_cast<double>(n) *
         static_cast<double>(k);
}
inline double gemm_bytes(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t value_size) {
  return static_cast<double>(m * k + k * n + m * n) * static_cast<double>(value_size);
}

// Throws InputError naming both shapes unless A is m x k, B is k x n and C is m x n.
template <class T>
void gemm_check_shapes(const Dense<T>& a, const Dense<T>& b, const Dense<T>& c);

// Serial reference: the naive i-j-k triple loop.
template <class T>
void gemm_ref(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta);

// OpenMP over rows, i-k-j order so the inner loop runs along rows of B and C (vectorizes);
// no blocking: the simple parallel variant the blocked one is measured against.
template <class T>
void gemm_cpu_rows(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta);

// Whether the running CPU can execute kernel K (portable and best: always).
bool gemm_kernel_supported(GemmKernel k);
// K resolved (best -> the widest supported) and named, e.g. "avx512 8x24" for T.
template <class T>
std::string gemm_kernel_name(GemmKernel k);

// Cache and register blocked: each K panel of B (KC rows) packed once and shared by all
// threads, A into MC x KC blocks per thread, an MR x NR register tile accumulated over each
// packed K panel; OpenMP tasks of MC rows by NC columns. Complex values use the portable
// kernel. The LU's trailing update runs on the same code (cpu/gemm_packed.hpp).
// Throws DeviceError when K is not supported by this CPU.
template <class T>
void gemm_cpu_blocked(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta,
                      GemmKernel k = GemmKernel::best);

// OpenBLAS cblas_?gemm (its own threads; the tool sets their number: vendor/openblas.hpp).
template <class T>
void gemm_openblas(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta);

}  // namespace mm
