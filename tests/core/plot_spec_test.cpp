// Plot specs: the JSON python/flashnerd/plot.py draws. Non-finite points become null (JSON has
// no NaN), colours hex, mismatched series refused, and the spec/PNG names pair up.
#include "core/plot_spec.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd {
namespace {

TEST(PlotSpec, HoldsSeriesWithGapsForNonFinitePoints) {
  PlotSeries s{"loss", {1, 2, 3, 4}, {1, 0.1, INFINITY, NAN}, 0x1f77b4, true};
  PlotOptions o;
  o.title = "test";
  o.x_label = "update";
  o.log_y = true;
  const nlohmann::json j = plot_spec({s, {"valid", {1}, {0.5}, 0xd62728, false}}, o);
  EXPECT_EQ(j["kind"], "line");
  EXPECT_EQ(j["title"], "test");
  EXPECT_EQ(j["x_label"], "update");
  EXPECT_TRUE(j["log_y"].get<bool>());
  ASSERT_EQ(j["series"].size(), 2u);
  const auto& a = j["series"][0];
  EXPECT_EQ(a["label"], "loss");
  EXPECT_EQ(a["color"], "#1f77b4");
  EXPECT_TRUE(a["markers"].get<bool>());
  EXPECT_EQ(a["y"][1].get<double>(), 0.1);
  EXPECT_TRUE(a["y"][2].is_null());
  EXPECT_TRUE(a["y"][3].is_null());
  EXPECT_EQ(j["series"][1]["color"], "#d62728");
}

TEST(PlotSpec, RefusesSeriesOfUnequalLength) {
  PlotSeries s{"bad", {1, 2}, {1}, 0, false};
  try {
    plot_spec({s}, PlotOptions{});
    FAIL() << "a series with 2 x and 1 y values was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'bad'"), std::string::npos) << e.what();
  }
}

TEST(PlotSpec, WritesTheSpecAndPairsItsNames) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("fn_plot_" + std::to_string(::getpid()) + ".plot.json")).string();
  write_plot_spec(path, {{"a", {1, 2}, {3, 4}, 0, false}}, PlotOptions{});
  const nlohmann::json j = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(j["series"][0]["x"], nlohmann::json::array({1.0, 2.0}));
  std::filesystem::remove(path);
  EXPECT_EQ(plot_png_path("out/loss.plot.json"), "out/loss.png");
  EXPECT_EQ(plot_png_path("out/loss.json"), "out/loss.json.png");
  EXPECT_EQ(plot_spec_path("out/bench.png"), "out/bench.plot.json");
  EXPECT_EQ(plot_spec_path("out/bench"), "out/bench.plot.json");
  EXPECT_EQ(plot_png_path(plot_spec_path("x/y.png")), "x/y.png");
}

}  // namespace
}  // namespace flashnerd
