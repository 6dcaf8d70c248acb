// Matrix generators of mmgen: deterministic, counter-based, streamed in blocks of rows.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mm/mtx.hpp"

namespace mm {

class OutputStream;

// What the user asked for; unset options take the kind's default. make_generator
// checks that every option given means something for the kind (UsageError if not).
struct GenOptions {
  std::string kind;  // dense sparse powerlaw banded poisson2d poisson3d spd diagdom identity vector
  std::uint64_t seed = 1;
  std::optional<std::int64_t> rows, cols, n;
  std::optional<double> density, nnz_per_row, alpha;
  std::optional<std::int64_t> bandwidth;
  std::optional<double> lo, hi;
  std::optional<Field> field;
  std::optional<Symmetry> symmetry;
  std::optional<Format> format;
  std::optional<std::string> vector_kind;  // vector: ones | random | range
};

// The kinds, in the order --help lists them.
const std::vector<std::string>& generator_kinds();

// Parse "real", "coordinate", "symmetric", ...; UsageError naming OPTION otherwise.
Field parse_field(const std::string& s, const std::string& option);
Format parse_format(const std::string& s, const std::string& option);
Symmetry parse_symmetry(const std::string& s, const std::string& option);

// Where generated entries go: called once per block, blocks in file order. A block is
// an MtxMatrix whose header has the format, field and symmetry of the whole file and
// whose nnz is the number of entries in the block.
using BlockSink = std::function<void(const MtxMatrix& block)>;

class Generator {
 public:
  virtual ~Generator() = default;
  // The whole file's header (nnz: stored entries of the whole file).
  virtual const MtxHeader& header() const = 0;
  // Generates every entry, in file order, in blocks of about BLOCK_ENTRIES entries,
  // rows (or columns of arrays) filled in parallel on THREADS threads (0: one per
  // core). The output does not depend on THREADS or BLOCK_ENTRIES.
  virtual void generate(const BlockSink& sink, int threads,
                        std::int64_t block_entries = std::int64_t{1} << 20) = 0;
};

// Validates OPT and builds its generator; the cheap first pass that counts the
// entries (for the size line) is done here. Throws UsageError on a bad combination.
std::unique_ptr<Generator> make_generator(const GenOptions& opt, int threads = 0);

// The whole matrix in memory (tests and small matrices).
MtxMatrix generate(const GenOptions& opt, int threads = 0);

// Time spent generating and writing, for the timing record.
struct GenTimes {
  double generate = 0, write = 0;
};
// Streams the generator's file into OUT: header once, then block by block. With
// OUT null, only generates (mmgen -q). Returns the seconds spent in each phase.
GenTimes generate_to(Generator& g, OutputStream* out, int threads);

}  // namespace mm
