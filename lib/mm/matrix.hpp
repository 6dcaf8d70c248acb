// Matrix types (dense row-major, COO, CSR) and the conversions between them and MtxMatrix.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "mm/error.hpp"
#include "mm/mtx.hpp"

namespace mm {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

// The real type underneath: float for std::complex<float>, double for double.
template <class T>
struct real_type {
  using type = T;
};
template <class T>
struct real_type<std::complex<T>> {
  using type = T;
};
template <class T>
using real_type_t = typename real_type<T>::type;

// The complex conjugate, or the value itself for a real type.
template <class T>
T conj_of(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::conj(v);
  else
    return v;
}

// A value read from a file, converted to the kernel's value type.
template <class T>
T value_cast(std::complex<double> v) {
  if constexpr (is_complex_v<T>) {
    return T(static_cast<typename T::value_type>(v.real()),
             static_cast<typename T::value_type>(v.imag()));
  } else {
    return static_cast<T>(v.real());
  }
}

template <class T>
struct Dense {
  std::int64_t rows = 0, cols = 0;
  std::vector<T> data;  // row-major

  Dense() = default;
  Dense(std::int64_t r, std::int64_t c, T fill = T{})
      : rows(r), cols(c), data(static_cast<std::size_t>(r * c), fill) {}
  T& operator()(std::int64_t i, std::int64_t j) { return data[i * cols + j]; }
  const T& operator()(std::int64_t i, std::int64_t j) const { return data[i * cols + j]; }
};

template <class I, class T>
struct Coo {
  std::int64_t rows = 0, cols = 0;
  std::vector<I> row, col;  // 0-based
  std::vector<T> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(val.size()); }
};

template <class I, class T>
struct Csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<I> ptr;  // rows + 1
  std::vector<I> idx;  // column of each entry, sorted within a row
  std::vector<T> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(val.size()); }
};

// Whether index type I can hold every row, column and entry offset of this shape.
template <class I>
bool index_fits(std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  const auto lim = static_cast<std::int64_t>(std::numeric_limits<I>::max());
  return rows <= lim && cols <= lim && nnz <= lim;
}

// COO of the whole matrix (symmetric kinds expanded when EXPAND, else the stored
// triangle). Array files give every stored value, zeros included.
template <class I, class T>
Coo<I, T> to_coo(const MtxMatrix& m, bool expand = true) {
  const MtxMatrix* src = &m;
  MtxMatrix expanded;
  if (expand && m.header.symmetry != Symmetry::general) {
    expanded = expand_symmetry(m);
    src = &expanded;
  }
  const MtxHeader& h = src->header;
  if (!index_fits<I>(h.rows, h.cols, h.nnz))
    throw InputError("matrix too large for 32-bit indices; use 64-bit");
  Coo<I, T> c;
  c.rows = h.rows;
  c.cols = h.cols;
  const auto n = static_cast<std::size_t>(h.nnz);
  c.row.resize(n);
  c.col.resize(n);
  c.val.resize(n);
  if (h.format == Format::coordinate) {
    for (std::size_t k = 0; k < n; ++k) {
      c.row[k] = static_cast<I>(src->row[k]);
      c.col[k] = static_cast<I>(src->col[k]);
      c.val[k] = value_cast<T>(src->value(static_cast<std::int64_t>(k)));
    }
  } else if (n > 0) {  // array: column-major; symmetric kinds store the lower triangle by
    // columns (a 0 x 3e9 array has no values, and no 3e9 columns to walk)
    const std::int64_t skip = h.symmetry == Symmetry::general          ? -1
                              : h.symmetry == Symmetry::skew_symmetric ? 1
                                                                       : 0;
    std::size_t k = 0;
    for (std::int64_t j = 0; j < h.cols; ++j)
      for (std::int64_t i = skip < 0 ? 0 : j + skip; i < h.rows; ++i, ++k) {
        c.row[k] = static_cast<I>(i);
        c.col[k] = static_cast<I>(j);
        c.val[k] = value_cast<T>(src->value(static_cast<std::int64_t>(k)));
      }
  }
  return c;
}

// CSR with columns sorted in every row and duplicates summed.
template <class I, class T>
Csr<I, T> coo_to_csr(const Coo<I, T>& a) {
  Csr<I, T> c;
  c.rows = a.rows;
  c.cols = a.cols;
  const auto n = static_cast<std::size_t>(a.nnz());
  std::vector<std::int64_t> start(static_cast<std::size_t>(a.rows) + 1, 0);
  for (std::size_t k = 0; k < n; ++k) ++start[static_cast<std::size_t>(a.row[k]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::int64_t> order(n);
  {
    std::vector<std::int64_t> next(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < n; ++k) order[next[a.row[k]]++] = static_cast<std::int64_t>(k);
  }
  c.ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  c.idx.reserve(n);
  c.val.reserve(n);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    auto b = order.begin() + start[i], e = order.begin() + start[i + 1];
    // Stable, so duplicates are summed in file order: the same sum on every run.
    std::stable_sort(b, e, [&](std::int64_t x, std::int64_t y) { return a.col[x] < a.col[y]; });
    for (auto it = b; it != e; ++it) {
      if (it != b && a.col[*it] == a.col[*(it - 1)])
        c.val.back() += a.val[*it];
      else {
        c.idx.push_back(a.col[*it]);
        c.val.push_back(a.val[*it]);
      }
    }
    c.ptr[i + 1] = static_cast<I>(c.idx.size());
  }
  return c;
}

template <class I, class T>
Coo<I, T> csr_to_coo(const Csr<I, T>& a) {
  Coo<I, T> c;
  c.rows = a.rows;
  c.cols = a.cols;
  c.col = a.idx;
  c.val = a.val;
  c.row.resize(a.idx.size());
  for (std::int64_t i = 0; i < a.rows; ++i)
    std::fill(c.row.begin() + a.ptr[i], c.row.begin() + a.ptr[i + 1], static_cast<I>(i));
  return c;
}

// Dense form of any file (symmetric kinds expanded, duplicates summed).
template <class T>
Dense<T> to_dense(const MtxMatrix& m) {
  const MtxMatrix e = m.header.symmetry == Symmetry::general ? MtxMatrix{} : expand_symmetry(m);
  const MtxMatrix& s = m.header.symmetry == Symmetry::general ? m : e;
  Dense<T> d(s.header.rows, s.header.cols);
  const std::int64_t n = s.header.nnz;
  if (s.header.format == Format::coordinate) {
    for (std::int64_t k = 0; k < n; ++k) d(s.row[k], s.col[k]) += value_cast<T>(s.value(k));
  } else {
    array_to_row_major(s, d.data.data());
  }
  return d;
}

template <class I, class T>
Coo<I, T> dense_to_coo(const Dense<T>& d, bool drop_zeros = true) {
  Coo<I, T> c;
  c.rows = d.rows;
  c.cols = d.cols;
  for (std::int64_t i = 0; i < d.rows; ++i)
    for (std::int64_t j = 0; j < d.cols; ++j)
      if (!drop_zeros || d(i, j) != T{}) {
        c.row.push_back(static_cast<I>(i));
        c.col.push_back(static_cast<I>(j));
        c.val.push_back(d(i, j));
      }
  return c;
}

template <class I, class T>
Dense<T> coo_to_dense(const Coo<I, T>& a) {
  Dense<T> d(a.rows, a.cols);
  for (std::int64_t k = 0; k < a.nnz(); ++k) d(a.row[k], a.col[k]) += a.val[k];
  return d;
}

namespace detail {
template <class T>
void put_value(MtxMatrix& m, std::size_t k, const T& v) {
  if constexpr (is_complex_v<T>) {
    m.real[k] = static_cast<double>(v.real());
    m.imag[k] = static_cast<double>(v.imag());
  } else {
    m.real[k] = static_cast<double>(v);
  }
}
template <class T>
MtxHeader general_header(Format f, std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  MtxHeader h;
  h.format = f;
  h.field = is_complex_v<T> ? Field::complex : Field::real;
  h.rows = rows;
  h.cols = cols;
  h.nnz = nnz;
  return h;
}
inline void size_values(MtxMatrix& m) {
  const auto n = static_cast<std::size_t>(m.header.nnz);
  m.real.resize(n);
  if (m.header.field == Field::complex) m.imag.resize(n);
}
}  // namespace detail

// General array file of a dense matrix.
template <class T>
MtxMatrix to_mtx(const Dense<T>& d) {
  MtxMatrix m;
  m.header = detail::general_header<T>(Format::array, d.rows, d.cols, d.rows * d.cols);
  detail::size_values(m);
  std::size_t k = 0;
  for (std::int64_t j = 0; j < d.cols; ++j)
    for (std::int64_t i = 0; i < d.rows; ++i) detail::put_value(m, k++, d(i, j));
  return m;
}

// General coordinate file of a COO matrix, entries in its order.
template <class I, class T>
MtxMatrix to_mtx(const Coo<I, T>& a) {
  MtxMatrix m;
  m.header = detail::general_header<T>(Format::coordinate, a.rows, a.cols, a.nnz());
  detail::size_values(m);
  m.row.assign(a.row.begin(), a.row.end());
  m.col.assign(a.col.begin(), a.col.end());
  for (std::size_t k = 0; k < a.val.size(); ++k) detail::put_value(m, k, a.val[k]);
  return m;
}

template <class I, class T>
MtxMatrix to_mtx(const Csr<I, T>& a) {
  return to_mtx(csr_to_coo(a));
}

}  // namespace mm
