// PNG encoding through libpng's simplified API: no setjmp, errors as return values.
#include "analysis/png.hpp"

#include <png.h>

#include <stdexcept>

#include "mm/error.hpp"

namespace mm {

std::string encode_png(const GrayImage& img) {
  if (img.width <= 0 || img.height <= 0 ||
      img.pixels.size() != static_cast<std::size_t>(img.width) * img.height)
    throw std::logic_error("encode_png: an image needs pixels");
  png_image p{};
  p.version = PNG_IMAGE_VERSION;
  p.width = static_cast<png_uint_32>(img.width);
  p.height = static_cast<png_uint_32>(img.height);
  p.format = PNG_FORMAT_GRAY;
  // One pass into a buffer of the largest size the file can have.
  std::string out(PNG_IMAGE_PNG_SIZE_MAX(p), '\0');
  png_alloc_size_t size = out.size();
  const int ok = png_image_write_to_memory(&p, out.data(), &size, 0, img.pixels.data(),
                                           static_cast<png_int_32>(img.width), nullptr);
  const std::string why = p.message;
  png_image_free(&p);
  if (!ok) throw DeviceError("cannot encode the PNG image: " + why);
  out.resize(size);
  return out;
}

}  // namespace mm
