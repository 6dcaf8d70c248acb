// mmcheck validate: warnings about files the strict reader accepted (duplicates, zeros, ...).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/check.hpp"

namespace mm::check {

namespace {

// 0-based (row, col) of stored value K of an array file: column-major, and for symmetric
// kinds the lower triangle column by column (skew-symmetric without the diagonal).
std::pair<std::int64_t, std::int64_t> array_position(const MtxHeader& h, std::int64_t k) {
  if (h.symmetry == Symmetry::general) return {k % h.rows, k / h.rows};
  const std::int64_t d = h.symmetry == Symmetry::skew_symmetric ? 1 : 0;
  for (std::int64_t j = 0; j < h.cols; ++j) {
    const std::int64_t len = h.rows - j - d;  // stored values of column j
    if (k < len) return {j + d + k, j};
    k -= len;
  }
  return {0, 0};  // not reached for k < nnz
}

std::pair<std::int64_t, std::int64_t> position(const MtxMatrix& m, std::int64_t k) {
  if (m.header.format == Format::coordinate) return {m.row[k], m.col[k]};
  return array_position(m.header, k);
}

// Calls F(k, row, col) for every stored value in file order, in O(nnz) for arrays too.
template <class F>
void for_each_position(const MtxMatrix& m, F&& f) {
  const MtxHeader& h = m.header;
  if (h.format == Format::coordinate) {
    for (std::int64_t k = 0; k < h.nnz; ++k) f(k, m.row[k], m.col[k]);
    return;
  }
  const bool tri = h.symmetry != Symmetry::general;
  const std::int64_t d = h.symmetry == Symmetry::skew_symmetric ? 1 : 0;
  std::int64_t k = 0;
  for (std::int64_t j = 0; j < h.cols; ++j)
    for (std::int64_t i = tri ? j + d : 0; i < h.rows; ++i) f(k++, i, j);
}

// Counts the entries K for which PRED holds and remembers the first.
class Tally {
 public:
  Tally(std::string kind, std::string one, std::string many)
      : kind_(std::move(kind)), one_(std::move(one)), many_(std::move(many)) {}
  void add(std::int64_t k) {
    if (count_++ == 0 || k < first_) first_ = k;
  }
  void add_to(const MtxMatrix& m, std::vector<Warning>& out, const std::string& tail = "") const {
    if (count_ == 0) return;
    Warning w;
    w.kind = kind_;
    w.count = count_;
    w.first_entry = first_ + 1;
    const auto [r, c] = position(m, first_);
    w.first_row = r + 1;
    w.first_col = c + 1;
    w.message = std::to_string(count_) + " " + (count_ == 1 ? one_ : many_) + " (first: entry " +
                std::to_string(w.first_entry) + " at (" + std::to_string(w.first_row) + "," +
                std::to_string(w.first_col) + "))" + tail;
    out.push_back(std::move(w));
  }

 private:
  std::string kind_, one_, many_;
  std::int64_t count_ = 0, first_ = 0;
};

// Entries that repeat an earlier one's position. In symmetric kinds (i,j) and (j,i) are the
// same position: storing both doubles the entry once the matrix is expanded.
void duplicates(const MtxMatrix& m, Tally& t) {
  const bool mirror = m.header.symmetry != Symmetry::general;
  auto key = [&](std::int64_t k) {
    const std::int64_t r = m.row[k], c = m.col[k];
    return mirror ? std::pair{std::max(r, c), std::min(r, c)} : std::pair{r, c};
  };
  std::vector<std::int64_t> order(static_cast<std::size_t>(m.header.nnz));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
    const auto kx = key(x), ky = key(y);
    return kx != ky ? kx < ky : x < y;
  });
  for (std::size_t i = 1; i < order.size(); ++i)
    if (key(order[i]) == key(order[i - 1])) t.add(order[i]);
}

}  // namespace

std::vector<Warning> validate(const MtxMatrix& m) {
  const MtxHeader& h = m.header;
  const bool coo = h.format == Format::coordinate;
  const std::string sym(to_string(h.symmetry));
  std::vector<Warning> out;

  // What the reader accepted leniently (a value on a pattern entry line), listed first.
  for (const ReadWarning& r : m.read_warnings) {
    Warning w;
    w.kind = r.kind;
    w.count = r.count;
    w.first_entry = r.first_entry + 1;
    const auto [row, col] = position(m, r.first_entry);
    w.first_row = row + 1;
    w.first_col = col + 1;
    w.message = r.message + " (first: entry " + std::to_string(w.first_entry) + " at (" +
                std::to_string(w.first_row) + "," + std::to_string(w.first_col) + "), line " +
                std::to_string(r.first_line) + ")";
    out.push_back(std::move(w));
  }

  Tally dup("duplicates", "duplicate entry", "duplicate entries");
  if (coo) duplicates(m, dup);
  dup.add_to(m, out);

  // In array files every value is stored, so zeros there are not a choice of the writer.
  Tally zeros("explicit_zeros", "explicit zero entry", "explicit zero entries");
  if (coo && h.field != Field::pattern)
    for (std::int64_t k = 0; k < h.nnz; ++k)
      if (m.value(k) == std::complex<double>{}) zeros.add(k);
  zeros.add_to(m, out);

  Tally upper("upper_triangle", "entry above the diagonal in a " + sym + " file",
              "entries above the diagonal in a " + sym + " file");
  if (coo && h.symmetry != Symmetry::general)
    for (std::int64_t k = 0; k < h.nnz; ++k)
      if (m.row[k] < m.col[k]) upper.add(k);
  upper.add_to(m, out, "; the convention stores the lower triangle");

  Tally nonfinite("non_finite", "non-finite value", "non-finite values");
  if (h.field == Field::real || h.field == Field::complex)
    for (std::int64_t k = 0; k < h.nnz; ++k) {
      const bool bad =
          !std::isfinite(m.real[k]) || (h.field == Field::complex && !std::isfinite(m.imag[k]));
      if (bad) nonfinite.add(k);
    }
  nonfinite.add_to(m, out);

  // A hermitian matrix has a real diagonal; expansion keeps such a value as stored.
  Tally diag("hermitian_diagonal",
             "diagonal entry with a nonzero imaginary part in a hermitian file",
             "diagonal entries with a nonzero imaginary part in a hermitian file");
  if (h.symmetry == Symmetry::hermitian && h.field == Field::complex)
    for_each_position(m, [&](std::int64_t k, std::int64_t r, std::int64_t c) {
      if (r == c && m.imag[k] != 0) diag.add(k);
    });
  diag.add_to(m, out);
  return out;
}

}  // namespace mm::check
