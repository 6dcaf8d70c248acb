// Random sparse kinds of mmgen: sparse, powerlaw, diagdom and spd (sparse and dense).
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "analysis/generate_detail.hpp"

namespace mm::gen {

void sample_sorted(Rng& rng, std::int64_t n, std::int64_t k, Scratch& s,
                   std::vector<std::int64_t>& out) {
  out.clear();
  if (k <= 0 || n <= 0) return;
  if (k >= n) {
    out.resize(static_cast<std::size_t>(n));
    std::iota(out.begin(), out.end(), std::int64_t{0});
    return;
  }
  out.reserve(static_cast<std::size_t>(k));
  // Selection sampling costs O(n) per row, Floyd O(k log k): Floyd wins unless k is a
  // sizeable fraction of n.
  if (k * 16 >= n) {
    std::int64_t need = k;
    for (std::int64_t i = 0; i < n && need > 0; ++i)
      if (rng.below(static_cast<std::uint64_t>(n - i)) < static_cast<std::uint64_t>(need)) {
        out.push_back(i);
        --need;
      }
    return;
  }
  // Floyd: for j = n-k .. n-1 pick t in [0, j]; take t, or j when t is already taken.
  // Membership in an open-addressing table (values stored + 1, 0 = empty), at most
  // half full.
  const std::size_t cap = std::bit_ceil(static_cast<std::size_t>(2 * k));
  const int shift = 64 - std::countr_zero(cap);
  s.table.assign(cap, 0);
  auto insert = [&](std::uint64_t v) {
    std::size_t h = shift == 64 ? 0 : static_cast<std::size_t>((v * kGolden) >> shift);
    while (s.table[h] != 0) {
      if (s.table[h] == v + 1) return false;
      h = (h + 1) & (cap - 1);
    }
    s.table[h] = v + 1;
    return true;
  };
  for (std::int64_t j = n - k; j < n; ++j) {
    const auto t = rng.below(static_cast<std::uint64_t>(j) + 1);
    if (insert(t))
      out.push_back(static_cast<std::int64_t>(t));
    else {
      insert(static_cast<std::uint64_t>(j));
      out.push_back(j);
    }
  }
  std::sort(out.begin(), out.end());
}

namespace {

// A random value in the range as a real number (real or integer fields only).
double draw_real(Rng& rng, const ValueRange& r) {
  if (r.field == Field::integer)
    return static_cast<double>(r.ilo + static_cast<std::int64_t>(rng.below(r.ispan)));
  return r.lo + (r.hi - r.lo) * rng.uniform();
}

// sparse (uniform row lengths) and powerlaw (Pareto row lengths): sorted distinct
// columns per row, uniform values.
class RandomRows final : public Source {
 public:
  RandomRows(const Spec& s, bool powerlaw)
      : s_(s),
        powerlaw_(powerlaw),
        len_key_(s.key(Stream::lengths)),
        row_key_(s.key(Stream::rows)),
        // Pareto(x_m, alpha) has mean alpha x_m / (alpha - 1): x_m puts the mean at per_row.
        xm_(s.per_row * (s.alpha - 1.0) / s.alpha) {}
  std::int64_t units() const override { return s_.rows; }
  std::int64_t length(std::int64_t i) const override {
    Rng r(len_key_, static_cast<std::uint64_t>(i));
    double x = s_.per_row;
    // 1 - u lies in (0, 1], so the power is finite; long rows are capped at cols.
    if (powerlaw_) x = xm_ * std::pow(1.0 - r.uniform(), -1.0 / s_.alpha);
    if (x >= static_cast<double>(s_.cols)) return s_.cols;
    return std::min(s_.cols, r.round_stochastic(x));
  }
  void fill(std::int64_t i, const Entries& e, Scratch& sc) const override {
    Rng r(row_key_, static_cast<std::uint64_t>(i));
    sample_sorted(r, s_.cols, length(i), sc, sc.picks);
    for (std::size_t k = 0; k < sc.picks.size(); ++k) {
      const auto q = static_cast<std::int64_t>(k);
      e.row[q] = i;
      e.col[q] = sc.picks[k];
      put_random(r, s_.values, e, q);
    }
  }

 private:
  Spec s_;
  bool powerlaw_;
  std::uint64_t len_key_, row_key_;
  double xm_;
};

// Strictly diagonally dominant, general: random off-diagonals, diagonal = sum |a_ij| + 1.
class DiagDom final : public Source {
 public:
  explicit DiagDom(const Spec& s)
      : s_(s), len_key_(s.key(Stream::lengths)), row_key_(s.key(Stream::rows)) {}
  std::int64_t units() const override { return s_.rows; }
  std::int64_t length(std::int64_t i) const override {
    Rng r(len_key_, static_cast<std::uint64_t>(i));
    return std::min(s_.cols - 1, r.round_stochastic(s_.per_row)) + 1;
  }
  void fill(std::int64_t i, const Entries& e, Scratch& sc) const override {
    Rng r(row_key_, static_cast<std::uint64_t>(i));
    // Sample from the cols - 1 off-diagonal columns, then skip over the diagonal.
    sample_sorted(r, s_.cols - 1, length(i) - 1, sc, sc.picks);
    const auto p = std::upper_bound(sc.picks.begin(), sc.picks.end(), i - 1) - sc.picks.begin();
    double sum = 0;
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(sc.picks.size()); ++k) {
      const std::int64_t pos = k < p ? k : k + 1;
      e.row[pos] = i;
      e.col[pos] = sc.picks[static_cast<std::size_t>(k)] + (k < p ? 0 : 1);
      sum += put_random(r, s_.values, e, pos);
    }
    e.row[p] = i;
    e.col[p] = i;
    put_const(s_.field, e, p, sum + 1.0);
  }

 private:
  Spec s_;
  std::uint64_t len_key_, row_key_;
};

// Sparse symmetric positive definite, stored as the lower triangle: row i holds random
// columns below the diagonal and then the diagonal, larger than the absolute sum of
// the full row. That sum includes the row's mirror entries (column i of later rows),
// so prepare() makes one pass over the whole matrix first, keeping only two numbers a
// row; the column sums are added serially in row order so they are the same on any
// thread count.
class SparseSpd final : public Source {
 public:
  explicit SparseSpd(const Spec& s)
      : s_(s), len_key_(s.key(Stream::lengths)), row_key_(s.key(Stream::rows)) {}
  std::int64_t units() const override { return s_.rows; }
  std::int64_t length(std::int64_t i) const override { return below(i) + 1; }
  void fill(std::int64_t i, const Entries& e, Scratch& sc) const override {
    const std::int64_t k = off_diagonal(i, e, sc, nullptr);
    e.row[k] = i;
    e.col[k] = i;
    put_const(s_.field, e, k, diag_[static_cast<std::size_t>(i)]);
  }
  void prepare(int threads) override {
    const auto n = static_cast<std::size_t>(s_.rows);
    std::vector<double> rowsum(n, 0.0), colsum(n, 0.0);
    constexpr std::int64_t kBlock = 1 << 16;
    std::vector<std::int64_t> start, row, col, iv;
    std::vector<double> re, mag;
    // Only the field's value array is sized; the other stays null.
    auto at = [](auto& v, std::int64_t o) { return v.empty() ? nullptr : v.data() + o; };
    for (std::int64_t b = 0; b < s_.rows; b += kBlock) {
      const std::int64_t e = std::min(s_.rows, b + kBlock);
      start.assign(static_cast<std::size_t>(e - b) + 1, 0);
      for (std::int64_t i = b; i < e; ++i) start[i - b + 1] = start[i - b] + below(i);
      const auto m = static_cast<std::size_t>(start.back());
      row.resize(m);
      col.resize(m);
      mag.resize(m);
      if (s_.field == Field::integer)
        iv.resize(m);
      else
        re.resize(m);
#pragma omp parallel num_threads(threads)
      {
        Scratch sc;
#pragma omp for schedule(dynamic, 256)
        for (std::int64_t i = b; i < e; ++i) {
          const std::int64_t o = start[i - b];
          Entries en{row.data() + o, col.data() + o, at(re, o), nullptr, at(iv, o)};
          const std::int64_t k = off_diagonal(i, en, sc, mag.data() + o);
          double s = 0;
          for (std::int64_t q = 0; q < k; ++q) s += mag[o + q];
          rowsum[i] = s;
        }
      }
      for (std::size_t q = 0; q < m; ++q) colsum[col[q]] += mag[q];
    }
    diag_.resize(n);
    for (std::size_t i = 0; i < n; ++i) diag_[i] = rowsum[i] + colsum[i] + 1.0;
  }

 private:
  // Entries strictly below the diagonal in row i: about per_row/2, so that a full
  // row (with its mirror entries) holds about per_row off-diagonals.
  std::int64_t below(std::int64_t i) const {
    Rng r(len_key_, static_cast<std::uint64_t>(i));
    return std::min(i, r.round_stochastic(s_.per_row / 2));
  }
  // Writes row i's off-diagonal entries (their magnitudes into MAG when not null).
  std::int64_t off_diagonal(std::int64_t i, const Entries& e, Scratch& sc, double* mag) const {
    Rng r(row_key_, static_cast<std::uint64_t>(i));
    sample_sorted(r, i, below(i), sc, sc.picks);
    const auto k = static_cast<std::int64_t>(sc.picks.size());
    for (std::int64_t q = 0; q < k; ++q) {
      e.row[q] = i;
      e.col[q] = sc.picks[static_cast<std::size_t>(q)];
      const double m = put_random(r, s_.values, e, q);
      if (mag) mag[q] = m;
    }
    return k;
  }

  Spec s_;
  std::uint64_t len_key_, row_key_;
  std::vector<double> diag_;
};

// Dense symmetric positive definite (--format array): a_ij = a_ji drawn from the
// entry's own counter (the lower index pair), diagonal = sum of |a_ij| over j != i + 1.
class DenseSpd final : public Source {
 public:
  explicit DenseSpd(const Spec& s) : s_(s), key_(s.key(Stream::entries)) {}
  std::int64_t units() const override { return s_.cols; }
  std::int64_t length(std::int64_t j) const override {
    return s_.symmetry == Symmetry::symmetric ? s_.rows - j : s_.rows;
  }
  void fill(std::int64_t j, const Entries& e, Scratch&) const override {
    const std::int64_t i0 = s_.rows - length(j);
    for (std::int64_t i = i0; i < s_.rows; ++i)
      put_const(s_.field, e, i - i0, i == j ? diag_[static_cast<std::size_t>(i)] : value(i, j));
  }
  void prepare(int threads) override {
    diag_.assign(static_cast<std::size_t>(s_.rows), 0.0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (std::int64_t i = 0; i < s_.rows; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < s_.cols; ++j)
        if (j != i) s += std::abs(value(i, j));
      diag_[static_cast<std::size_t>(i)] = s + 1.0;
    }
  }

 private:
  double value(std::int64_t i, std::int64_t j) const {
    const std::int64_t a = std::max(i, j), b = std::min(i, j);
    Rng r(key_, static_cast<std::uint64_t>(a * s_.cols + b));
    return draw_real(r, s_.values);
  }

  Spec s_;
  std::uint64_t key_;
  std::vector<double> diag_;
};

}  // namespace

std::unique_ptr<Source> make_random_source(const Spec& s) {
  if (s.kind == "sparse") return std::make_unique<RandomRows>(s, false);
  if (s.kind == "powerlaw") return std::make_unique<RandomRows>(s, true);
  if (s.kind == "diagdom") return std::make_unique<DiagDom>(s);
  if (s.kind == "spd") {
    if (s.format == Format::array) return std::make_unique<DenseSpd>(s);
    return std::make_unique<SparseSpd>(s);
  }
  return nullptr;
}

}  // namespace mm::gen
