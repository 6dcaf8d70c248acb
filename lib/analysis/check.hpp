// mmcheck's analysis: matrix statistics, validation warnings, comparison, residual, LU check.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mm/matrix.hpp"
#include "mm/mtx.hpp"

namespace mm::check {

// ---- info --------------------------------------------------------------------------------
// Statistics of a file. Everything below nnz_expanded is of the expanded (general) matrix
// with duplicates summed: the CSR a tool would build. Explicit zeros stay structural entries.
struct Info {
  std::string banner;
  std::int64_t rows = 0, cols = 0;
  std::int64_t nnz_stored = 0;    // entries as stored in the file (array: stored values)
  std::int64_t nnz_expanded = 0;  // after mirroring symmetric kinds (array: rows*cols)
  std::int64_t nnz_distinct = 0;  // distinct positions after summing duplicates
  // Numeric symmetry of the expanded matrix (missing entries count as zero).
  bool symmetric = false, skew_symmetric = false, hermitian = false;
  std::string numeric_symmetry;  // "symmetric", "hermitian", "skew-symmetric" or "none"
  std::int64_t row_min = 0, row_max = 0;
  double row_mean = 0, row_stddev = 0;  // population standard deviation
  std::int64_t empty_rows = 0;
  std::string diagonal_dominance;  // by rows: "strict", "weak" or "none"
  std::int64_t lower_bandwidth = 0, upper_bandwidth = 0;
  // Range of real values, or of |value| for complex fields; empty for pattern files,
  // files without entries, or only NaN values.
  std::optional<double> value_min, value_max;
  bool value_range_is_abs = false;
  // CSR with int32 / int64 indices (rows+1 offsets, one index and one value per distinct
  // entry) and dense bytes; values are 8 bytes (double), 16 for complex fields.
  std::int64_t csr32_bytes = 0, csr64_bytes = 0, dense_bytes = 0;
  bool int32_indices_fit = true;
};

Info info(const MtxMatrix& m);
nlohmann::json to_json(const Info& r);
std::string to_text(const Info& r);  // "key: value" lines

// ---- validate ------------------------------------------------------------------------------
struct Warning {
  std::string kind;  // "pattern_values", "duplicates", "explicit_zeros", "upper_triangle", ...
  std::int64_t count = 0;
  std::int64_t first_entry = 0;               // 1-based entry number in the file's body
  std::int64_t first_row = 0, first_col = 0;  // 1-based position of that entry
  std::string message;                        // "3 duplicate entries (first: entry 17 at (2,5))"
};

// Warnings about a file the reader accepted (it has already refused malformed ones): its
// ReadWarnings first, then what the entries show.
std::vector<Warning> validate(const MtxMatrix& m);

// ---- compare -------------------------------------------------------------------------------
struct CompareOptions {
  double rtol = 1e-9;
  double atol = 0.0;
};

struct CompareResult {
  std::int64_t rows = 0, cols = 0;
  std::int64_t nnz_a = 0, nnz_b = 0;          // distinct structural entries
  std::int64_t only_in_a = 0, only_in_b = 0;  // structural entries in one but not the other
  double max_abs_error = 0, max_rel_error = 0;
  double rel_frobenius_error = 0;             // ||A-B||_F / ||B||_F
  std::int64_t mismatches = 0;                // entries with |a-b| > atol + rtol*|b|
  std::int64_t first_row = 0, first_col = 0;  // 1-based, of the first mismatch in row order
  std::complex<double> first_a, first_b;      // its values (missing entries: 0)
  double rtol = 0, atol = 0;
  bool pass = true;
};

// Throws InputError when the shapes differ.
CompareResult compare(const MtxMatrix& a, const MtxMatrix& b, const CompareOptions& opt = {});
nlohmann::json to_json(const CompareResult& r);
std::string to_text(const CompareResult& r);

// ---- residual ------------------------------------------------------------------------------
// Per column j: ||A x_j - b_j||_2 / (||A||_F ||x_j||_2 + ||b_j||_2); the result is the worst
// column. ||A||_F bounds ||A||_2 from above, so this never overstates the backward error.
struct ResidualResult {
  std::int64_t rows = 0, cols = 0, columns = 0;
  double norm_a = 0;  // Frobenius
  std::vector<double> per_column;
  double relative_residual = 0;
  std::int64_t worst_column = 0;  // 1-based
  double tol = 0;
  bool pass = true;
};

inline constexpr double default_residual_tol = 1e-10;

// The core both mmcheck residual and mmsolve's final check run on, written once.
// One column j of a solve: ||b_j - A x_j||_2 (A x_j by the reference SpMV, in T), ||x_j||_2
// and ||b_j||_2, the sums of squares taken in double.
struct ColumnNorms {
  double residual = 0, x = 0, b = 0;
};
template <class I, class T>
std::vector<ColumnNorms> column_norms(const Csr<I, T>& a, const Dense<T>& x, const Dense<T>& b);
// ||A||_F (of CSR's values: symmetry expanded, duplicates summed, as the tools build it).
template <class I, class T>
double frobenius_norm(const Csr<I, T>& a);
// The normwise backward error ||b-Ax|| / (||A||_F ||x|| + ||b||); 0/0 is 0, r/0 infinite.
double backward_error(const ColumnNorms& c, double norm_a);

// What mmsolve checks after a solve, over the columns of x and b: the worst backward error
// (the formula of mmcheck residual) and the worst ||b-Ax|| / ||b|| (||b-Ax|| where b = 0);
// a NaN column counts as infinite.
struct SolveResidual {
  double backward_error = 0, relative_residual = 0;
};
template <class I, class T>
SolveResidual solve_residual(const Csr<I, T>& a, const Dense<T>& x, const Dense<T>& b);

// Throws InputError when the shapes do not fit (A m x n, x n x k, b m x k). Complex
// arithmetic when any of the three files is complex. Per column: backward_error of
// column_norms (above); A x by the reference SpMV: the check trusts only the oracle.
ResidualResult residual(const MtxMatrix& a, const MtxMatrix& x, const MtxMatrix& b,
                        double tol = default_residual_tol);
nlohmann::json to_json(const ResidualResult& r);
std::string to_text(const ResidualResult& r);

// ---- lu --------------------------------------------------------------------------------------
// LAPACK ipiv (1-based) from an n x 1 array file; throws InputError naming FILE when it has
// the wrong shape or format, or a value that is not an integer in 1..n.
std::vector<std::int64_t> read_pivots(const MtxMatrix& p, std::int64_t n, const std::string& file);

// Default tolerance of the LU check: 100 * n * machine epsilon (the backward error of
// partial pivoting is O(n eps) times the growth factor, which is small in practice).
double default_lu_tol(std::int64_t n);

struct LuResult {
  std::int64_t n = 0;
  double norm_a = 0;          // ||A||_F
  double norm_diff = 0;       // ||PA - LU||_F
  double relative_error = 0;  // their ratio
  double tol = 0;
  bool pass = true;
};

// ||PA - LU||_F / ||A||_F for LU holding unit-lower L strictly below the diagonal and U on
// and above it; P applies the swaps row i <-> ipiv[i] for i = 1..n in order.
// Throws InputError when A or LU is not n x n. The product LU on THREADS threads (0: every
// core); the result is the same on any count.
LuResult lu_check(const MtxMatrix& a, const MtxMatrix& lu, const std::vector<std::int64_t>& ipiv,
                  double tol, int threads = 0);
nlohmann::json to_json(const LuResult& r);
std::string to_text(const LuResult& r);

// ---- formatting ------------------------------------------------------------------------------
// Shortest round-trip form; "inf", "-inf", "nan" for non-finite values.
std::string format_double(double v);
// A JSON number, or the string above for non-finite values (JSON has no infinity).
nlohmann::json json_double(double v);

}  // namespace mm::check
