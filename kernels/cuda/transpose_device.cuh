// The device-pointer transpose of kernels/cuda/transpose.cu, for other CUDA code that needs a
// row-major array transposed in device memory (cuSOLVER's column-major operands, say).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace mm::cuda {

// OUT (COLS x ROWS) = IN (ROWS x COLS), both row-major in device memory, of VALUE_SIZE-byte
// values (4, 8 or 16), bit for bit, queued on stream ST. The kernel is mmtranspose's `tiled`:
// 4-byte values with both sides even as 2x2 blocks through a swizzled tile of pairs, every
// other case through 32x32 shared tiles.
void transpose_device(const void* in, void* out, std::int64_t rows, std::int64_t cols,
                      std::size_t value_size, cudaStream_t st);

}  // namespace mm::cuda
