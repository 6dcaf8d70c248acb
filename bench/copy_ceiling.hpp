// Copies to measure a memory-bound kernel against: glibc memcpy and a copy that streams
// its stores past the caches, a part a thread, and the last-level cache size that decides
// how many inputs a benchmark takes in turn.
#pragma once

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace mm::bench {

// Bytes of last-level cache the OS reports (0 when it does not say).
inline std::size_t llc_bytes() {
  const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return v > 0 ? static_cast<std::size_t>(v) : 0;
}

// glibc memcpy, a part a thread (as mm::bench::copy_gbps does).
inline void memcpy_copy(const void* src, void* dst, std::size_t bytes, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const std::size_t p = static_cast<std::size_t>(omp_get_thread_num()),
                      q = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t lo = bytes * p / q, hi = bytes * (p + 1) / q;
    std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  }
}

// A copy whose stores stream past the caches, as cpu-blocked's do: the ceiling must not be
// a copy that first reads every destination line for ownership. Each thread fences its own.
inline void stream_copy(const void* src, void* dst, std::size_t bytes, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const std::size_t p = static_cast<std::size_t>(omp_get_thread_num()),
                      q = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t lo = bytes * p / q, hi = bytes * (p + 1) / q;
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
#if defined(__x86_64__)
    // memcpy up to the first 16-byte aligned destination and after the last whole 64 bytes.
    std::size_t k = std::min(hi, lo + (16 - reinterpret_cast<std::uintptr_t>(d + lo) % 16) % 16);
    std::memcpy(d + lo, s + lo, k - lo);
    for (; k + 64 <= hi; k += 64)
      for (int m = 0; m < 64; m += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + k + m),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k + m)));
    std::memcpy(d + k, s + k, hi - k);
    _mm_sfence();
#else
    std::memcpy(d + lo, s + lo, hi - lo);
#endif
  }
}

}  // namespace mm::bench
