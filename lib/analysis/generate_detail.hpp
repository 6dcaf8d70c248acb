// Internal to the generators: the counter-based RNG, resolved options and row sources.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mm/mtx.hpp"

namespace mm::gen {

inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

// splitmix64's output function: a strong 64-bit mix, the same on every machine.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

// Streams of one matrix: row lengths, row contents (columns and values), per-entry values.
enum class Stream : std::uint64_t { lengths = 1, rows = 2, entries = 3, vector = 4 };

inline std::uint64_t stream_key(std::uint64_t seed, std::string_view kind, Stream s) {
  return mix64(mix64(seed) ^ fnv1a(kind) ^ mix64(static_cast<std::uint64_t>(s) * kGolden));
}

// splitmix64 started at a state derived from (KEY, INDEX): every row (or entry) has a
// stream of its own, so rows are generated in any order, on any thread, identically.
// Uniform doubles and bounded integers are computed here, never by <random>'s
// distributions, whose results differ between standard libraries.
class Rng {
 public:
  Rng(std::uint64_t key, std::uint64_t index) : s_(mix64(key ^ mix64(index + kGolden))) {}
  std::uint64_t next() {
    s_ += kGolden;
    return mix64(s_);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  // [0, n) by Lemire's multiply-shift (bias below 2^-64 * n, irrelevant here).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // floor(x) or floor(x)+1 with mean exactly x: fractional expected row lengths.
  std::int64_t round_stochastic(double x) {
    const double f = std::floor(x);
    return static_cast<std::int64_t>(f) + (uniform() < x - f ? 1 : 0);
  }

 private:
  std::uint64_t s_;
};

// The value range of random entries, in the file's field.
struct ValueRange {
  Field field = Field::real;
  double lo = 0, hi = 1;
  std::int64_t ilo = 0;     // integer field: lo
  std::uint64_t ispan = 1;  // integer field: hi - lo + 1
};

// Options after defaults and checks.
struct Spec {
  std::string kind;
  std::uint64_t seed = 1;
  std::int64_t rows = 0, cols = 0;
  std::int64_t grid = 0;  // poisson: points per side
  double per_row = 0;     // expected stored entries per row (sparse kinds)
  double alpha = 2.5;
  std::int64_t bandwidth = 0;
  ValueRange values;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  Format format = Format::coordinate;
  std::string vector_kind = "ones";
  std::uint64_t key(Stream s) const { return stream_key(seed, kind, s); }
};

// Where one unit's entries go (pointers at the unit's first entry; null where the
// format or field stores nothing).
struct Entries {
  std::int64_t* row = nullptr;
  std::int64_t* col = nullptr;
  double* re = nullptr;
  double* im = nullptr;
  std::int64_t* iv = nullptr;
};

// Per-thread working memory of the samplers.
struct Scratch {
  std::vector<std::uint64_t> table;
  std::vector<std::int64_t> picks;
};

// A random value of R stored at entry K; returns its magnitude (for dominance sums).
inline double put_random(Rng& rng, const ValueRange& r, const Entries& e, std::int64_t k) {
  switch (r.field) {
    case Field::pattern:
      return 1.0;
    case Field::integer: {
      const std::int64_t v = r.ilo + static_cast<std::int64_t>(rng.below(r.ispan));
      e.iv[k] = v;
      return std::abs(static_cast<double>(v));
    }
    case Field::real: {
      const double v = r.lo + (r.hi - r.lo) * rng.uniform();
      e.re[k] = v;
      return std::abs(v);
    }
    case Field::complex: {
      const double a = r.lo + (r.hi - r.lo) * rng.uniform();
      const double b = r.lo + (r.hi - r.lo) * rng.uniform();
      e.re[k] = a;
      e.im[k] = b;
      return std::abs(std::complex<double>(a, b));
    }
  }
  return 0.0;
}

// A real constant V stored at entry K in the file's field.
inline void put_const(Field f, const Entries& e, std::int64_t k, double v) {
  switch (f) {
    case Field::pattern:
      break;
    case Field::integer:
      e.iv[k] = static_cast<std::int64_t>(v);
      break;
    case Field::real:
      e.re[k] = v;
      break;
    case Field::complex:
      e.re[k] = v;
      e.im[k] = 0.0;
      break;
  }
}

// One kind: the file as a sequence of units (rows of coordinate files, columns of
// array files, or rows of an N x 1 vector), each generated independently.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::int64_t units() const = 0;
  virtual std::int64_t length(std::int64_t u) const = 0;  // cheap: no values drawn
  // Writes unit U's LENGTH(U) entries (row and column indices too, for coordinate).
  virtual void fill(std::int64_t u, const Entries& e, Scratch& s) const = 0;
  // A whole-matrix pass some kinds need first (spd: the diagonal).
  virtual void prepare(int /*threads*/) {}
};

// K sorted distinct integers from [0, N) into OUT (resized), by Floyd's algorithm and a
// sort when K is small against N, else by selection sampling in one sweep.
void sample_sorted(Rng& rng, std::int64_t n, std::int64_t k, Scratch& s,
                   std::vector<std::int64_t>& out);

// Sources, one per kind (generate_random.cpp, generate_structured.cpp).
std::unique_ptr<Source> make_random_source(const Spec& s);      // sparse powerlaw spd diagdom
std::unique_ptr<Source> make_structured_source(const Spec& s);  // the rest

}  // namespace mm::gen
