// Host-side declarations of mmsolve's CUDA runners (gauss.cu and krylov.cu beside this
// file), registered in kernels/solve_impls.cpp.
#pragma once

#include <memory>

#include "solve.hpp"

namespace mm {

// gauss: elimination without pivoting; a zero pivot throws as gauss_ref does. Not BLOCKED: a
// kernel per step over the trailing matrix and the right-hand sides, then back substitution
// (the thesis's method). BLOCKED: 64-column panels by our kernels, the trailing update and
// the two triangular solves on B by cuBLAS (TRSM, GEMM).
template <class I, class T>
std::unique_ptr<Runner> make_gauss_cuda(const SolveProblem<I, T>& p, bool blocked);

// cg, bicgstab, gmres (P.method): every vector on the GPU, the scalars computed there, the
// state read back every P.opt.check_every iterations. A zero diagonal with Jacobi throws
// NumericalError here, as the CPU implementations do when made.
template <class I, class T>
std::unique_ptr<Runner> make_krylov_cuda(const SolveProblem<I, T>& p);

}  // namespace mm
