// Random test inputs of awkward shapes, and tolerances by value type, for checking every
// backend against the serial reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "mm/matrix.hpp"
#include "spmv.hpp"

namespace mm::test {

struct Shape {
  std::string name;
  std::int64_t rows, cols;
  double density;
  bool empty_rows = false;  // every third row empty
  bool dense_row = false;   // row 0 full
};

// The shapes every kernel test walks: tiny, odd around warp/tile sizes, rectangular,
// empty rows, one dense row, and one large enough to split across threads.
inline std::vector<Shape> awkward_shapes() {
  return {{"1x1", 1, 1, 1.0},
          {"31x31", 31, 31, 0.2},
          {"33x33", 33, 33, 0.2},
          {"1000x1000", 1000, 1000, 0.01},
          {"17x300", 17, 300, 0.05},
          {"300x17", 300, 17, 0.1},
          {"empty-rows", 200, 200, 0.05, true},
          {"dense-row", 500, 500, 0.005, false, true},
          {"zero-size", 0, 0, 0.0},
          {"no-entries", 10, 12, 0.0}};
}

// In [-1, 1] (both parts of a complex value); 64-bit integers (the transposes' value type)
// take all 64 random bits, wider than a trip through double would keep.
template <class T>
T random_value(std::mt19937_64& rng) {
  auto u = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };
  if constexpr (std::is_same_v<T, std::int64_t>) {
    return static_cast<std::int64_t>(rng());
  } else if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R re = static_cast<R>(u());
    return T(re, static_cast<R>(u()));
  } else {
    return static_cast<T>(u());
  }
}

template <class I, class T>
Csr<I, T> random_csr(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Coo<I, T> c;
  c.rows = s.rows;
  c.cols = s.cols;
  for (std::int64_t i = 0; i < s.rows; ++i) {
    if (s.empty_rows && i % 3 == 1) continue;
    for (std::int64_t j = 0; j < s.cols; ++j) {
      const bool on =
          (s.dense_row && i == 0) || static_cast<double>(rng() >> 11) * 0x1p-53 < s.density;
      if (!on) continue;
      c.row.push_back(static_cast<I>(i));
      c.col.push_back(static_cast<I>(j));
      c.val.push_back(random_value<T>(rng));
    }
  }
  return coo_to_csr(c);
}

template <class T>
Dense<T> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Dense<T> d(rows, cols);
  for (auto& v : d.data) v = random_value<T>(rng);
  return d;
}

template <class T>
std::vector<T> random_vector(std::int64_t n, std::uint64_t seed) {
  return random_dense<T>(n, 1, seed).data;
}

// Relative tolerance for sums of about N products with values in [-1, 1].
template <class T>
double tolerance(std::int64_t n) {
  using R = real_type_t<T>;
  const double eps = std::is_same_v<R, float> ? 1.2e-7 : 2.3e-16;
  return 8.0 * eps * std::sqrt(static_cast<double>(std::max<std::int64_t>(n, 1))) + 4 * eps;
}

// Every element of GOT near WANT: |got - want| <= tol * (max |want| + 1).
template <class T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 1;
  for (const auto& w : want) scale = std::max(scale, static_cast<double>(std::abs(w)));
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = static_cast<double>(std::abs(got[i] - want[i]));
    ASSERT_LE(err, tol * scale) << what << ": element " << i << " differs (" << err << " > "
                                << tol * scale << ")";
    ASSERT_FALSE(std::isnan(static_cast<double>(std::abs(got[i])))) << what << ": NaN at " << i;
  }
}

// A value no kernel produces from inputs in [-1, 1]: outputs are poisoned with it so that
// an element a kernel forgot to write is caught. For 64-bit integers, the least.
template <class T>
T poison() {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return std::numeric_limits<std::int64_t>::min();
  else
    return T(std::nan(""));
}

// For kernels that only move values (the transposes): GOT is WANT bit for bit, NaN payloads
// included.
template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_EQ(std::memcmp(&got[k], &want[k], sizeof(T)), 0)
        << what << ": element " << k << " differs";
}

// max over columns of ||b - A x|| / ||b||, by the reference SpMV (the solver tests' check).
template <class I, class T>
double rel_residual(const Csr<I, T>& a, const Dense<T>& x, const Dense<T>& b) {
  double worst = 0;
  std::vector<T> xc(static_cast<std::size_t>(a.rows)), ax(xc.size());
  for (std::int64_t c = 0; c < b.cols; ++c) {
    for (std::int64_t i = 0; i < a.rows; ++i) xc[i] = x(i, c);
    spmv_ref(a, xc.data(), ax.data(), T(1), T(0));
    double r = 0, bn = 0;
    for (std::int64_t i = 0; i < a.rows; ++i) {
      r += std::norm(std::complex<double>(b(i, c) - ax[i]));
      bn += std::norm(std::complex<double>(b(i, c)));
    }
    worst = std::max(worst, std::sqrt(r / std::max(bn, 1e-300)));
  }
  return worst;
}

}  // namespace mm::test
