// Values as raw bits for the CUDA transposes (transpose.cu, transpose_csr.cu): bit-exact moves
// of any value type, conjugation as a sign-bit flip, and the grid size of a grid-stride loop.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace mm::cuda::transpose_bits {

// Values travel as raw bits of their size: bit-exact whatever they hold (NaN payloads, int64
// beyond 2^53), and conjugation is a flip of the imaginary part's sign bit.
template <std::size_t N>
struct bits;
template <>
struct bits<4> {
  using type = unsigned int;
};
template <>
struct bits<8> {
  using type = unsigned long long;
};
template <>
struct bits<16> {
  using type = ulonglong2;  // 16-byte aligned: cudaMalloc'd arrays of 16-byte values are
};
template <class T>
using bits_t = typename bits<sizeof(T)>::type;

constexpr unsigned long long kSign64 = 0x8000000000000000ull;

// complex<float> is 8 bytes with the imaginary part in the high word (little endian);
// complex<double> 16 bytes with it in .y. Real values are never changed.
template <bool Complex, class B>
__device__ __forceinline__ B conj_bits(B v, bool conj) {
  if constexpr (Complex) {
    if (conj) {
      if constexpr (std::is_same_v<B, ulonglong2>)
        v.y ^= kSign64;
      else
        v ^= kSign64;
    }
  }
  return v;
}

// Blocks of PER_BLOCK threads for a grid-stride loop over WORK items (at most 2^20).
inline unsigned blocks_for(std::int64_t work, int per_block) {
  const std::int64_t b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, 1 << 20));
}

}  // namespace mm::cuda::transpose_bits
