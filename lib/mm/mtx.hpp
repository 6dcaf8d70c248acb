// Matrix Market files in memory: header, stored entries, reader and writer.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mm {

enum class Format { coordinate, array };
enum class Field { real, integer, complex, pattern };
enum class Symmetry { general, symmetric, skew_symmetric, hermitian };

std::string_view to_string(Format f);
std::string_view to_string(Field f);
std::string_view to_string(Symmetry s);

struct MtxHeader {
  Format format = Format::coordinate;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  // Stored entries: the size line's nnz for coordinate files; for array files the
  // number of values stored (rows*cols, or the triangle for symmetric kinds).
  std::int64_t nnz = 0;
  // Comment lines after the banner, without the leading '%' and line end.
  std::vector<std::string> comments;

  std::string banner() const;  // "%%MatrixMarket matrix coordinate real general"
  bool is_square() const { return rows == cols; }
  int values_per_entry() const {  // tokens after the indices: 0, 1 or 2
    return field == Field::pattern ? 0 : field == Field::complex ? 2 : 1;
  }
};

// Number of stored values of an array file with this shape and symmetry.
std::int64_t array_stored_count(std::int64_t rows, std::int64_t cols, Symmetry s);

// Something the reader accepted that a strict reading refuses, reported once per file
// however often it occurs: today a value on an entry line of a pattern file (SuiteSparse's
// readers, SciPy and fast_matrix_market read such files; the value is dropped).
struct ReadWarning {
  std::string kind;              // "pattern_values"
  std::int64_t count = 0;        // lines concerned
  std::int64_t first_line = 0;   // 1-based line of the first
  std::int64_t first_entry = 0;  // 0-based index of its entry
  std::string
      message;  // "3 entry lines of a pattern file carry a value after the indices, ignored"
};

// The entries as stored in the file (only the stored triangle for symmetric kinds).
// Coordinate: row/col hold 0-based indices. Array: row/col are empty and the values
// are in the file's column-major order (for symmetric kinds, the lower triangle
// column by column; skew-symmetric without the diagonal).
// Values: real -> `real` (nnz); complex -> `real` and `imag` (nnz each);
// integer -> `integer` (nnz); pattern -> nothing.
struct MtxMatrix {
  MtxHeader header;
  std::vector<std::int64_t> row;
  std::vector<std::int64_t> col;
  std::vector<double> real;
  std::vector<double> imag;
  std::vector<std::int64_t> integer;
  std::vector<ReadWarning> read_warnings;  // filled by the reader; empty for a clean file

  std::int64_t size() const { return header.nnz; }
  // Value k as a number for arithmetic (integer and pattern promoted to real).
  std::complex<double> value(std::int64_t k) const;
  double real_value(std::int64_t k) const;
};

// A general array file's values (column-major, as stored) into row-major OUT
// (rows x cols), in tiles split over THREADS (0: one per core), integer values promoted,
// complex ones into a real type by their real part (as value_cast does). Throws
// std::logic_error for another format or symmetry.
void array_to_row_major(const MtxMatrix& m, double* out, int threads = 0);
void array_to_row_major(const MtxMatrix& m, float* out, int threads = 0);
void array_to_row_major(const MtxMatrix& m, std::complex<double>* out, int threads = 0);
void array_to_row_major(const MtxMatrix& m, std::complex<float>* out, int threads = 0);
void array_to_row_major(const MtxMatrix& m, std::int64_t* out, int threads = 0);

// The reader's limits (docs/reader.md), so that no input makes it hold more than its result
// and a fixed window: a line, header or body, holds at most kMaxLineBytes before its '\n'
// ("FILE:LINE: line longer than 1 MiB"); the comments kept from the header (MtxHeader::comments)
// are at most kMaxHeaderCommentLines lines and kMaxHeaderCommentBytes of text.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxHeaderCommentLines = std::size_t{1} << 20;
inline constexpr std::size_t kMaxHeaderCommentBytes = std::size_t{64} << 20;

struct ReadOptions {
  int threads = 0;                    // 0: one per core
  std::size_t chunk_bytes = 1 << 20;  // bytes of body parsed by one task (>= 1)
  // Refuse what is otherwise read with a ReadWarning (a value on a pattern entry line).
  bool strict = false;
  // Called with the header once it is read, before any of the body is (BYTES: the input's
  // size when it is a plain file, else -1): where a tool checks its memory plan, so that an
  // input too large is refused before anything is allocated for it.
  std::function<void(const MtxHeader& h, long long bytes)> on_header = nullptr;
};

// Reads PATH ("-" is standard input; gzip is recognised by its magic bytes).
// Throws InputError naming the file and line on any malformed input. A pattern entry line
// with one or two numbers after its indices is read (the numbers dropped) with a ReadWarning
// in the result, or refused under ReadOptions::strict.
MtxMatrix read_mtx(const std::string& path, const ReadOptions& opt = {});
// Parses a whole file held in memory; NAME is used in error messages.
MtxMatrix parse_mtx(std::string_view text, const std::string& name, const ReadOptions& opt = {});
// Reads only the banner, comments and size line.
MtxHeader read_mtx_header(const std::string& path);

// Expands symmetric, skew-symmetric and hermitian coordinate data into general form
// (the mirrored entries appended after the stored ones). Array data becomes a full
// column-major general array.
MtxMatrix expand_symmetry(const MtxMatrix& m);

struct WriteOptions {
  int threads = 0;
};
class OutputStream;
// Writes M in its own format, field and symmetry; values in shortest round-trip form.
void write_mtx(OutputStream& out, const MtxMatrix& m, const WriteOptions& opt = {});
// The two halves of write_mtx, for output streamed in blocks (mmgen): the banner,
// comments and size line of H; then the entries of BLOCK (its header's format and
// field say how; its nnz says how many), formatted in parallel.
void write_mtx_header(OutputStream& out, const MtxHeader& h);
void write_mtx_entries(OutputStream& out, const MtxMatrix& block, const WriteOptions& opt = {});
// Convenience: to PATH ("-" is standard output; ".gz" compresses), atomically.
void write_mtx(const std::string& path, const MtxMatrix& m, const WriteOptions& opt = {});

}  // namespace mm
