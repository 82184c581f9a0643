// RGB images as the renderer produces them, and their files: tiles into strips, PNG (libpng)
// and H.264 MP4 (ffmpeg), each written atomically. I/O lives here, never in core.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashnerd::sim {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // (height, width, 3), top row first
};

// Tiles images into rows x cols (row-major), all of one size, with a thin separator.
Image tile_images(const std::vector<Image>& images, int rows, int cols);
// PNG bytes of an image.
std::string encode_png(const Image& image);
// Writes a PNG atomically.
void write_png(const std::string& path, const Image& image);
// Encodes frames as H.264 MP4 with ffmpeg (written atomically). Throws when ffmpeg fails.
void write_mp4(const std::string& path, const std::vector<Image>& frames, double fps);

}  // namespace flashnerd::sim
