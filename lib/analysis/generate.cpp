// mmgen's generators: option checks and defaults, and the driver that streams blocks.
#include "analysis/generate.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "mm/cli.hpp"
#include "mm/error.hpp"
#include "analysis/generate_detail.hpp"
#include "mm/io.hpp"
#include "mm/timing.hpp"

namespace mm {

const std::vector<std::string>& generator_kinds() {
  static const std::vector<std::string> k = {"dense",     "sparse",    "powerlaw", "banded",
                                             "poisson2d", "poisson3d", "spd",      "diagdom",
                                             "identity",  "vector"};
  return k;
}

Field parse_field(const std::string& s, const std::string& option) {
  if (s == "real") return Field::real;
  if (s == "integer") return Field::integer;
  if (s == "complex") return Field::complex;
  if (s == "pattern") return Field::pattern;
  throw UsageError(option + " must be real, integer, complex or pattern, not '" + s + "'");
}

Format parse_format(const std::string& s, const std::string& option) {
  if (s == "coordinate") return Format::coordinate;
  if (s == "array") return Format::array;
  throw UsageError(option + " must be coordinate or array, not '" + s + "'");
}

Symmetry parse_symmetry(const std::string& s, const std::string& option) {
  if (s == "general") return Symmetry::general;
  if (s == "symmetric") return Symmetry::symmetric;
  if (s == "skew-symmetric") return Symmetry::skew_symmetric;
  if (s == "hermitian") return Symmetry::hermitian;
  throw UsageError(option + " must be general, symmetric, skew-symmetric or hermitian, not '" + s +
                   "'");
}

namespace {

using gen::Spec;

// The options (besides --seed) that mean something for each kind.
const std::map<std::string, std::set<std::string>>& allowed_options() {
  static const std::set<std::string> shape = {"rows", "cols", "n", "field", "symmetry", "format"};
  auto with = [&](std::set<std::string> extra) {
    extra.insert(shape.begin(), shape.end());
    return extra;
  };
  static const std::map<std::string, std::set<std::string>> m = {
      {"dense", with({"lo", "hi"})},
      {"sparse", with({"density", "nnz-per-row", "lo", "hi"})},
      {"powerlaw", with({"density", "nnz-per-row", "alpha", "lo", "hi"})},
      {"banded", with({"bandwidth", "lo", "hi"})},
      {"poisson2d", {"n", "field", "symmetry", "format"}},
      {"poisson3d", {"n", "field", "symmetry", "format"}},
      {"spd", with({"density", "nnz-per-row", "lo", "hi"})},
      {"diagdom", with({"density", "nnz-per-row", "lo", "hi"})},
      {"identity", shape},
      {"vector", {"n", "rows", "kind", "lo", "hi", "field", "format"}},
  };
  return m;
}

std::vector<std::string> given_options(const GenOptions& o) {
  std::vector<std::string> g;
  auto add = [&](bool set, const char* name) {
    if (set) g.emplace_back(name);
  };
  add(o.rows.has_value(), "rows");
  add(o.cols.has_value(), "cols");
  add(o.n.has_value(), "n");
  add(o.density.has_value(), "density");
  add(o.nnz_per_row.has_value(), "nnz-per-row");
  add(o.alpha.has_value(), "alpha");
  add(o.bandwidth.has_value(), "bandwidth");
  add(o.lo.has_value(), "lo");
  add(o.hi.has_value(), "hi");
  add(o.field.has_value(), "field");
  add(o.symmetry.has_value(), "symmetry");
  add(o.format.has_value(), "format");
  add(o.vector_kind.has_value(), "kind");
  return g;
}

bool one_of(const std::string& k, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (k == n) return true;
  return false;
}

// Checks that the field, symmetry and format fit the kind, after their defaults.
void check_storage(const Spec& s) {
  const std::string& k = s.kind;
  if (s.format == Format::array && !one_of(k, {"dense", "spd", "identity", "vector"}))
    throw UsageError("--format array does not apply to " + k +
                     " (array output is for dense, spd, identity and vector)");
  if (s.format == Format::coordinate && k == "vector")
    throw UsageError("vector is written as an N x 1 array; --format coordinate does not apply");
  if (s.symmetry == Symmetry::skew_symmetric || s.symmetry == Symmetry::hermitian)
    throw UsageError("--symmetry " + std::string(to_string(s.symmetry)) + " is not generated");
  if (s.symmetry == Symmetry::symmetric &&
      !one_of(k, {"dense", "banded", "poisson2d", "poisson3d", "spd", "identity"}))
    throw UsageError("--symmetry symmetric does not apply to " + k +
                     " (symmetric kinds: dense, banded, poisson2d, poisson3d, spd, identity)");
  if (k == "spd" && s.format == Format::coordinate && s.symmetry != Symmetry::symmetric)
    throw UsageError(
        "sparse spd is written symmetric (lower triangle); --symmetry general needs --format "
        "array");
  if (s.field == Field::pattern &&
      (s.format == Format::array ||
       !one_of(k, {"sparse", "powerlaw", "banded", "poisson2d", "poisson3d", "identity"})))
    throw UsageError("--field pattern does not apply to " + k +
                     (s.format == Format::array ? " in array format" : " (its values matter)"));
  if (s.field == Field::complex && one_of(k, {"spd", "poisson2d", "poisson3d"}))
    throw UsageError("--field complex does not apply to " + k + " (real or integer)");
}

std::int64_t checked_size(const char* name, std::int64_t v) {
  if (v < 0) throw UsageError(std::string("--") + name + " must be >= 0");
  return v;
}

void resolve_shape(const GenOptions& o, Spec& s) {
  const std::string& k = s.kind;
  if (k == "poisson2d" || k == "poisson3d") {
    if (!o.n) throw UsageError(k + " needs --n N (grid points per side)");
    if (*o.n < 1) throw UsageError("--n must be >= 1");
    const int dims = k == "poisson2d" ? 2 : 3;
    // Keep N^d (and 7 N^3 entries) well inside 64 bits.
    if (std::pow(static_cast<double>(*o.n), dims) > 1e17)
      throw UsageError("--n " + std::to_string(*o.n) + " is too large for " + k);
    s.grid = *o.n;
    s.rows = s.cols = dims == 2 ? s.grid * s.grid : s.grid * s.grid * s.grid;
    return;
  }
  if (k == "vector") {
    if (o.n && o.rows) throw UsageError("give the vector's length with --n or --rows, not both");
    if (!o.n && !o.rows) throw UsageError("vector needs --n N");
    s.rows = checked_size(o.n ? "n" : "rows", o.n ? *o.n : *o.rows);
    s.cols = 1;
    return;
  }
  if (o.n && (o.rows || o.cols)) throw UsageError("give --n or --rows/--cols, not both");
  if (!o.n && !o.rows && !o.cols)
    throw UsageError(k + " needs a size: --n N, or --rows R --cols C");
  if (o.n) {
    s.rows = s.cols = checked_size("n", *o.n);
  } else {  // one of --rows/--cols alone: square
    s.rows = checked_size(o.rows ? "rows" : "cols", o.rows ? *o.rows : *o.cols);
    s.cols = o.cols ? checked_size("cols", *o.cols) : s.rows;
  }
  const bool square = one_of(k, {"spd", "diagdom"}) || s.symmetry == Symmetry::symmetric;
  if (square && s.rows != s.cols)
    throw UsageError(k + (s.symmetry == Symmetry::symmetric ? " --symmetry symmetric" : "") +
                     " needs a square matrix, not " + std::to_string(s.rows) + " x " +
                     std::to_string(s.cols));
  const bool dense_like = k == "dense" || s.format == Format::array;
  if (dense_like && static_cast<double>(s.rows) * static_cast<double>(s.cols) > 1e17)
    throw UsageError("a dense " + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                     " matrix is too large");
}

void resolve_density(const GenOptions& o, Spec& s) {
  if (!one_of(s.kind, {"sparse", "powerlaw", "spd", "diagdom"})) return;
  if (s.kind == "spd" && s.format == Format::array) {
    if (o.density || o.nnz_per_row)
      throw UsageError(std::string(o.density ? "--density" : "--nnz-per-row") +
                       " does not apply to spd --format array (dense)");
    return;
  }
  if (o.density && o.nnz_per_row) throw UsageError("give --density or --nnz-per-row, not both");
  if (o.density) {
    if (!(*o.density > 0 && *o.density <= 1)) throw UsageError("--density must be in (0, 1]");
    s.per_row = *o.density * static_cast<double>(s.cols);
  } else if (o.nnz_per_row) {
    if (!(*o.nnz_per_row >= 0)) throw UsageError("--nnz-per-row must be >= 0");
    if (s.kind == "sparse" && *o.nnz_per_row > static_cast<double>(s.cols))
      throw UsageError("--nnz-per-row exceeds the " + std::to_string(s.cols) + " columns");
    s.per_row = *o.nnz_per_row;
  } else {
    s.per_row = std::min(10.0, static_cast<double>(s.cols));
  }
  if (s.kind == "powerlaw") {
    s.alpha = o.alpha.value_or(2.5);
    if (!(s.alpha > 1.0 && s.alpha < 1e6))
      throw UsageError("--alpha must be > 1 (the mean row length is finite only then)");
  }
}

void resolve_values(const GenOptions& o, Spec& s) {
  if (s.kind == "vector" && (o.lo || o.hi) && s.vector_kind != "random")
    throw UsageError("--lo/--hi apply only to vector --kind random");
  const bool signed_kind = one_of(s.kind, {"spd", "diagdom"});
  const bool integer = s.field == Field::integer;
  // Integer defaults avoid 0 so that the sparsity pattern holds no stored zeros.
  const double dlo = integer ? (signed_kind ? -9 : 1) : (signed_kind ? -1 : 0);
  const double dhi = integer ? 9 : 1;
  s.values.field = s.field;
  s.values.lo = o.lo.value_or(dlo);
  s.values.hi = o.hi.value_or(dhi);
  if (!std::isfinite(s.values.lo) || !std::isfinite(s.values.hi))
    throw UsageError("--lo and --hi must be finite");
  if (s.values.lo > s.values.hi) throw UsageError("--lo must not exceed --hi");
  if (integer) {
    constexpr double lim = 0x1p52;  // exact in doubles, sums included
    if (s.values.lo != std::floor(s.values.lo) || s.values.hi != std::floor(s.values.hi) ||
        std::abs(s.values.lo) > lim || std::abs(s.values.hi) > lim)
      throw UsageError("--field integer needs whole --lo and --hi within +-2^52");
    s.values.ilo = static_cast<std::int64_t>(s.values.lo);
    s.values.ispan =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(s.values.hi) - s.values.ilo + 1);
  }
}

Spec resolve(const GenOptions& o) {
  const auto& allowed = allowed_options();
  const auto it = allowed.find(o.kind);
  if (it == allowed.end()) {
    std::string list;
    for (const auto& k : generator_kinds()) list += (list.empty() ? "" : ", ") + k;
    throw UsageError("unknown kind '" + o.kind + "' (kinds: " + list + ", rhs)");
  }
  for (const auto& g : given_options(o))
    if (!it->second.count(g)) throw UsageError("--" + g + " does not apply to " + o.kind);
  Spec s;
  s.kind = o.kind;
  s.seed = o.seed;
  s.field = o.field.value_or(Field::real);
  const bool array_default = o.kind == "dense" || o.kind == "vector";
  s.format = o.format.value_or(array_default ? Format::array : Format::coordinate);
  s.symmetry = o.symmetry.value_or(o.kind == "spd" ? Symmetry::symmetric : Symmetry::general);
  s.vector_kind = o.vector_kind.value_or("ones");
  if (!one_of(s.vector_kind, {"ones", "random", "range"}))
    throw UsageError("--kind must be ones, random or range, not '" + s.vector_kind + "'");
  check_storage(s);
  resolve_shape(o, s);
  resolve_density(o, s);
  if (o.bandwidth && *o.bandwidth < 0) throw UsageError("--bandwidth must be >= 0");
  s.bandwidth = o.bandwidth.value_or(1);
  resolve_values(o, s);
  return s;
}

// Streams a source in blocks: the lengths of a run of units, their offsets, then the
// units filled in parallel (each from its own counter, so the schedule is free).
class Streamed final : public Generator {
 public:
  Streamed(const Spec& s, std::unique_ptr<gen::Source> src, int threads)
      : spec_(s), src_(std::move(src)) {
    header_.format = s.format;
    header_.field = s.field;
    header_.symmetry = s.symmetry;
    header_.rows = s.rows;
    header_.cols = s.cols;
    header_.comments = {" generated by mmgen " + s.kind + ", seed " + std::to_string(s.seed)};
    const std::int64_t units = src_->units();
    std::int64_t total = 0;
#pragma omp parallel for num_threads(thread_count(threads)) reduction(+ : total) schedule(static)
    for (std::int64_t u = 0; u < units; ++u) total += src_->length(u);
    header_.nnz = total;
  }
  const MtxHeader& header() const override {
    return header_;
  }

  void generate(const BlockSink& sink, int threads, std::int64_t block_entries) override {
    threads = thread_count(threads);
    if (!prepared_) src_->prepare(threads);
    prepared_ = true;
    const std::int64_t units = src_->units();
    block_entries = std::max<std::int64_t>(1, block_entries);
    // Units looked at per step: about two blocks' worth at the mean length.
    const double mean =
        units > 0 ? static_cast<double>(header_.nnz) / static_cast<double>(units) : 1.0;
    const auto probe = static_cast<std::int64_t>(
        std::clamp(2.0 * static_cast<double>(block_entries) / std::max(mean, 1.0), 16.0, 65536.0));
    MtxMatrix block;
    block.header = header_;
    block.header.comments.clear();
    std::vector<std::int64_t> start;
    for (std::int64_t u = 0; u < units;) {
      const std::int64_t cand = std::min(units - u, probe);
      start.assign(static_cast<std::size_t>(cand) + 1, 0);
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::int64_t q = 0; q < cand; ++q) start[q + 1] = src_->length(u + q);
      std::int64_t count = 0;  // units in this block: at least one
      while (count < cand && (count == 0 || start[count] + start[count + 1] <= block_entries)) {
        start[count + 1] += start[count];
        ++count;
      }
      fill_block(block, u, count, start, threads);
      sink(block);
      u += count;
    }
  }

 private:
  void fill_block(MtxMatrix& b, std::int64_t u0, std::int64_t count,
                  const std::vector<std::int64_t>& start, int threads) {
    const std::int64_t n = start[count];
    const auto sz = static_cast<std::size_t>(n);
    b.header.nnz = n;
    const bool coo = spec_.format == Format::coordinate;
    const Field f = spec_.field;
    b.row.resize(coo ? sz : 0);
    b.col.resize(coo ? sz : 0);
    b.real.resize(f == Field::real || f == Field::complex ? sz : 0);
    b.imag.resize(f == Field::complex ? sz : 0);
    b.integer.resize(f == Field::integer ? sz : 0);
    auto at = [](auto& v, std::int64_t o) { return v.empty() ? nullptr : v.data() + o; };
#pragma omp parallel num_threads(threads)
    {
      gen::Scratch scratch;
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t q = 0; q < count; ++q) {
        const std::int64_t o = start[q];
        const gen::Entries e{at(b.row, o), at(b.col, o), at(b.real, o), at(b.imag, o),
                             at(b.integer, o)};
        src_->fill(u0 + q, e, scratch);
      }
    }
  }

  Spec spec_;
  std::unique_ptr<gen::Source> src_;
  MtxHeader header_;
  bool prepared_ = false;
};

}  // namespace

std::unique_ptr<Generator> make_generator(const GenOptions& opt, int threads) {
  const Spec s = resolve(opt);
  auto src = gen::make_random_source(s);
  if (!src) src = gen::make_structured_source(s);
  return std::make_unique<Streamed>(s, std::move(src), threads);
}

MtxMatrix generate(const GenOptions& opt, int threads) {
  auto g = make_generator(opt, threads);
  MtxMatrix m;
  m.header = g->header();
  auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  g->generate(
      [&](const MtxMatrix& b) {
        append(m.row, b.row);
        append(m.col, b.col);
        append(m.real, b.real);
        append(m.imag, b.imag);
        append(m.integer, b.integer);
      },
      threads);
  return m;
}

GenTimes generate_to(Generator& g, OutputStream* out, int threads) {
  GenTimes t;
  Stopwatch w;
  if (out) write_mtx_header(*out, g.header());
  t.write += w.seconds();
  w.restart();
  const WriteOptions wopt{thread_count(threads)};
  g.generate(
      [&](const MtxMatrix& b) {
        t.generate += w.seconds();
        w.restart();
        if (out) write_mtx_entries(*out, b, wopt);
        t.write += w.seconds();
        w.restart();
      },
      threads);
  t.generate += w.seconds();
  return t;
}

}  // namespace mm
