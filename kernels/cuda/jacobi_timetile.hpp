// Host-side declaration of the time-tiled CUDA heated-room runner (cuda-timetile, defined in
// kernels/cuda/jacobi_timetile.cu), registered in kernels/jacobi_impls.cpp.
#pragma once

#include <memory>

#include "jacobi.hpp"

namespace mm {

// 3D: passes of up to P.time_tile sweeps through memory (stencil_timetile.cuh), the grid bit
// for bit cuda-norm's; 2D: cuda-norm's sweep (no time tiling there).
template <class T>
std::unique_ptr<Runner> make_stencil_timetile_cuda(const StencilProblem<T>& p);

}  // namespace mm
