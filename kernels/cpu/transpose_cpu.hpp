// The blocked CPU transpose by instruction set: transpose_cpu_blocked takes the best one the
// processor has; tests run every one it has against the reference, benchmarks name theirs.
#pragma once

#include <cstdint>

namespace mm {

// avx512: 64-byte register tiles (AVX-512F, checked at run time); sse2: 16-byte register
// tiles (every x86-64); portable: plain loops over the same tiles, any processor.
enum class TransposeIsa { best, avx512, sse2, portable };

// Whether this processor and build can run ISA (best and portable always can).
bool transpose_isa_available(TransposeIsa isa);
// What best stands for here.
TransposeIsa transpose_best_isa();
const char* transpose_isa_name(TransposeIsa isa);

// transpose_cpu_blocked on the given instruction set (one that is not available is an
// std::invalid_argument). BLOCK: the edge of the square a thread takes at a time, in
// values (0: 64 lines of 64 bytes, e.g. 512 doubles), rounded down to whole register tiles.
template <class T>
void transpose_cpu_blocked_isa(std::int64_t rows, std::int64_t cols, const T* a, T* b,
                               bool conjugate, int threads, std::int64_t block, TransposeIsa isa);

}  // namespace mm
