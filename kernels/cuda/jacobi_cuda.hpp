// Host-side declarations of the CUDA Jacobi runners (defined in kernels/cuda/jacobi.cu),
// registered in kernels/jacobi_impls.cpp.
#pragma once

#include <memory>

#include "jacobi.hpp"

namespace mm {

// naive: a thread per point, consecutive threads along the slowest index (uncoalesced on
// purpose); coalesced: threads along x, 2D tiles over (x, y) marching along z; norm: the
// coalesced sweep with the change reduced by block partials and a final kernel.
enum class StencilCudaKernel { naive, coalesced, norm };

template <class T>
std::unique_ptr<Runner> make_stencil_cuda(const StencilProblem<T>& p, StencilCudaKernel k);

// The fused system sweep: a group of lanes per row, the change reduced in the same kernel.
template <class I, class T>
std::unique_ptr<Runner> make_jacobi_cuda(const JacobiProblem<I, T>& p);

}  // namespace mm
