// Host-side declarations of the CUDA SpMV runners (defined in kernels/cuda/spmv.cu and
// kernels/vendor/spmv_cusparse.cu), registered in kernels/spmv_impls.cpp.
#pragma once

#include <memory>

#include "spmv.hpp"

namespace mm {

enum class SpmvCudaKernel { scalar, vector, adaptive };

template <class I, class T>
std::unique_ptr<Runner> make_spmv_cuda(const SpmvProblem<I, T>& p, SpmvCudaKernel k);
template <class I, class T>
std::unique_ptr<Runner> make_spmv_cusparse(const SpmvProblem<I, T>& p);

}  // namespace mm
