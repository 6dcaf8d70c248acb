// 8-bit grayscale pictures and their PNG encoding (libpng), for mmcheck spy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mm {

// Row-major pixels, 0 black .. 255 white.
struct GrayImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;

  GrayImage() = default;
  GrayImage(int w, int h, std::uint8_t fill = 255)
      : width(w), height(h), pixels(static_cast<std::size_t>(w) * h, fill) {}
  std::uint8_t at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
  std::uint8_t& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

// The PNG file's bytes. Throws DeviceError (libpng's message) when libpng fails, and
// std::logic_error for an image without pixels (PNG has no 0-pixel images).
std::string encode_png(const GrayImage& img);

}  // namespace mm
