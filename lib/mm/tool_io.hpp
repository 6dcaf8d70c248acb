// The read and write steps every compute tool shares: timed, with -v lines and the
// timing record's inputs.
#pragma once

#include <string>

#include "mm/cli.hpp"
#include "mm/mtx.hpp"
#include "mm/timing.hpp"

namespace mm {

struct Input {
  std::string path;
  MtxMatrix m;
  double seconds = 0;
  std::int64_t bytes = -1;  // file size; -1 for standard input
};

// Reads PATH with --threads; prints the reader's warnings; says what was read with -v.
Input load_input(const std::string& path, const CommonOptions& c, const char* tool);

// Prints the reader's warnings about M, read from PATH, once each to standard error:
// "TOOL: warning: FILE:LINE: message" (LINE: the first line concerned).
void warn_read(const char* tool, const std::string& path, const MtxMatrix& m);

// Adds the input to the record and its read time to the "read" phase.
void record_input(TimingRecord& rec, const Input& in);

// Writes M to -o unless -q; returns the seconds it took.
double save_output(const MtxMatrix& m, const CommonOptions& c);

// A vector argument as an n x 1 array's values (integer and pattern promoted); throws
// InputError naming the file when it is not one column of length N (N < 0: any).
template <class T>
std::vector<T> vector_values(const Input& in, std::int64_t n, const std::string& what);

// --max-dense-bytes when given, else half of the physical memory (a dense matrix and its
// factors must fit beside the parsed file and the output being formatted).
std::int64_t max_dense_bytes(const Cli& cli);

// Throws DeviceError (exit 4) naming PATH, WHAT and the bytes when an n x n matrix of
// VALUE_SIZE-byte values and its factors (2 n^2 values) exceed MAX_BYTES.
void check_dense_fits(const std::string& path, const std::string& what, std::int64_t n,
                      std::size_t value_size, std::int64_t max_bytes);

}  // namespace mm
