// Reads a Matrix Market file with an installed mmtools, forms A*1 with the reference and the
// OpenMP SpMV, and prints "VERSION CUDA rows cols nnz sum(A*1)"; exit 1 if the two differ.
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "mm/cli.hpp"
#include "mm/matrix.hpp"
#include "spmv.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const auto a = mm::coo_to_csr(mm::to_coo<int, double>(mm::read_mtx(argv[1])));
  std::vector<double> x(a.cols, 1.0), y(a.rows), z(a.rows);
  mm::spmv_ref(a, x.data(), y.data(), 1.0, 0.0);
  const double* y0 = nullptr;  // read only when beta != 0
  mm::spmv_cpu_csr(a, mm::spmv_split(a, 2), x.data(), y0, z.data(), 1.0, 0.0);
  const double sy = std::accumulate(y.begin(), y.end(), 0.0);
  const double sz = std::accumulate(z.begin(), z.end(), 0.0);
#ifdef MM_HAVE_CUDA
  const char* cuda = "cuda";
#else
  const char* cuda = "cpu";
#endif
  std::printf("%s %s %lld %lld %lld %.17g\n", mm::version_string().c_str(), cuda,
              static_cast<long long>(a.rows), static_cast<long long>(a.cols),
              static_cast<long long>(a.nnz()), sy);
  return std::abs(sy - sz) <= 1e-12 * std::abs(sy) ? 0 : 1;
}
