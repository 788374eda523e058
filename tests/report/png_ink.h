// Just enough PNG decoding for the browser test to tell a rendered page from a blank one:
// 8-bit greyscale/RGB/RGBA, not interlaced (what Chromium's --screenshot writes), inflated by zlib.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace labcheck::html_testing {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // 3 bytes per pixel, row by row
};

// nullopt with `error` set for anything it does not read.
std::optional<Image> DecodePng(const std::string& bytes, std::string* error);
// Share of pixels that differ from the top-left pixel (the page background) by more than a little.
double InkShare(const Image& image);
// Pixels within a small distance of this colour ("#4e79a7").
size_t PixelsNear(const Image& image, uint8_t r, uint8_t g, uint8_t b);

}  // namespace labcheck::html_testing
