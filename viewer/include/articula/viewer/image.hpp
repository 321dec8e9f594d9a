#pragma once
/// @file
/// An RGBA image in memory (what offscreen rendering and framebuffer grabs
/// return), and PNG files.

#include <articula/viewer/viewer_error.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace articula::viewer {

struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

/// 8-bit RGBA, row 0 at the top.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgba;  ///< width · height · 4 bytes

  bool empty() const { return width <= 0 || height <= 0; }
  Rgba at(int x, int y) const;
  /// Number of pixels that differ from `other` by more than `tolerance` in
  /// any channel (images of different sizes: every pixel of the larger).
  std::size_t countDifferent(const Image& other, int tolerance = 0) const;
};

/// Writes a PNG. @throws ViewerError naming the file on failure.
void savePng(const Image& image, const std::filesystem::path& file);
/// Reads a PNG (or any format OpenSceneGraph reads). @throws ViewerError.
Image loadImage(const std::filesystem::path& file);

}  // namespace articula::viewer
