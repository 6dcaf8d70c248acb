// mmcheck compare and residual: entrywise differences of two matrices, ||Ax-b|| of a solution.
#include <cmath>
#include <limits>

#include "analysis/check.hpp"

#include "instantiate.hpp"
#include "mm/error.hpp"
#include "spmv.hpp"

namespace mm::check {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

std::string shape(const MtxHeader& h) {
  return std::to_string(h.rows) + " x " + std::to_string(h.cols);
}

// Component-wise equality where NaN equals NaN: a file compared with itself passes.
bool same(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}
bool same(std::complex<double> a, std::complex<double> b) {
  return same(a.real(), b.real()) && same(a.imag(), b.imag());
}

template <class T>
Csr<std::int64_t, T> csr_of(const MtxMatrix& m) {
  return coo_to_csr(to_coo<std::int64_t, T>(m, /*expand=*/true));
}

// |v|^2 in double whatever T (std::norm of a float is a float).
template <class T>
double norm_sq(const T& v) {
  return std::norm(std::complex<double>(v));
}

// NUM / DEN where 0/0 is 0 and x/0 is infinite: an exact zero stays a pass.
double ratio(double num, double den) {
  if (den > 0) return num / den;
  return num == 0 ? 0.0 : inf;
}

template <class T>
CompareResult compare_as(const MtxMatrix& ma, const MtxMatrix& mb, const CompareOptions& opt) {
  const auto a = csr_of<T>(ma);
  const auto b = csr_of<T>(mb);
  CompareResult r;
  r.rows = a.rows;
  r.cols = a.cols;
  r.nnz_a = a.nnz();
  r.nnz_b = b.nnz();
  r.rtol = opt.rtol;
  r.atol = opt.atol;
  double diff2 = 0, b2 = 0;
  auto visit = [&](std::int64_t i, std::int64_t j, T av, T bv) {
    const std::complex<double> ca(av), cb(bv);
    double err = same(ca, cb) ? 0.0 : std::abs(ca - cb);
    if (std::isnan(err)) err = inf;  // NaN against a number, or inf - inf
    const double bn = std::abs(cb);
    double rel = err == 0 ? 0.0 : ratio(err, bn);
    if (std::isnan(rel)) rel = inf;
    r.max_abs_error = std::max(r.max_abs_error, err);
    r.max_rel_error = std::max(r.max_rel_error, rel);
    diff2 += err * err;
    b2 += bn * bn;
    // err == 0 first: for equal NaN or inf entries the bound itself may be NaN.
    if (err != 0 && !(err <= opt.atol + opt.rtol * bn)) {
      if (r.mismatches++ == 0) {
        r.first_row = i + 1;
        r.first_col = j + 1;
        r.first_a = ca;
        r.first_b = cb;
      }
    }
  };
  for (std::int64_t i = 0; i < a.rows; ++i) {
    auto p = a.ptr[i], q = b.ptr[i];
    const auto pe = a.ptr[i + 1], qe = b.ptr[i + 1];
    while (p < pe || q < qe) {
      if (q == qe || (p < pe && a.idx[p] < b.idx[q])) {
        ++r.only_in_a;
        visit(i, a.idx[p], a.val[p], T{});
        ++p;
      } else if (p == pe || b.idx[q] < a.idx[p]) {
        ++r.only_in_b;
        visit(i, b.idx[q], T{}, b.val[q]);
        ++q;
      } else {
        visit(i, a.idx[p], a.val[p], b.val[q]);
        ++p;
        ++q;
      }
    }
  }
  r.rel_frobenius_error = ratio(std::sqrt(diff2), std::sqrt(b2));
  r.pass = r.mismatches == 0;
  return r;
}

template <class T>
ResidualResult residual_as(const MtxMatrix& ma, const MtxMatrix& mx, const MtxMatrix& mb,
                           double tol) {
  const auto a = csr_of<T>(ma);
  const Dense<T> x = to_dense<T>(mx), b = to_dense<T>(mb);
  ResidualResult r;
  r.rows = a.rows;
  r.cols = a.cols;
  r.columns = x.cols;
  r.tol = tol;
  r.norm_a = frobenius_norm(a);
  const std::vector<ColumnNorms> norms = column_norms(a, x, b);
  for (std::int64_t j = 0; j < x.cols; ++j) {
    const double rel = backward_error(norms[static_cast<std::size_t>(j)], r.norm_a);
    r.per_column.push_back(rel);
    // NaN is the worst: it must fail, and it must be what is reported.
    const bool worse =
        std::isnan(rel) ? !std::isnan(r.relative_residual) : rel > r.relative_residual;
    if (j == 0 || worse) {
      r.relative_residual = rel;
      r.worst_column = j + 1;
    }
  }
  r.pass = r.relative_residual <= tol;  // false for NaN
  return r;
}

nlohmann::json json_value(std::complex<double> v) {
  if (v.imag() == 0) return json_double(v.real());
  return nlohmann::json::array({json_double(v.real()), json_double(v.imag())});
}

// Built by appending: GCC 12 gives a false -Wrestrict for "(" + std::to_string(...).
std::string position_text(std::int64_t i, std::int64_t j) {
  std::string s(1, '(');
  s.append(std::to_string(i)).append(",").append(std::to_string(j)).append(")");
  return s;
}

std::string text_value(std::complex<double> v) {
  if (v.imag() == 0) return format_double(v.real());
  return format_double(v.real()) + (std::signbit(v.imag()) ? "-" : "+") +
         format_double(std::abs(v.imag())) + "i";
}

}  // namespace

template <class I, class T>
std::vector<ColumnNorms> column_norms(const Csr<I, T>& a, const Dense<T>& x, const Dense<T>& b) {
  std::vector<ColumnNorms> out(static_cast<std::size_t>(x.cols));
  std::vector<T> xj(static_cast<std::size_t>(a.cols)), y(static_cast<std::size_t>(a.rows));
  for (std::int64_t j = 0; j < x.cols; ++j) {
    double rn = 0, xn = 0, bn = 0;
    for (std::int64_t i = 0; i < a.cols; ++i) {
      xj[i] = x(i, j);
      xn += norm_sq(xj[i]);
    }
    spmv_ref(a, xj.data(), y.data(), T{1}, T{0});
    for (std::int64_t i = 0; i < a.rows; ++i) {
      rn += norm_sq(T(b(i, j) - y[i]));
      bn += norm_sq(b(i, j));
    }
    out[static_cast<std::size_t>(j)] = {std::sqrt(rn), std::sqrt(xn), std::sqrt(bn)};
  }
  return out;
}

template <class I, class T>
double frobenius_norm(const Csr<I, T>& a) {
  double s = 0;
  for (const T& v : a.val) s += norm_sq(v);
  return std::sqrt(s);
}

double backward_error(const ColumnNorms& c, double norm_a) {
  return ratio(c.residual, norm_a * c.x + c.b);
}

template <class I, class T>
SolveResidual solve_residual(const Csr<I, T>& a, const Dense<T>& x, const Dense<T>& b) {
  const double norm_a = frobenius_norm(a);
  SolveResidual r;
  for (const ColumnNorms& c : column_norms(a, x, b)) {
    const double be = backward_error(c, norm_a);
    const double rel = c.b > 0 ? c.residual / c.b : c.residual;
    r.backward_error = std::isnan(be) ? inf : std::max(r.backward_error, be);
    r.relative_residual = std::isnan(rel) ? inf : std::max(r.relative_residual, rel);
  }
  return r;
}

#define MM_CHECK_RESIDUAL(I, T)                                                           \
  template std::vector<ColumnNorms> column_norms<I, T>(const Csr<I, T>&, const Dense<T>&, \
                                                       const Dense<T>&);                  \
  template double frobenius_norm<I, T>(const Csr<I, T>&);                                 \
  template SolveResidual solve_residual<I, T>(const Csr<I, T>&, const Dense<T>&, const Dense<T>&);
MM_FOR_INDEX_VALUE_TYPES(MM_CHECK_RESIDUAL)
#undef MM_CHECK_RESIDUAL

CompareResult compare(const MtxMatrix& a, const MtxMatrix& b, const CompareOptions& opt) {
  if (a.header.rows != b.header.rows || a.header.cols != b.header.cols)
    throw InputError("compare: shapes differ: " + shape(a.header) + " and " + shape(b.header));
  if (a.header.field == Field::complex || b.header.field == Field::complex)
    return compare_as<std::complex<double>>(a, b, opt);
  return compare_as<double>(a, b, opt);
}

ResidualResult residual(const MtxMatrix& a, const MtxMatrix& x, const MtxMatrix& b, double tol) {
  const MtxHeader &ha = a.header, &hx = x.header, &hb = b.header;
  if (ha.cols != hx.rows || ha.rows != hb.rows || hx.cols != hb.cols)
    throw InputError("residual: shapes do not fit: A is " + shape(ha) + ", x is " + shape(hx) +
                     ", b is " + shape(hb) + " (need A m x n, x n x k, b m x k)");
  if (ha.field == Field::complex || hx.field == Field::complex || hb.field == Field::complex)
    return residual_as<std::complex<double>>(a, x, b, tol);
  return residual_as<double>(a, x, b, tol);
}

nlohmann::json to_json(const CompareResult& r) {
  nlohmann::json j = {
      {"rows", r.rows},
      {"cols", r.cols},
      {"nnz_a", r.nnz_a},
      {"nnz_b", r.nnz_b},
      {"only_in_a", r.only_in_a},
      {"only_in_b", r.only_in_b},
      {"max_abs_error", json_double(r.max_abs_error)},
      {"max_rel_error", json_double(r.max_rel_error)},
      {"rel_frobenius_error", json_double(r.rel_frobenius_error)},
      {"rtol", json_double(r.rtol)},
      {"atol", json_double(r.atol)},
      {"mismatches", r.mismatches},
      {"first_mismatch", nullptr},
      {"pass", r.pass},
  };
  if (r.mismatches)
    j["first_mismatch"] = {{"row", r.first_row},
                           {"col", r.first_col},
                           {"a", json_value(r.first_a)},
                           {"b", json_value(r.first_b)}};
  return j;
}

std::string to_text(const CompareResult& r) {
  std::string s;
  auto kv = [&s](const std::string& k, const std::string& v) { s += k + ": " + v + "\n"; };
  kv("shape", std::to_string(r.rows) + " x " + std::to_string(r.cols));
  kv("nnz", "A " + std::to_string(r.nnz_a) + ", B " + std::to_string(r.nnz_b));
  kv("pattern_differences",
     "only in A " + std::to_string(r.only_in_a) + ", only in B " + std::to_string(r.only_in_b));
  kv("max_abs_error", format_double(r.max_abs_error));
  kv("max_rel_error", format_double(r.max_rel_error));
  kv("rel_frobenius_error", format_double(r.rel_frobenius_error));
  kv("tolerance", "|a-b| <= " + format_double(r.atol) + " + " + format_double(r.rtol) + "*|b|");
  kv("mismatches", std::to_string(r.mismatches));
  if (r.mismatches)
    kv("first_mismatch", position_text(r.first_row, r.first_col) + ": a " + text_value(r.first_a) +
                             ", b " + text_value(r.first_b));
  kv("result", r.pass ? "pass" : "fail");
  return s;
}

nlohmann::json to_json(const ResidualResult& r) {
  nlohmann::json cols = nlohmann::json::array();
  for (double v : r.per_column) cols.push_back(json_double(v));
  return {{"rows", r.rows},
          {"cols", r.cols},
          {"columns", r.columns},
          {"norm_a_frobenius", json_double(r.norm_a)},
          {"relative_residual", json_double(r.relative_residual)},
          {"worst_column", r.worst_column},
          {"per_column", cols},
          {"tol", json_double(r.tol)},
          {"pass", r.pass}};
}

std::string to_text(const ResidualResult& r) {
  std::string s;
  auto kv = [&s](const std::string& k, const std::string& v) { s += k + ": " + v + "\n"; };
  kv("shape", std::to_string(r.rows) + " x " + std::to_string(r.cols));
  kv("columns", std::to_string(r.columns));
  kv("norm_a_frobenius", format_double(r.norm_a));
  kv("relative_residual",
     format_double(r.relative_residual) +
         (r.columns > 1 ? " (column " + std::to_string(r.worst_column) + ")" : ""));
  kv("tol", format_double(r.tol));
  kv("result", r.pass ? "pass" : "fail");
  return s;
}

}  // namespace mm::check
