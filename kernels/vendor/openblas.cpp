// OpenBLAS's thread count, matched to the tool's --threads (see openblas.hpp).
#include "vendor/openblas.hpp"

#include <cblas.h>
#include <omp.h>

namespace mm {

void set_openblas_threads(int threads) {
  openblas_set_num_threads(threads > 0 ? threads : omp_get_max_threads());
}

}  // namespace mm
