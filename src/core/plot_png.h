// Small line plots written as PNG (libpng): loss curves of training runs, error-vs-horizon
// curves of evaluations. Axes with tick labels, optional log-scale y, a legend; a built-in
// 5x7 pixel font, so no font files are needed. Written atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashnerd {

struct PlotSeries {
  std::string label;
  std::vector<double> x, y;  // same length; non-finite points (and y <= 0 on log axes) skipped
  uint32_t rgb = 0x1f77b4;   // 0xRRGGBB
  bool markers = false;      // draw a small square at each point
};

struct PlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  int width = 800;
  int height = 500;
};

// Renders the plot to RGB pixels (height, width, 3).
std::vector<uint8_t> render_line_plot(const std::vector<PlotSeries>& series, const PlotOptions& opts);
// Encodes RGB pixels (height, width, 3) as PNG bytes.
std::string encode_png_rgb(const std::vector<uint8_t>& rgb, int width, int height);
// Renders and writes `path` atomically; throws flashnerd::Error naming the path on failure.
void write_line_plot_png(const std::string& path, const std::vector<PlotSeries>& series,
                         const PlotOptions& opts);

}  // namespace flashnerd
