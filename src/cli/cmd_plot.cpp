// flashnerd plot: draws plot specs (NAME.plot.json, written by train, ppo, eval, bench,
// calibrate and couple) as NAME.png with matplotlib; for specs a run could not draw, or redrawn
// after editing a title.
#include <filesystem>
#include <memory>

#include "cli/cli_common.h"
#include "cli/plot_drawing.h"
#include "core/error.h"

namespace flashnerd::cli {

namespace {

struct PlotArgs {
  CommonOptions common;
  std::vector<std::string> specs;
};

void run_plot(const PlotArgs& a) {
  for (const auto& s : a.specs) FN_CHECK(std::filesystem::is_regular_file(s), "plot spec '", s, "' does not exist");
  const std::vector<std::string> pngs = draw_plots(a.specs);
  FN_CHECK(!pngs.empty(), "the plots were not drawn (see the warning above)");
  print_summary(a.common, "plot", {{"plots", pngs}});
}

}  // namespace

void register_plot(CLI::App& app) {
  auto [sub, a] = add_command<PlotArgs>(app, "plot", "Draw plot specs (NAME.plot.json) as NAME.png with matplotlib", run_plot);
  sub.add_option("specs", a.specs, "Plot specs written by train, ppo, eval, bench, calibrate or couple")
      ->required();
}

}  // namespace flashnerd::cli
