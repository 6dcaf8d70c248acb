// Host-side declarations of the CUDA transpose runners (defined in kernels/cuda/transpose.cu,
// kernels/vendor/transpose_cublas.cu and kernels/vendor/transpose_cusparse.cu), registered in
// kernels/transpose_impls.cpp.
#pragma once

#include <cstdint>
#include <memory>

#include "transpose.hpp"

namespace mm {

enum class TransposeCudaKernel { naive, tiled, tiled32, tiled64 };

// Out of place: a thread per element (naive), 32x32 shared tiles of single values (tiled32),
// 64x64 tiles moved as 8- or 16-byte pairs of 4- or 8-byte values (tiled64, where rows and
// columns are both even, else as tiled32); tiled: float with even sides as 2x2 blocks
// transposed in registers through a swizzled tile of pairs, every other type as tiled32.
template <class T>
std::unique_ptr<Runner> make_transpose_cuda(const DenseTransposeProblem<T>& p,
                                            TransposeCudaKernel k);
// Square in place: mirrored tile pairs swapped through shared memory.
template <class T>
std::unique_ptr<Runner> make_transpose_cuda_inplace(const DenseTransposeProblem<T>& p);
// CSR -> CSR of the transpose: a stable radix sort of the entries by column carrying their
// rows and positions, then a gather of the values (sort); or every entry scattered to its column
// by an atomic cursor, then each column sorted by row (scatter).
enum class CsrTransposeCudaKernel { sort, scatter };
template <class I, class T>
std::unique_ptr<Runner> make_transpose_cuda_csr2csc(const CsrTransposeProblem<I, T>& p,
                                                    CsrTransposeCudaKernel k);

// Conjugates N complex values in device memory where they lie by flipping the sign bit of
// each imaginary part (VALUE_SIZE 8: complex<float>, 16: complex<double>): exact for any
// value, NaN included, where arithmetic negation on the GPU may rewrite a NaN.
void cuda_conjugate_bits(void* values, std::int64_t n, std::size_t value_size);

// cuBLAS ?geam with op(A) = A^T or A^H (float, double and complex values only: it multiplies
// by alpha = 1, so NaN payloads and complex infinities need not come back bit for bit).
template <class T>
std::unique_ptr<Runner> make_transpose_cublas(const DenseTransposeProblem<T>& p);
// cuSPARSE Csr2cscEx2 (32-bit indices only), conjugated afterwards by a sign-bit flip.
template <class I, class T>
std::unique_ptr<Runner> make_transpose_cusparse(const CsrTransposeProblem<I, T>& p);

}  // namespace mm
