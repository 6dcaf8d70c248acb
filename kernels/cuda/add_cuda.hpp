// Host-side declarations of the CUDA addition runners (defined in kernels/cuda/add.cu,
// kernels/vendor/add_cublas.cu and kernels/vendor/add_cusparse.cu), registered in
// kernels/add_impls.cpp.
#pragma once

#include <cstdint>
#include <memory>

#include "add.hpp"

namespace mm {

// seq: one thread does every element (the seed's sequential kernel); naive: a thread per
// element on a 2D grid of 16x16 blocks; shared: the same with A and B staged through
// shared-memory tiles; vec: a grid-stride loop of 16-byte loads (dense+dense, and
// dense+sparse as C = ds*D then ss*S scattered by rows); sparse: sparse+sparse in two passes.
enum class AddCudaKernel { seq, naive, shared, vec, sparse };

// cuda-seq refuses more elements than this (one GPU thread would take seconds).
inline constexpr std::int64_t add_cuda_seq_max = std::int64_t{1} << 20;

template <class I, class T>
std::unique_ptr<Runner> make_add_cuda(const AddProblem<I, T>& p, AddCudaKernel k);
// cuBLAS ?geam: C = alpha*A + beta*B, dense.
template <class I, class T>
std::unique_ptr<Runner> make_add_cublas(const AddProblem<I, T>& p);
// cuSPARSE ?csrgeam2: sparse+sparse, 32-bit indices.
template <class I, class T>
std::unique_ptr<Runner> make_add_cusparse(const AddProblem<I, T>& p);

}  // namespace mm
