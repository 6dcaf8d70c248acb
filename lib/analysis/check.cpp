// mmcheck info: statistics of one matrix, and the number formatting every check shares.
#include "analysis/check.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "mm/matrix.hpp"

namespace mm::check {

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

nlohmann::json json_double(double v) {
  if (std::isfinite(v)) return v;
  return format_double(v);
}

namespace {

// Value at (I, J) of a CSR with sorted rows, or null when not stored.
template <class T>
const T* find(const Csr<std::int64_t, T>& a, std::int64_t i, std::int64_t j) {
  const auto b = a.idx.begin() + a.ptr[i], e = a.idx.begin() + a.ptr[i + 1];
  const auto it = std::lower_bound(b, e, j);
  return it != e && *it == j ? &a.val[static_cast<std::size_t>(it - a.idx.begin())] : nullptr;
}

template <class T>
void symmetry_of(const Csr<std::int64_t, T>& a, Info& r) {
  r.numeric_symmetry = "none";
  if (a.rows != a.cols) return;  // all three stay false
  bool sym = true, skew = true, herm = true;
  for (std::int64_t i = 0; i < a.rows && (sym || skew || herm); ++i) {
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      const T* p = find(a, a.idx[k], i);
      const T w = p ? *p : T{};
      const T& v = a.val[k];
      sym = sym && v == w;
      skew = skew && v == -w;
      herm = herm && v == conj_of(w);
    }
  }
  r.symmetric = sym;
  r.skew_symmetric = skew;
  r.hermitian = herm;
  // A real symmetric matrix is also hermitian; name the plainest property that holds.
  r.numeric_symmetry = sym ? "symmetric" : herm ? "hermitian" : skew ? "skew-symmetric" : "none";
}

template <class T>
void rows_of(const Csr<std::int64_t, T>& a, Info& r) {
  r.row_min = a.rows ? std::numeric_limits<std::int64_t>::max() : 0;
  bool weak = true, strict = true;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t len = a.ptr[i + 1] - a.ptr[i];
    r.row_min = std::min(r.row_min, len);
    r.row_max = std::max(r.row_max, len);
    r.empty_rows += len == 0;
    double diag = 0, off = 0;
    for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      const std::int64_t j = a.idx[k];
      (j == i ? diag : off) += std::abs(a.val[k]);
      r.lower_bandwidth = std::max(r.lower_bandwidth, i - j);
      r.upper_bandwidth = std::max(r.upper_bandwidth, j - i);
    }
    weak = weak && diag >= off;
    strict = strict && diag > off;
  }
  r.diagonal_dominance = strict ? "strict" : weak ? "weak" : "none";
  if (a.rows > 0) {
    r.row_mean = static_cast<double>(a.nnz()) / static_cast<double>(a.rows);
    double ss = 0;
    for (std::int64_t i = 0; i < a.rows; ++i) {
      const double d = static_cast<double>(a.ptr[i + 1] - a.ptr[i]) - r.row_mean;
      ss += d * d;
    }
    r.row_stddev = std::sqrt(ss / static_cast<double>(a.rows));
  }
}

template <class T>
void values_of(const Csr<std::int64_t, T>& a, Info& r) {
  r.value_range_is_abs = is_complex_v<T>;
  for (const T& v : a.val) {
    double x = 0;
    if constexpr (is_complex_v<T>)
      x = std::abs(v);
    else
      x = v;
    if (std::isnan(x)) continue;
    r.value_min = r.value_min ? std::min(*r.value_min, x) : x;
    r.value_max = r.value_max ? std::max(*r.value_max, x) : x;
  }
}

template <class T>
void analyse(const MtxMatrix& m, Info& r) {
  const auto a = coo_to_csr(to_coo<std::int64_t, T>(m, /*expand=*/true));
  r.nnz_distinct = a.nnz();
  symmetry_of(a, r);
  rows_of(a, r);
  if (m.header.field != Field::pattern) values_of(a, r);
  const std::int64_t vb = is_complex_v<T> ? 16 : 8;
  r.csr32_bytes = (r.rows + 1) * 4 + r.nnz_distinct * (4 + vb);
  r.csr64_bytes = (r.rows + 1) * 8 + r.nnz_distinct * (8 + vb);
  // Saturated: a 10^7 x 10^7 sparse matrix has a dense size beyond int64.
  const double dense =
      static_cast<double>(r.rows) * static_cast<double>(r.cols) * static_cast<double>(vb);
  r.dense_bytes = dense < 9.2e18 ? r.rows * r.cols * vb : std::numeric_limits<std::int64_t>::max();
  r.int32_indices_fit = index_fits<std::int32_t>(r.rows, r.cols, r.nnz_distinct);
}

}  // namespace

Info info(const MtxMatrix& m) {
  const MtxHeader& h = m.header;
  Info r;
  r.banner = h.banner();
  r.rows = h.rows;
  r.cols = h.cols;
  r.nnz_stored = h.nnz;
  if (h.format == Format::array) {
    r.nnz_expanded = h.rows * h.cols;
  } else {
    r.nnz_expanded = h.nnz;
    if (h.symmetry != Symmetry::general)
      for (std::int64_t k = 0; k < h.nnz; ++k) r.nnz_expanded += m.row[k] != m.col[k];
  }
  if (h.field == Field::complex)
    analyse<std::complex<double>>(m, r);
  else
    analyse<double>(m, r);
  return r;
}

nlohmann::json to_json(const Info& r) {
  using nlohmann::json;
  json range = nullptr;
  if (r.value_min)
    range = {{"min", json_double(*r.value_min)},
             {"max", json_double(*r.value_max)},
             {"of", r.value_range_is_abs ? "abs" : "value"}};
  return {
      {"banner", r.banner},
      {"rows", r.rows},
      {"cols", r.cols},
      {"nnz_stored", r.nnz_stored},
      {"nnz_expanded", r.nnz_expanded},
      {"nnz_distinct", r.nnz_distinct},
      {"numeric_symmetry", r.numeric_symmetry},
      {"symmetric", r.symmetric},
      {"skew_symmetric", r.skew_symmetric},
      {"hermitian", r.hermitian},
      {"row_length",
       {{"min", r.row_min},
        {"mean", json_double(r.row_mean)},
        {"max", r.row_max},
        {"stddev", json_double(r.row_stddev)}}},
      {"empty_rows", r.empty_rows},
      {"diagonal_dominance", r.diagonal_dominance},
      {"bandwidth", {{"lower", r.lower_bandwidth}, {"upper", r.upper_bandwidth}}},
      {"value_range", range},
      {"memory_bytes",
       {{"csr32", r.csr32_bytes},
        {"csr64", r.csr64_bytes},
        {"dense", r.dense_bytes},
        {"int32_indices_fit", r.int32_indices_fit}}},
  };
}

std::string to_text(const Info& r) {
  std::string s;
  auto kv = [&s](const std::string& k, const std::string& v) { s += k + ": " + v + "\n"; };
  auto n = [](std::int64_t v) { return std::to_string(v); };
  kv("banner", r.banner);
  kv("rows", n(r.rows));
  kv("cols", n(r.cols));
  kv("nnz_stored", n(r.nnz_stored));
  kv("nnz_expanded", n(r.nnz_expanded));
  kv("nnz_distinct", n(r.nnz_distinct));
  kv("numeric_symmetry", r.numeric_symmetry);
  kv("row_length", "min " + n(r.row_min) + ", mean " + format_double(r.row_mean) + ", max " +
                       n(r.row_max) + ", stddev " + format_double(r.row_stddev));
  kv("empty_rows", n(r.empty_rows));
  kv("diagonal_dominance", r.diagonal_dominance);
  kv("bandwidth", "lower " + n(r.lower_bandwidth) + ", upper " + n(r.upper_bandwidth));
  if (r.value_min)
    kv("value_range", format_double(*r.value_min) + " .. " + format_double(*r.value_max) +
                          (r.value_range_is_abs ? " (of |value|)" : ""));
  else
    kv("value_range", "none");
  kv("memory_csr32_bytes", n(r.csr32_bytes) + (r.int32_indices_fit ? "" : " (indices do not fit)"));
  kv("memory_csr64_bytes", n(r.csr64_bytes));
  kv("memory_dense_bytes", n(r.dense_bytes));
  return s;
}

}  // namespace mm::check
