// GPU presence for the tests: CUDA implementations run only where a GPU exists, and the
// GPU tests skip with the reason printed everywhere else (never a silent pass).
#pragma once

#include <gtest/gtest.h>

#include "device.hpp"

namespace mm::test {

inline const GpuInfo& gpu() {
  static const GpuInfo g = cuda_devices();
  return g;
}

// Whether an implementation on device D can run here.
inline bool runnable(Device d) {
  return d == Device::cpu || gpu().count > 0;
}

}  // namespace mm::test

// First statement of a GPU test.
#define MM_REQUIRE_GPU()                                                                      \
  do {                                                                                        \
    if (::mm::test::gpu().count == 0) GTEST_SKIP() << "no GPU: " << ::mm::test::gpu().reason; \
  } while (0)

// First statement of a test of the CUDA implementations' registry entries, which needs no GPU
// but exists only in a build with the CUDA backend.
#ifdef MM_HAVE_CUDA
#define MM_REQUIRE_CUDA_BUILD() \
  do {                          \
  } while (0)
#else
#define MM_REQUIRE_CUDA_BUILD() \
  GTEST_SKIP() << "built without CUDA (MM_WITH_CUDA=OFF): no CUDA implementations to check"
#endif
