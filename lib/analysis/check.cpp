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

// The expanded matrix as a CSR over its rows: every row while they number not much more than
// the entries (the CSR the tools build), else only the rows holding entries, so that a
// hypersparse matrix (3e9 x 3e9, a few entries) costs memory and time by its entries.
template <class T>
struct RowCsr {
  Csr<std::int64_t, T> a;            // a.rows: the rows kept
  std::vector<std::int64_t> row_of;  // row index of kept row s, ascending; empty: all kept
  std::int64_t row(std::int64_t s) const { return row_of.empty() ? s : row_of[s]; }
  // The kept row of row index I, or -1 when I holds no entry.
  std::int64_t find_row(std::int64_t i) const {
    if (row_of.empty()) return i;
    const auto it = std::lower_bound(row_of.begin(), row_of.end(), i);
    return it != row_of.end() && *it == i ? it - row_of.begin() : -1;
  }
};

template <class T>
RowCsr<T> row_csr(const MtxMatrix& m) {
  auto coo = to_coo<std::int64_t, T>(m, /*expand=*/true);
  RowCsr<T> c;
  // coo_to_csr takes 24 bytes a row: fine up to about twice the entries' own size.
  if (coo.rows > 2 * coo.nnz() + (std::int64_t{1} << 16)) {
    c.row_of = coo.row;
    std::sort(c.row_of.begin(), c.row_of.end());
    c.row_of.erase(std::unique(c.row_of.begin(), c.row_of.end()), c.row_of.end());
    for (auto& i : coo.row)
      i = std::lower_bound(c.row_of.begin(), c.row_of.end(), i) - c.row_of.begin();
    coo.rows = static_cast<std::int64_t>(c.row_of.size());
  }
  c.a = coo_to_csr(coo);
  return c;
}

template <class T>
void symmetry_of(const RowCsr<T>& c, Info& r) {
  r.numeric_symmetry = "none";
  if (r.rows != r.cols) return;  // all three stay false
  const auto& a = c.a;
  bool sym = true, skew = true, herm = true;
  for (std::int64_t s = 0; s < a.rows && (sym || skew || herm); ++s) {
    const std::int64_t i = c.row(s);
    for (auto k = a.ptr[s]; k < a.ptr[s + 1]; ++k) {
      const std::int64_t t = c.find_row(a.idx[k]);
      const T* p = t < 0 ? nullptr : find(a, t, i);
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
void rows_of(const RowCsr<T>& c, Info& r) {
  const auto& a = c.a;
  const std::int64_t left_out = r.rows - a.rows;  // rows not kept: all empty
  r.row_min = r.rows ? std::numeric_limits<std::int64_t>::max() : 0;
  bool weak = true, strict = true;
  for (std::int64_t s = 0; s < a.rows; ++s) {
    const std::int64_t i = c.row(s);
    const std::int64_t len = a.ptr[s + 1] - a.ptr[s];
    r.row_min = std::min(r.row_min, len);
    r.row_max = std::max(r.row_max, len);
    r.empty_rows += len == 0;
    double diag = 0, off = 0;
    for (auto k = a.ptr[s]; k < a.ptr[s + 1]; ++k) {
      const std::int64_t j = a.idx[k];
      (j == i ? diag : off) += std::abs(a.val[k]);
      r.lower_bandwidth = std::max(r.lower_bandwidth, i - j);
      r.upper_bandwidth = std::max(r.upper_bandwidth, j - i);
    }
    weak = weak && diag >= off;
    strict = strict && diag > off;
  }
  if (left_out > 0) {  // each an empty row: weakly dominant (0 >= 0), not strictly
    r.row_min = 0;
    r.empty_rows += left_out;
    strict = false;
  }
  r.diagonal_dominance = strict ? "strict" : weak ? "weak" : "none";
  if (r.rows > 0) {
    r.row_mean = static_cast<double>(a.nnz()) / static_cast<double>(r.rows);
    double ss = 0;
    for (std::int64_t s = 0; s < a.rows; ++s) {
      const double d = static_cast<double>(a.ptr[s + 1] - a.ptr[s]) - r.row_mean;
      ss += d * d;
    }
    // The rows left out in one product (the kept rows' sum above is the one of every row,
    // in row order, when all are kept).
    if (left_out > 0) ss += static_cast<double>(left_out) * (r.row_mean * r.row_mean);
    r.row_stddev = std::sqrt(ss / static_cast<double>(r.rows));
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
  const auto c = row_csr<T>(m);
  r.nnz_distinct = c.a.nnz();
  symmetry_of(c, r);
  rows_of(c, r);
  if (m.header.field != Field::pattern) values_of(c.a, r);
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
