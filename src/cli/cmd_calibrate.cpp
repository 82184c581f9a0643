// flashnerd calibrate: does an ensemble know where it is wrong? On held-out MuJoCo data, the
// members' disagreement against the one-step error of their mean prediction, per frame
// (eval/ensemble_calibration.h): Spearman's rank correlation, the error by disagreement
// decile, and with --out the pairs (CSV) and a plot of that table.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "cli/plot_drawing.h"
#include "core/atomic_file.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/model_dataset_check.h"
#include "core/plot_spec.h"
#include "engine/engine.h"
#include "eval/engine_step_model.h"
#include "eval/ensemble_calibration.h"
#include "eval/rollout.h"

namespace flashnerd::cli {

namespace {

struct CalibrateArgs {
  CommonOptions common;
  ThreadOptions threads;
  std::string model, data, out;
  engine::Precision precision = engine::Precision::FP32;
  int64_t trajectories = 0;
  int batch = 256;
  bool overwrite = false;
};

constexpr const char* kCsv = "calibration.csv";
constexpr const char* kPlotSpec = "calibration.plot.json";
constexpr const char* kPlot = "calibration.png";

// --out is checked and locked before the (long) evaluation; an earlier calibration stays
// unless --overwrite.
std::unique_ptr<OutputLock> claim_output(const CalibrateArgs& a) {
  if (a.out.empty()) return nullptr;
  check_output_not_input(a.out, "--out", {{"--data", a.data}});
  check_output_directory_free(a.out, "--out", {kCsv, kPlotSpec, kPlot}, a.overwrite);
  return std::make_unique<OutputLock>(a.out, "--out");
}

// Mean disagreement and mean error of the frames in each disagreement decile.
void deciles(const eval::EnsembleCalibration& c, std::vector<double>& d_mean, std::vector<double>& e_mean) {
  std::vector<size_t> order(c.disagreement.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return c.disagreement[a] < c.disagreement[b]; });
  for (size_t k = 0; k < 10; ++k) {
    const size_t lo = k * order.size() / 10, hi = (k + 1) * order.size() / 10;
    double d = 0, e = 0;
    for (size_t i = lo; i < hi; ++i) {
      d += c.disagreement[order[i]];
      e += c.error[order[i]];
    }
    d_mean.push_back(hi > lo ? d / double(hi - lo) : std::nan(""));
    e_mean.push_back(hi > lo ? e / double(hi - lo) : std::nan(""));
  }
}

void write_outputs(const std::string& out, const eval::EnsembleCalibration& c, const std::vector<double>& d_mean,
                   const std::vector<double>& e_mean, const std::string& title) {
  ensure_writable_directory(out);
  std::ostringstream csv;
  csv << "disagreement,error\n";
  for (size_t i = 0; i < c.error.size(); ++i) csv << c.disagreement[i] << ',' << c.error[i] << '\n';
  write_file_atomic(out + "/" + kCsv, csv.str());
  PlotOptions po;
  po.title = title;
  po.x_label = "disagreement (decile mean, standardized)";
  po.y_label = "one-step error of the mean (decile mean, NRMSE)";
  write_plot_spec(out + "/" + kPlotSpec, {{"error by disagreement decile", d_mean, e_mean, 0x1f77b4, true}},
                  po);
  draw_plots({out + "/" + kPlotSpec});
}

void run_calibrate(const CalibrateArgs& a) {
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));
  const auto lock = claim_output(a);
  Dataset data = load_dataset(a.data);
  auto members = engine::Model::load_members(a.model, model_options(a.precision));
  FN_CHECK(members.size() >= 2, a.model, " is a single model; calibration compares the members of an ensemble "
           "(flashnerd train --ensemble N)");
  const ModelConfig& cfg = members[0]->config();
  print_warnings(check_model_dataset(cfg, a.model, data, a.data, false));
  FN_CHECK(cfg.target == PredictionTarget::Increment, "calibration needs models of the full dynamics (target 'increment')");
  auto eligible = eval::eligible_trajectories(data, cfg.history(), 1);
  FN_CHECK(!eligible.empty(), a.data, " has no trajectory with ", cfg.history(), " valid steps");
  if (a.trajectories > 0 && int64_t(eligible.size()) > a.trajectories) eligible.resize(size_t(a.trajectories));
  const int batch = std::min<int>(a.batch, int(eligible.size()));
  std::vector<std::unique_ptr<eval::EngineStepModel>> steps;
  std::vector<eval::StepModel*> views;
  for (const auto& m : members) {
    steps.push_back(std::make_unique<eval::EngineStepModel>(m, batch, &pool));
    views.push_back(steps.back().get());
  }
  const eval::EnsembleCalibration c =
      eval::ensemble_calibration(views, members[0]->target_std(), cfg.norm.channel_std, data, eligible, batch);
  FN_CHECK(!c.error.empty(), a.data, ": no valid frame to calibrate on");
  std::vector<double> d_mean, e_mean;
  deciles(c, d_mean, e_mean);
  const size_t frames = c.error.size();
  const double mean_error = std::accumulate(c.error.begin(), c.error.end(), 0.0) / double(frames);
  const double member_error = std::accumulate(c.member_error.begin(), c.member_error.end(), 0.0) /
                              double(c.member_error.size());
  nlohmann::json summary = {{"model", a.model},
                            {"members", members.size()}, {"data", a.data}, {"trajectories", eligible.size()},
                            {"frames", frames}, {"spearman", c.spearman}, {"mean_error", mean_error},
                            {"member_mean_error", member_error}, {"decile_disagreement", d_mean},
                            {"decile_error", e_mean}};
  if (!a.out.empty()) {
    write_outputs(a.out, c, d_mean, e_mean,
                  str_cat(members.size(), " members on ", std::filesystem::path(a.data).filename().string(),
                          ": Spearman ", format_number(c.spearman, "%.3f")));
    summary["csv"] = a.out + "/" + kCsv;
    summary["plot"] = a.out + "/" + kPlot;
  }
  print_summary(a.common, "calibrate", summary);
}

}  // namespace

void register_calibrate(CLI::App& app) {
  const char* about = "Ensemble disagreement against one-step error on held-out data (Spearman, error by "
                      "disagreement decile, CSV and plot)";
  auto [sub, a] = add_command<CalibrateArgs>(app, "calibrate", about, run_calibrate);
  sub.add_option("--model", a.model, "An ensemble directory (flashnerd train --ensemble N)")->required();
  sub.add_option("--data", a.data, "Held-out dataset of the same robot (flashnerd gen)")->required();
  sub.add_option("--trajectories", a.trajectories, "Use the first N eligible trajectories (0: all)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--batch", a.batch, "Trajectories stepped together")->check(at_least(1))->capture_default_str();
  sub.add_option("--out", a.out, "Directory for calibration.csv and calibration.png");
  sub.add_flag("--overwrite", a.overwrite, "Replace the calibration an earlier run left in --out");
  add_precision_option(sub, a.precision);
}

}  // namespace flashnerd::cli
