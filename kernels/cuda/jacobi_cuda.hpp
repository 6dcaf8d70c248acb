// Host-side declarations of the CUDA Jacobi runners (defined in kernels/cuda/jacobi.cu),
// registered in kernels/jacobi_impls.cpp.
#pragma once

#include <memory>

#include "jacobi.hpp"

namespace mm {

// naive: a thread per point, consecutive threads along the slowest index (uncoalesced on
// purpose); coalesced: threads along x, 2D tiles over (x, y) marching along z; partials: the
// coalesced sweep with the change reduced by block partials and a final kernel; march: 8- or
// 16-byte vectors along x, warps side by side over whole rows, 1 row of y per thread (ry2: 2,
// ry4: 4; col: 2 rows, one warp along x and 8 along y), three planes in registers marching
// along z, the change reduced by the grid's last block into pinned host memory
// (kernels/cuda/stencil_march.cuh).
enum class StencilCudaKernel { naive, coalesced, partials, march, march_ry2, march_ry4, march_col };

template <class T>
std::unique_ptr<Runner> make_stencil_cuda(const StencilProblem<T>& p, StencilCudaKernel k);

// The fused system sweep: a group of lanes per row, the change reduced in the same kernel.
template <class I, class T>
std::unique_ptr<Runner> make_jacobi_cuda(const JacobiProblem<I, T>& p);

}  // namespace mm
