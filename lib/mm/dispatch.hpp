// Runtime choice of value and index types: --precision, complex input, 64-bit sizes.
#pragma once

#include <complex>
#include <cstdint>
#include <string>

#include "mm/matrix.hpp"

namespace mm {

// Calls F.template operator()<T>() with T = float or double (complex when COMPLEX).
template <class F>
decltype(auto) with_value_type(const std::string& precision, bool complex, F&& f) {
  if (precision == "single") {
    if (complex) return f.template operator()<std::complex<float>>();
    return f.template operator()<float>();
  }
  if (complex) return f.template operator()<std::complex<double>>();
  return f.template operator()<double>();
}

// Calls F.template operator()<I>() with I = int32 when the shape fits, else int64.
template <class F>
decltype(auto) with_index_type(std::int64_t rows, std::int64_t cols, std::int64_t nnz, F&& f) {
  if (index_fits<std::int32_t>(rows, cols, nnz)) return f.template operator()<std::int32_t>();
  return f.template operator()<std::int64_t>();
}

}  // namespace mm
