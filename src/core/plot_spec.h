// Plots as data: a line plot's title, axes and series written as a JSON spec ("NAME.plot.json")
// that python/flashnerd/plot.py draws with matplotlib (the CLI draws it as NAME.png, and
// `flashnerd plot` redraws it). Nothing in core draws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace flashnerd {

struct PlotSeries {
  std::string label;
  std::vector<double> x, y;  // same length; non-finite points are gaps
  uint32_t rgb = 0x1f77b4;   // 0xRRGGBB
  bool markers = false;      // a marker at each point
};

struct PlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
};

// The spec's JSON: {"kind": "line", "title", "x_label", "y_label", "log_y", "series": [{"label",
// "color": "#rrggbb", "markers", "x", "y"}]}, with non-finite values as null.
nlohmann::json plot_spec(const std::vector<PlotSeries>& series, const PlotOptions& opts);
// Writes the spec atomically to `path` (by convention NAME.plot.json).
void write_plot_spec(const std::string& path, const std::vector<PlotSeries>& series, const PlotOptions& opts);
// NAME.png for NAME.plot.json (any other name: NAME + ".png").
std::string plot_png_path(const std::string& spec_path);
// NAME.plot.json for NAME.png (any other name: NAME + ".plot.json").
std::string plot_spec_path(const std::string& png_path);

}  // namespace flashnerd
