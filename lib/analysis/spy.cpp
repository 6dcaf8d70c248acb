// mmcheck spy: entries counted onto a grid no larger than the picture, shaded, framed, captioned.
#include "analysis/spy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mm::spy {

namespace {

// ---- the caption's font: 5 x 7 glyphs for the few characters a caption uses ----------------

struct Glyph {
  char c;
  std::array<std::string_view, 7> rows;  // '#' ink, '.' paper
};

constexpr std::array<Glyph, 15> kFont = {{
    {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
    {'0', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "#.#..", "..#..", "..#..", "..#..", "#####"}},
    {'2', {".###.", "#...#", "....#", "..##.", ".#...", "#....", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'x', {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"}},
    {'n', {".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
    {'z', {".....", ".....", "#####", "...#.", "..#..", ".#...", "#####"}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
}};

constexpr int kGlyphW = 5, kGlyphH = 7, kAdvance = kGlyphW + 1;
constexpr std::uint8_t kInk = 0, kFrame = 150, kPaper = 255;

const Glyph& glyph(char c) {
  for (const auto& g : kFont)
    if (g.c == c) return g;
  throw std::logic_error(std::string("spy: no glyph for '") + c + "'");
}

// Pixels a line of N characters takes at scale S (no gap after the last).
int text_width(std::size_t n, int s) {
  return n == 0 ? 0 : static_cast<int>(n) * kAdvance * s - s;
}

// TEXT at (X, Y), each font pixel an S x S square; clipped at the picture's edges.
void draw_text(GrayImage& img, int x, int y, std::string_view text, int s) {
  for (const char c : text) {
    const Glyph& g = glyph(c);
    for (int gy = 0; gy < kGlyphH; ++gy)
      for (int gx = 0; gx < kGlyphW; ++gx) {
        if (g.rows[gy][gx] != '#') continue;
        for (int dy = 0; dy < s; ++dy)
          for (int dx = 0; dx < s; ++dx) {
            const int px = x + gx * s + dx, py = y + gy * s + dy;
            if (px >= 0 && px < img.width && py >= 0 && py < img.height) img.at(px, py) = kInk;
          }
      }
    x += kAdvance * s;
  }
}

// ---- counting entries onto the grid ----------------------------------------------------------

// floor(i * n / d) without overflow for any 64-bit i < d.
std::int64_t scale_down(std::int64_t i, std::int64_t n, std::int64_t d) {
  return static_cast<std::int64_t>(static_cast<__int128>(i) * n / d);
}

// A grid of GW x GH counters over a ROWS x COLS matrix: one per entry, or one per block.
class Grid {
 public:
  Grid(std::int64_t rows, std::int64_t cols, int gw, int gh)
      : rows_(rows), cols_(cols), gw_(gw), gh_(gh), count_(static_cast<std::size_t>(gw) * gh) {}

  void add(std::int64_t i, std::int64_t j) {
    const auto y = scale_down(i, gh_, rows_), x = scale_down(j, gw_, cols_);
    ++count_[static_cast<std::size_t>(y) * gw_ + x];
    ++entries_;
  }
  std::uint64_t at(int x, int y) const { return count_[static_cast<std::size_t>(y) * gw_ + x]; }
  std::int64_t entries() const { return entries_; }
  // Rows (or columns) of the matrix that grid row (column) G covers, of N over D.
  static std::int64_t span(int g, std::int64_t n, int d) {
    auto first = [&](std::int64_t k) {  // the first index mapped to grid line k: ceil(k n / d)
      return static_cast<std::int64_t>((static_cast<__int128>(k) * n + d - 1) / d);
    };
    return first(g + 1) - first(g);
  }

 private:
  std::int64_t rows_, cols_;
  int gw_, gh_;
  std::vector<std::uint64_t> count_;
  std::int64_t entries_ = 0;
};

// Every entry of M onto G, symmetric kinds in both triangles; array files by their nonzeros.
void count_entries(const MtxMatrix& m, Grid& g) {
  const MtxHeader& h = m.header;
  const bool mirror = h.symmetry != Symmetry::general;
  if (h.format == Format::coordinate) {
    for (std::int64_t k = 0; k < h.nnz; ++k) {
      g.add(m.row[k], m.col[k]);
      if (mirror && m.row[k] != m.col[k]) g.add(m.col[k], m.row[k]);
    }
    return;
  }
  // Array: column-major; symmetric kinds store the lower triangle (skew without the diagonal).
  const std::int64_t d = h.symmetry == Symmetry::skew_symmetric ? 1 : 0;
  std::int64_t k = 0;
  for (std::int64_t j = 0; j < h.cols; ++j)
    for (std::int64_t i = mirror ? j + d : 0; i < h.rows; ++i, ++k) {
      if (m.value(k) == std::complex<double>{}) continue;
      g.add(i, j);
      if (mirror && i != j) g.add(j, i);
    }
}

// Darkness in [0, 1] of a grid cell with C entries: 0 empty, >= 1/4 with an entry.
double darkness(std::uint64_t c, std::uint64_t cmax, double area, Shade shade) {
  if (c == 0) return 0;
  double t = 1;
  if (shade == Shade::fraction)
    t = std::min(1.0, static_cast<double>(c) / area);
  else if (cmax > 1)
    t = std::log(static_cast<double>(c)) / std::log(static_cast<double>(cmax));
  return 0.25 + 0.75 * t;
}

}  // namespace

Spy draw(const MtxMatrix& m, const Options& opt) {
  if (opt.size < kMinSize || opt.size > kMaxSize)
    throw std::invalid_argument("spy: size " + std::to_string(opt.size) + " is outside " +
                                std::to_string(kMinSize) + ".." + std::to_string(kMaxSize));
  const MtxHeader& h = m.header;
  const int n = opt.size;

  // The caption: one line when it fits the size, else two; glyphs grow with the picture.
  const int s = std::clamp(n / 400, 1, 4);
  const int pad = 2 * s;
  std::vector<std::string> lines;
  const std::string shape = std::to_string(h.rows) + " x " + std::to_string(h.cols);
  // The entry count is known after counting: lay out with the largest it can be.
  const std::int64_t most = h.symmetry == Symmetry::general ? h.nnz : 2 * h.nnz;
  const std::string nnz_wide = "nnz = " + std::to_string(std::max<std::int64_t>(most, 0));
  const bool one_line = text_width(shape.size() + 3 + nnz_wide.size(), s) + 2 * pad <= n;
  const int nlines = opt.caption ? (one_line ? 1 : 2) : 0;
  const int cap_h = nlines ? pad + nlines * kGlyphH * s + (nlines - 1) * 3 * s + pad : 0;

  // The plot: whole pixels per entry when the matrix fits, else one pixel per block.
  const int box_w = n - 2, box_h = n - 2 - cap_h;  // inside the frame
  Spy out;
  int gw = 0, gh = 0;
  if (h.rows > 0 && h.cols > 0) {
    const double f = std::min(static_cast<double>(box_w) / static_cast<double>(h.cols),
                              static_cast<double>(box_h) / static_cast<double>(h.rows));
    if (f >= 1) {
      out.cell = static_cast<int>(f);
      gw = static_cast<int>(h.cols);
      gh = static_cast<int>(h.rows);
      out.plot_w = gw * out.cell;
      out.plot_h = gh * out.cell;
    } else {
      gw = out.plot_w = std::clamp(static_cast<int>(std::lround(h.cols * f)), 1, box_w);
      gh = out.plot_h = std::clamp(static_cast<int>(std::lround(h.rows * f)), 1, box_h);
    }
  }
  Grid grid(h.rows, h.cols, gw, gh);
  count_entries(m, grid);
  out.entries = grid.entries();
  if (nlines == 1)
    lines = {shape + "   nnz = " + std::to_string(out.entries)};
  else if (nlines == 2)
    lines = {shape, "nnz = " + std::to_string(out.entries)};

  int cap_w = 0;
  for (const auto& l : lines) cap_w = std::max(cap_w, text_width(l.size(), s) + 2 * pad);
  const bool framed = gw > 0;
  const int frame_w = framed ? out.plot_w + 2 : 0, frame_h = framed ? out.plot_h + 2 : 0;
  GrayImage& img = out.image;
  img = GrayImage(std::clamp(std::max(frame_w, cap_w), 1, n), std::max(frame_h + cap_h, 1));

  if (framed) {
    const int fx = (img.width - frame_w) / 2;
    out.plot_x = fx + 1;
    out.plot_y = 1;
    for (int x = fx; x < fx + frame_w; ++x) img.at(x, 0) = img.at(x, frame_h - 1) = kFrame;
    for (int y = 0; y < frame_h; ++y) img.at(fx, y) = img.at(fx + frame_w - 1, y) = kFrame;
    std::uint64_t cmax = 0;
    for (int y = 0; y < gh; ++y)
      for (int x = 0; x < gw; ++x) cmax = std::max(cmax, grid.at(x, y));
    std::vector<std::int64_t> col_span(static_cast<std::size_t>(gw));
    for (int x = 0; x < gw; ++x) col_span[x] = Grid::span(x, h.cols, gw);
    for (int y = 0; y < gh; ++y) {
      const auto row_span = static_cast<double>(Grid::span(y, h.rows, gh));
      for (int x = 0; x < gw; ++x) {
        const std::uint64_t c = grid.at(x, y);
        if (c == 0) continue;
        // Whole pixels per entry: black wherever an entry is, duplicates or not.
        const double d =
            out.cell ? 1.0
                     : darkness(c, cmax, row_span * static_cast<double>(col_span[x]), opt.shade);
        const auto v = static_cast<std::uint8_t>(std::lround(255.0 * (1.0 - d)));
        const int c0 = std::max(out.cell, 1);
        for (int dy = 0; dy < c0; ++dy)
          for (int dx = 0; dx < c0; ++dx)
            img.at(out.plot_x + x * c0 + dx, out.plot_y + y * c0 + dy) = v;
      }
    }
  }
  int y = frame_h + pad;
  for (const auto& l : lines) {
    draw_text(img, (img.width - text_width(l.size(), s)) / 2, y, l, s);
    y += (kGlyphH + 3) * s;
  }
  return out;
}

}  // namespace mm::spy
