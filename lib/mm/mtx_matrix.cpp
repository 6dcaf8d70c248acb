// MtxMatrix values and symmetry expansion.
#include <omp.h>

#include <algorithm>
#include <stdexcept>

#include "mm/matrix.hpp"
#include "mm/mtx.hpp"

namespace mm {

std::complex<double> MtxMatrix::value(std::int64_t k) const {
  switch (header.field) {
    case Field::real:
      return {real[k], 0.0};
    case Field::complex:
      return {real[k], imag[k]};
    case Field::integer:
      return {static_cast<double>(integer[k]), 0.0};
    case Field::pattern:
      return {1.0, 0.0};
  }
  return {};
}

double MtxMatrix::real_value(std::int64_t k) const {
  return value(k).real();
}

namespace {

// Tiles of 64 x 64: the reads walk 64 columns and the writes 64 rows, a few KB each, so
// neither strides through memory a value at a time (the plain k -> (k % rows, k / rows)
// loop takes a cache and TLB miss a value at 2^13 and more a side).
template <class T>
void to_row_major(const MtxMatrix& m, T* out, int threads) {
  const MtxHeader& h = m.header;
  if (h.format != Format::array || h.symmetry != Symmetry::general)
    throw std::logic_error("array_to_row_major: a general array file only");
  const std::int64_t rows = h.rows, cols = h.cols, tile = 64;
  // Integers stay exact in an integer output (value() goes through double); every other
  // value as the kernels read any file's: value() then value_cast.
  auto value = [&](std::int64_t k) -> T {
    if constexpr (std::is_same_v<T, std::int64_t>)
      return h.field == Field::integer ? m.integer[k] : static_cast<T>(m.real[k]);
    else
      return value_cast<T>(m.value(k));
  };
  if (h.field == Field::pattern) {
    std::fill(out, out + rows * cols, T(1));
    return;
  }
#pragma omp parallel for schedule(static) \
    num_threads(threads > 0 ? threads : omp_get_max_threads()) if (rows * cols >= (1 << 16))
  for (std::int64_t i0 = 0; i0 < rows; i0 += tile)
    for (std::int64_t j0 = 0; j0 < cols; j0 += tile) {
      const std::int64_t i1 = std::min(i0 + tile, rows), j1 = std::min(j0 + tile, cols);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) out[i * cols + j] = value(j * rows + i);
    }
}

}  // namespace

void array_to_row_major(const MtxMatrix& m, double* out, int threads) {
  to_row_major(m, out, threads);
}
void array_to_row_major(const MtxMatrix& m, float* out, int threads) {
  to_row_major(m, out, threads);
}
void array_to_row_major(const MtxMatrix& m, std::complex<double>* out, int threads) {
  to_row_major(m, out, threads);
}
void array_to_row_major(const MtxMatrix& m, std::complex<float>* out, int threads) {
  to_row_major(m, out, threads);
}
void array_to_row_major(const MtxMatrix& m, std::int64_t* out, int threads) {
  to_row_major(m, out, threads);
}

namespace {

// Appends to OUT's value arrays the mirror of stored value K: same, negated or conjugated.
void push_mirror(MtxMatrix& out, const MtxMatrix& in, std::int64_t k) {
  const Symmetry s = in.header.symmetry;
  switch (in.header.field) {
    case Field::pattern:
      break;
    case Field::integer:
      out.integer.push_back(s == Symmetry::skew_symmetric ? -in.integer[k] : in.integer[k]);
      break;
    case Field::real:
      out.real.push_back(s == Symmetry::skew_symmetric ? -in.real[k] : in.real[k]);
      break;
    case Field::complex:
      out.real.push_back(s == Symmetry::skew_symmetric ? -in.real[k] : in.real[k]);
      out.imag.push_back(s == Symmetry::general || s == Symmetry::symmetric ? in.imag[k]
                                                                            : -in.imag[k]);
      break;
  }
}

void push_copy(MtxMatrix& out, const MtxMatrix& in, std::int64_t k) {
  switch (in.header.field) {
    case Field::pattern:
      break;
    case Field::integer:
      out.integer.push_back(in.integer[k]);
      break;
    case Field::real:
      out.real.push_back(in.real[k]);
      break;
    case Field::complex:
      out.real.push_back(in.real[k]);
      out.imag.push_back(in.imag[k]);
      break;
  }
}

void push_zero(MtxMatrix& out) {
  switch (out.header.field) {
    case Field::pattern:
      break;
    case Field::integer:
      out.integer.push_back(0);
      break;
    case Field::real:
      out.real.push_back(0.0);
      break;
    case Field::complex:
      out.real.push_back(0.0);
      out.imag.push_back(0.0);
      break;
  }
}

}  // namespace

MtxMatrix expand_symmetry(const MtxMatrix& m) {
  if (m.header.symmetry == Symmetry::general) return m;
  MtxMatrix out;
  out.header = m.header;
  out.header.symmetry = Symmetry::general;
  const std::int64_t n = m.header.nnz;
  if (m.header.format == Format::coordinate) {
    std::int64_t off = 0;
    for (std::int64_t k = 0; k < n; ++k) off += m.row[k] != m.col[k];
    out.row = m.row;
    out.col = m.col;
    out.row.reserve(static_cast<std::size_t>(n + off));
    out.col.reserve(static_cast<std::size_t>(n + off));
    out.real = m.real;
    out.imag = m.imag;
    out.integer = m.integer;
    for (std::int64_t k = 0; k < n; ++k) {
      if (m.row[k] == m.col[k]) continue;
      out.row.push_back(m.col[k]);
      out.col.push_back(m.row[k]);
      push_mirror(out, m, k);
    }
    out.header.nnz = n + off;
    return out;
  }
  // Array: rebuild the full column-major array from the stored lower triangle.
  const std::int64_t dim = m.header.rows;
  const bool skew = m.header.symmetry == Symmetry::skew_symmetric;
  // Position of (i, j), i >= j, in the stored triangle.
  auto stored = [&](std::int64_t i, std::int64_t j) {
    const std::int64_t d = skew ? 1 : 0;                            // skew stores no diagonal
    const std::int64_t before = j * dim - j * (j - 1) / 2 - d * j;  // entries in columns < j
    return before + (i - j - d);
  };
  out.header.nnz = dim * dim;
  for (std::int64_t j = 0; j < dim; ++j) {
    for (std::int64_t i = 0; i < dim; ++i) {
      if (i == j && skew)
        push_zero(out);
      else if (i >= j)
        push_copy(out, m, stored(i, j));
      else
        push_mirror(out, m, stored(j, i));
    }
  }
  return out;
}

}  // namespace mm
