// X-macros for explicit instantiation over the value and index types every kernel supports.
#pragma once

#include <complex>
#include <cstdint>

#define MM_FOR_VALUE_TYPES(X) \
  X(float)                    \
  X(double)                   \
  X(std::complex<float>)      \
  X(std::complex<double>)

#define MM_FOR_INDEX_VALUE_TYPES(X)     \
  X(std::int32_t, float)                \
  X(std::int32_t, double)               \
  X(std::int32_t, std::complex<float>)  \
  X(std::int32_t, std::complex<double>) \
  X(std::int64_t, float)                \
  X(std::int64_t, double)               \
  X(std::int64_t, std::complex<float>)  \
  X(std::int64_t, std::complex<double>)
