// Host-side declarations of the CUDA SpMV runners (defined in kernels/cuda/spmv.cu and
// kernels/vendor/spmv_cusparse.cu), registered in kernels/spmv_impls.cpp.
#pragma once

#include <memory>

#include "spmv.hpp"

namespace mm {

enum class SpmvCudaKernel { scalar, vector, adaptive, vector_k, merge, csr_stream };

// T: the tuning keys of vector_k (lanes, l2), merge (items, l2), adaptive and csr_stream (l2);
// the others take none.
template <class I, class T>
std::unique_ptr<Runner> make_spmv_cuda(const SpmvProblem<I, T>& p, SpmvCudaKernel k,
                                       const SpmvTuning& t = {});
template <class I, class T>
std::unique_ptr<Runner> make_spmv_cusparse(const SpmvProblem<I, T>& p);

}  // namespace mm
