// mmcheck spy: the sparsity pattern of a matrix as a grayscale picture with a caption.
#pragma once

#include <cstdint>

#include "analysis/png.hpp"
#include "mm/mtx.hpp"

namespace mm::spy {

// How a pixel that covers a block of entries is shaded (a matrix larger than the plot).
enum class Shade {
  log,       // by the count of entries in the block, on a log scale up to the fullest block
  fraction,  // by the fraction of the block's positions that hold an entry
};

constexpr int kMinSize = 32;
constexpr int kMaxSize = 4096;  // the counts take 8 bytes a pixel: 128 MiB at most

struct Options {
  int size = 1000;  // neither side of the whole picture, caption included, exceeds it
  Shade shade = Shade::log;
  bool caption = true;  // "ROWS x COLS   nnz = N" under the plot
};

// The picture and where the matrix lies in it: entry (i, j) is drawn inside the plot
// rectangle (plot_x, plot_y, plot_w, plot_h), which a 1-pixel gray frame surrounds.
struct Spy {
  GrayImage image;
  int plot_x = 0, plot_y = 0, plot_w = 0, plot_h = 0;
  // Pixels a side of one entry when the matrix fits the plot with whole pixels per entry
  // (black where an entry is); 0 when each pixel covers a block of entries and is shaded.
  int cell = 0;
  std::int64_t entries = 0;  // entries drawn: stored ones, both triangles of symmetric kinds,
                             // the nonzero values of array files; the caption's nnz
};

// Draws M: symmetric, skew-symmetric and hermitian files expanded (both triangles); the
// aspect ratio of rows to columns kept; each pixel white (no entry) or at least a quarter
// gray (one or more entries), the fullest block black. Memory and time: O(picture + stored
// entries), never O(rows x cols) for coordinate files. A matrix with no rows or no columns
// gives the caption alone. Throws std::invalid_argument for a size outside
// [kMinSize, kMaxSize].
Spy draw(const MtxMatrix& m, const Options& opt = {});

}  // namespace mm::spy
