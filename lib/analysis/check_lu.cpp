// mmcheck lu: ||PA - LU||_F / ||A||_F for a packed LU and LAPACK-style pivots.
#include <cmath>
#include <limits>
#include <utility>

#include "analysis/check.hpp"
#include "mm/cli.hpp"
#include "mm/error.hpp"

namespace mm::check {

namespace {

std::string shape(const MtxHeader& h) {
  return std::to_string(h.rows) + " x " + std::to_string(h.cols);
}

template <class T>
double frobenius(const std::vector<T>& v) {
  double s = 0;
  for (const T& x : v) s += std::norm(x);
  return std::sqrt(s);
}

template <class T>
LuResult lu_as(const MtxMatrix& ma, const MtxMatrix& mlu, const std::vector<std::int64_t>& ipiv,
               double tol, int threads) {
  Dense<T> r = to_dense<T>(ma);  // becomes PA, then PA - LU
  const Dense<T> lu = to_dense<T>(mlu);
  const std::int64_t n = r.rows;
  LuResult out;
  out.n = n;
  out.tol = tol;
  out.norm_a = frobenius(r.data);
  // LAPACK's ipiv: at step i, row i was swapped with row ipiv[i]; replay them in order.
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = ipiv[static_cast<std::size_t>(i)] - 1;
    if (p != i) std::swap_ranges(&r(i, 0), &r(i, 0) + n, &r(p, 0));
  }
  // (LU)(i,j) = sum over k <= min(i,j) of L(i,k) U(k,j), with L(i,i) = 1: row i of LU is a
  // combination of rows k <= i of U, each taken from column k on. Rows apart on THREADS
  // threads, each row by one thread in the same order: the same bits on any count. Row i
  // costs ~i (n - i / 2): dynamic chunks.
#pragma omp parallel for num_threads(thread_count(threads)) schedule(dynamic, 16)
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = 0; k <= i; ++k) {
      const T l = k == i ? T{1} : lu(i, k);
      if (l == T{}) continue;
      for (std::int64_t j = k; j < n; ++j) r(i, j) -= l * lu(k, j);
    }
  }
  out.norm_diff = frobenius(r.data);
  if (out.norm_a > 0)
    out.relative_error = out.norm_diff / out.norm_a;
  else
    out.relative_error = out.norm_diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  out.pass = out.relative_error <= tol;  // false for NaN
  return out;
}

}  // namespace

std::vector<std::int64_t> read_pivots(const MtxMatrix& p, std::int64_t n, const std::string& file) {
  const MtxHeader& h = p.header;
  if (h.format != Format::array || h.symmetry != Symmetry::general)
    throw InputError(file, 0,
                     "pivots must be an 'array integer general' file, not '" +
                         std::string(to_string(h.format)) + " " + std::string(to_string(h.field)) +
                         " " + std::string(to_string(h.symmetry)) + "'");
  if (h.field != Field::integer && h.field != Field::real)
    throw InputError(file, 0, "pivots must be integers, not " + std::string(to_string(h.field)));
  if (h.rows != n || h.cols != 1)
    throw InputError(file, 0,
                     "pivots must be " + std::to_string(n) + " x 1 for a " + std::to_string(n) +
                         " x " + std::to_string(n) + " matrix, not " + shape(h));
  std::vector<std::int64_t> ipiv(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const double v = p.real_value(k);
    // A real file is accepted when it holds whole numbers (some writers have no integer field).
    if (h.field == Field::real && v != std::floor(v))
      throw InputError(
          file, 0,
          "pivot " + std::to_string(k + 1) + " is " + format_double(v) + ", not an integer");
    const bool in_range = h.field == Field::integer ? p.integer[k] >= 1 && p.integer[k] <= n
                                                    : v >= 1 && v <= static_cast<double>(n);
    if (!in_range)
      throw InputError(
          file, 0,
          "pivot " + std::to_string(k + 1) + " is " +
              (h.field == Field::integer ? std::to_string(p.integer[k]) : format_double(v)) +
              ", out of range 1.." + std::to_string(n));
    ipiv[static_cast<std::size_t>(k)] =
        h.field == Field::integer ? p.integer[k] : static_cast<std::int64_t>(v);
  }
  return ipiv;
}

double default_lu_tol(std::int64_t n) {
  return 100.0 * static_cast<double>(std::max<std::int64_t>(n, 1)) *
         std::numeric_limits<double>::epsilon();
}

LuResult lu_check(const MtxMatrix& a, const MtxMatrix& lu, const std::vector<std::int64_t>& ipiv,
                  double tol, int threads) {
  const MtxHeader &ha = a.header, &hl = lu.header;
  if (!ha.is_square()) throw InputError("lu: A must be square, not " + shape(ha));
  if (hl.rows != ha.rows || hl.cols != ha.cols)
    throw InputError("lu: LU is " + shape(hl) + ", A is " + shape(ha) + "; they must match");
  if (static_cast<std::int64_t>(ipiv.size()) != ha.rows)
    throw InputError("lu: " + std::to_string(ipiv.size()) + " pivots for " + shape(ha));
  for (std::int64_t p : ipiv)
    if (p < 1 || p > ha.rows)
      throw InputError("lu: pivot " + std::to_string(p) + " out of range 1.." +
                       std::to_string(ha.rows));
  if (ha.field == Field::complex || hl.field == Field::complex)
    return lu_as<std::complex<double>>(a, lu, ipiv, tol, threads);
  return lu_as<double>(a, lu, ipiv, tol, threads);
}

nlohmann::json to_json(const LuResult& r) {
  return {{"n", r.n},
          {"norm_a_frobenius", json_double(r.norm_a)},
          {"norm_pa_minus_lu_frobenius", json_double(r.norm_diff)},
          {"relative_error", json_double(r.relative_error)},
          {"tol", json_double(r.tol)},
          {"pass", r.pass}};
}

std::string to_text(const LuResult& r) {
  std::string s;
  auto kv = [&s](const std::string& k, const std::string& v) { s += k + ": " + v + "\n"; };
  kv("n", std::to_string(r.n));
  kv("norm_a_frobenius", format_double(r.norm_a));
  kv("norm_pa_minus_lu_frobenius", format_double(r.norm_diff));
  kv("relative_error", format_double(r.relative_error));
  kv("tol", format_double(r.tol));
  kv("result", r.pass ? "pass" : "fail");
  return s;
}

}  // namespace mm::check
