#include "core/plot_spec.h"

#include <cmath>
#include <cstdio>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/log_number.h"

namespace flashnerd {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

nlohmann::json finite_or_null(const std::vector<double>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : v) out.push_back(flashnerd::finite_or_null(x));
  return out;
}

}  // namespace

nlohmann::json plot_spec(const std::vector<PlotSeries>& series, const PlotOptions& opts) {
  nlohmann::json j = {{"kind", "line"}, {"title", opts.title}, {"x_label", opts.x_label},
                      {"y_label", opts.y_label}, {"log_y", opts.log_y}, {"series", nlohmann::json::array()}};
  for (const auto& s : series) {
    FN_CHECK(s.x.size() == s.y.size(), "plot series '", s.label, "': ", s.x.size(), " x values for ", s.y.size(),
             " y values");
    char color[8];
    std::snprintf(color, sizeof(color), "#%06x", unsigned(s.rgb & 0xffffff));
    j["series"].push_back({{"label", s.label}, {"color", color}, {"markers", s.markers},
                           {"x", finite_or_null(s.x)}, {"y", finite_or_null(s.y)}});
  }
  return j;
}

void write_plot_spec(const std::string& path, const std::vector<PlotSeries>& series, const PlotOptions& opts) {
  write_file_atomic(path, plot_spec(series, opts).dump(1) + "\n");
}

std::string plot_png_path(const std::string& spec_path) {
  const std::string suffix = ".plot.json";
  return (ends_with(spec_path, suffix) ? spec_path.substr(0, spec_path.size() - suffix.size()) : spec_path) + ".png";
}

std::string plot_spec_path(const std::string& png_path) {
  const std::string suffix = ".png";
  return (ends_with(png_path, suffix) ? png_path.substr(0, png_path.size() - suffix.size()) : png_path) + ".plot.json";
}

}  // namespace flashnerd
