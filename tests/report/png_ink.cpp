#include "png_ink.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>

namespace labcheck::html_testing {
namespace {

uint32_t Be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) | (uint32_t(uint8_t(s[at + 2])) << 8) |
         uint32_t(uint8_t(s[at + 3]));
}

int Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

}  // namespace

std::optional<Image> DecodePng(const std::string& bytes, std::string* error) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8) != 0) {
    *error = "not a PNG";
    return std::nullopt;
  }
  Image img;
  int color_type = -1, depth = 0, interlace = 0;
  std::string idat;
  for (size_t at = 8; at + 8 <= bytes.size();) {
    const uint32_t len = Be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + len > bytes.size()) break;
    if (type == "IHDR") {
      img.width = static_cast<int>(Be32(bytes, at + 8));
      img.height = static_cast<int>(Be32(bytes, at + 12));
      depth = uint8_t(bytes[at + 16]);
      color_type = uint8_t(bytes[at + 17]);
      interlace = uint8_t(bytes[at + 20]);
    } else if (type == "IDAT") {
      idat += bytes.substr(at + 8, len);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  const int channels = color_type == 0 ? 1 : color_type == 2 ? 3 : color_type == 6 ? 4 : color_type == 4 ? 2 : 0;
  if (depth != 8 || channels == 0 || interlace != 0 || img.width <= 0 || img.height <= 0) {
    *error = "unsupported PNG (depth " + std::to_string(depth) + ", colour type " + std::to_string(color_type) + ")";
    return std::nullopt;
  }
  const size_t stride = static_cast<size_t>(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_size != raw.size()) {
    *error = "IDAT does not inflate to the image size";
    return std::nullopt;
  }
  std::vector<uint8_t> pixels(stride * img.height);
  for (int y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &pixels[y * stride];
    const uint8_t* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(channels) ? out[i - channels] : 0;
      const int b = up ? up[i] : 0;
      const int c = up && i >= size_t(channels) ? up[i - channels] : 0;
      int v = in[i];
      switch (filter) {
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) / 2; break;
        case 4: v += Paeth(a, b, c); break;
        default: break;
      }
      out[i] = static_cast<uint8_t>(v);
    }
  }
  img.rgb.resize(static_cast<size_t>(img.width) * img.height * 3);
  for (size_t p = 0; p < static_cast<size_t>(img.width) * img.height; ++p) {
    for (int k = 0; k < 3; ++k) img.rgb[p * 3 + k] = pixels[p * channels + (channels >= 3 ? k : 0)];
  }
  return img;
}

double InkShare(const Image& image) {
  if (image.rgb.empty()) return 0;
  const uint8_t r0 = image.rgb[0], g0 = image.rgb[1], b0 = image.rgb[2];
  size_t ink = 0;
  const size_t n = image.rgb.size() / 3;
  for (size_t p = 0; p < n; ++p) {
    const int d = std::abs(image.rgb[p * 3] - r0) + std::abs(image.rgb[p * 3 + 1] - g0) + std::abs(image.rgb[p * 3 + 2] - b0);
    if (d > 24) ++ink;
  }
  return static_cast<double>(ink) / static_cast<double>(n);
}

size_t PixelsNear(const Image& image, uint8_t r, uint8_t g, uint8_t b) {
  size_t count = 0;
  for (size_t p = 0; p + 2 < image.rgb.size(); p += 3) {
    const int d = std::abs(image.rgb[p] - r) + std::abs(image.rgb[p + 1] - g) + std::abs(image.rgb[p + 2] - b);
    if (d <= 30) ++count;
  }
  return count;
}

}  // namespace labcheck::html_testing
