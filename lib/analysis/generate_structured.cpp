// Structured kinds of mmgen: dense, banded, poisson2d, poisson3d, identity and vector.
#include <algorithm>

#include "analysis/generate_detail.hpp"

namespace mm::gen {

namespace {

// Every entry drawn from its own counter, so the coordinate and array forms (and the
// general and symmetric forms, in the lower triangle) hold the same numbers.
class Dense final : public Source {
 public:
  explicit Dense(const Spec& s) : s_(s), key_(s.key(Stream::entries)) {}
  // Coordinate files go row by row, array files column by column.
  std::int64_t units() const override { return s_.format == Format::array ? s_.cols : s_.rows; }
  std::int64_t length(std::int64_t u) const override {
    const bool sym = s_.symmetry == Symmetry::symmetric;
    if (s_.format == Format::array) return sym ? s_.rows - u : s_.rows;
    return sym ? u + 1 : s_.cols;
  }
  void fill(std::int64_t u, const Entries& e, Scratch&) const override {
    const std::int64_t len = length(u);
    for (std::int64_t k = 0; k < len; ++k) {
      std::int64_t i = u, j = k;  // coordinate: row u
      if (s_.format == Format::array) {
        j = u;
        i = s_.rows - len + k;  // column u, from the diagonal down when symmetric
      } else {
        e.row[k] = i;
        e.col[k] = j;
      }
      // Symmetric files hold only i >= j, where this counter is the general one's.
      Rng r(key_, static_cast<std::uint64_t>(i * s_.cols + j));
      put_random(r, s_.values, e, k);
    }
  }

 private:
  Spec s_;
  std::uint64_t key_;
};

// All entries with |i - j| <= bandwidth (the lower half when symmetric).
class Banded final : public Source {
 public:
  explicit Banded(const Spec& s) : s_(s), key_(s.key(Stream::rows)) {}
  std::int64_t units() const override { return s_.rows; }
  std::int64_t length(std::int64_t i) const override {
    const auto [b, e] = span(i);
    return std::max<std::int64_t>(0, e - b);
  }
  void fill(std::int64_t i, const Entries& en, Scratch&) const override {
    Rng r(key_, static_cast<std::uint64_t>(i));
    const auto [b, e] = span(i);
    for (std::int64_t j = b; j < e; ++j) {
      en.row[j - b] = i;
      en.col[j - b] = j;
      put_random(r, s_.values, en, j - b);
    }
  }

 private:
  std::pair<std::int64_t, std::int64_t> span(std::int64_t i) const {
    const std::int64_t last = s_.symmetry == Symmetry::symmetric ? i : i + s_.bandwidth;
    return {std::max<std::int64_t>(0, i - s_.bandwidth), std::min(s_.cols, last + 1)};
  }
  Spec s_;
  std::uint64_t key_;
};

// The finite-difference Laplacian on an N^d grid (d = 2: 5 points, d = 3: 7 points),
// point (x, y, z) numbered x + N y + N^2 z; 2d on the diagonal, -1 for each neighbour.
class Poisson final : public Source {
 public:
  Poisson(const Spec& s, int dims) : s_(s), dims_(dims) {}
  std::int64_t units() const override { return s_.rows; }
  std::int64_t length(std::int64_t i) const override {
    Entries none;
    return emit(i, none, false);
  }
  void fill(std::int64_t i, const Entries& e, Scratch&) const override { emit(i, e, true); }

 private:
  // Walks row i's entries in column order; writes them when WRITE.
  std::int64_t emit(std::int64_t i, const Entries& e, bool write) const {
    const std::int64_t n = s_.grid;
    std::int64_t coord[3] = {i % n, (i / n) % n, dims_ == 3 ? i / (n * n) : 0};
    std::int64_t stride[3] = {1, n, n * n};
    std::int64_t k = 0;
    auto put = [&](std::int64_t j, double v) {
      if (write) {
        e.row[k] = i;
        e.col[k] = j;
        put_const(s_.field, e, k, v);
      }
      ++k;
    };
    for (int d = dims_ - 1; d >= 0; --d)  // lower neighbours: farthest first
      if (coord[d] > 0) put(i - stride[d], -1.0);
    put(i, 2.0 * dims_);
    if (s_.symmetry == Symmetry::symmetric) return k;
    for (int d = 0; d < dims_; ++d)
      if (coord[d] < n - 1) put(i + stride[d], -1.0);
    return k;
  }
  Spec s_;
  int dims_;
};

// Ones on the diagonal of a rows x cols matrix.
class Identity final : public Source {
 public:
  explicit Identity(const Spec& s) : s_(s) {}
  std::int64_t units() const override { return s_.format == Format::array ? s_.cols : s_.rows; }
  std::int64_t length(std::int64_t u) const override {
    if (s_.format == Format::array)
      return s_.symmetry == Symmetry::symmetric ? s_.rows - u : s_.rows;
    return u < s_.cols ? 1 : 0;
  }
  void fill(std::int64_t u, const Entries& e, Scratch&) const override {
    if (s_.format == Format::coordinate) {
      if (u < s_.cols) {
        e.row[0] = u;
        e.col[0] = u;
        put_const(s_.field, e, 0, 1.0);
      }
      return;
    }
    const std::int64_t len = length(u), i0 = s_.rows - len;
    for (std::int64_t k = 0; k < len; ++k) put_const(s_.field, e, k, i0 + k == u ? 1.0 : 0.0);
  }

 private:
  Spec s_;
};

// An N x 1 array: ones, 1..N, or uniform values. One unit per row (= file order).
class Vector final : public Source {
 public:
  explicit Vector(const Spec& s) : s_(s), key_(s.key(Stream::vector)) {}
  std::int64_t units() const override { return s_.rows; }
  std::int64_t length(std::int64_t) const override { return 1; }
  void fill(std::int64_t i, const Entries& e, Scratch&) const override {
    if (s_.vector_kind == "ones") {
      put_const(s_.field, e, 0, 1.0);
    } else if (s_.vector_kind == "range") {
      put_const(s_.field, e, 0, static_cast<double>(i + 1));
    } else {
      Rng r(key_, static_cast<std::uint64_t>(i));
      put_random(r, s_.values, e, 0);
    }
  }

 private:
  Spec s_;
  std::uint64_t key_;
};

}  // namespace

std::unique_ptr<Source> make_structured_source(const Spec& s) {
  if (s.kind == "dense") return std::make_unique<Dense>(s);
  if (s.kind == "banded") return std::make_unique<Banded>(s);
  if (s.kind == "poisson2d") return std::make_unique<Poisson>(s, 2);
  if (s.kind == "poisson3d") return std::make_unique<Poisson>(s, 3);
  if (s.kind == "identity") return std::make_unique<Identity>(s);
  if (s.kind == "vector") return std::make_unique<Vector>(s);
  return nullptr;
}

}  // namespace mm::gen
