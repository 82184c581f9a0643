// flashnerd couple: the learned hand advancing with MuJoCo objects. Runs the same scripted
// commands analytically, with two-way and one-way coupling on a free_velocity model, and with
// the oracle (MuJoCo's own free dynamics); reports object and hand errors against MuJoCo,
// the hand's deflection by the object, and steps per second.
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "cli/plot_drawing.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/plot_spec.h"
#include "eval/coupled_rollout.h"
#include "sim/renderer.h"

namespace flashnerd::cli {

namespace {

struct CoupleArgs {
  engine::Precision precision = engine::Precision::Auto;  // matrix products
  CommonOptions common;
  std::string model;
  std::string scene = "hand16";
  std::string alone = "hand16_alone";
  eval::HandMotion motion = eval::HandMotion::Random;
  int envs = 16;
  int steps = 240;
  uint64_t seed = 0;
  ThreadOptions threads;
  std::string plots;
};

void run_couple(const CoupleArgs& a) {
  const int threads = checked_threads(a.threads.threads, a.threads.force_threads);
  auto scene = sim::Robot::load(a.scene);
  auto alone = sim::Robot::load(a.alone);
  auto model = engine::Model::load(a.model, model_options(a.precision));
  ThreadPool pool(threads);
  eval::CoupledOptions o;
  o.envs = a.envs;
  o.steps = a.steps;
  o.motion = a.motion;
  o.seed = a.seed;
  auto r = eval::run_coupled_comparison(scene, alone, model, o, pool);

  const double seconds = r.dt * a.steps;
  nlohmann::json modes = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : r.modes) {
    modes.push_back({{"mode", m.mode},
                     {"cube_position_error_m", m.cube_position_error.back()},
                     {"cube_orientation_error_rad", m.cube_orientation_error.back()},
                     {"hand_error_rad", m.hand_error.back()},
                     {"steps_per_second", m.steps_per_second}});
    rows.push_back({m.mode, format_number(m.cube_position_error.back()), format_number(m.cube_orientation_error.back()),
                    format_number(m.hand_error.back()), format_number(m.steps_per_second)});
  }
  nlohmann::json j = {{"scene", a.scene}, {"precision", engine::precision_name(model->precision())}, {"motion", eval::hand_motion_name(a.motion)}, {"envs", a.envs}, {"steps", a.steps},
                      {"seconds", seconds}, {"modes", modes},
                      {"hand_deflection_rad", r.hand_deflection.back()}};
  if (!a.plots.empty()) {
    ensure_writable_directory(a.plots);
    const uint32_t colors[] = {0x000000, 0x1f77b4, 0xd62728, 0x2ca02c};
    std::vector<PlotSeries> series;
    for (size_t i = 1; i < r.modes.size(); ++i) {
      PlotSeries s;
      s.label = r.modes[i].mode;
      s.rgb = colors[i];
      for (int t = 0; t < a.steps; ++t) {
        s.x.push_back((t + 1) * r.dt);
        s.y.push_back(std::max(1e-12, r.modes[i].cube_position_error[size_t(t)]));
      }
      series.push_back(s);
    }
    PlotOptions po;
    po.title = str_cat("Cube position error against MuJoCo (", eval::hand_motion_name(a.motion), ", ", a.envs, " envs)");
    po.x_label = "time (s)";
    po.y_label = "mean cube position error (m)";
    po.log_y = true;
    const std::string spec = a.plots + "/coupling_cube_error.plot.json";
    write_plot_spec(spec, series, po);
    j["plot_data"] = spec;
    if (!draw_plots({spec}).empty()) j["plot"] = plot_png_path(spec);
    // environment 0 in each mode: rows analytical, two-way, one-way at evenly spaced times
    sim::Renderer renderer(*scene, 240, 180);
    const int cols = 6, nq = scene->model()->nq;
    std::vector<sim::Image> tiles;
    const char* row_labels[] = {"MuJoCo", "two-way", "one-way"};
    for (int row = 0; row < 3; ++row) {
      for (int c = 0; c < cols; ++c) {
        int t = c * (a.steps - 1) / (cols - 1);
        tiles.push_back(renderer.render(r.modes[size_t(row)].first_env_qpos.data() + size_t(t) * nq, true,
                                        row_labels[row], sim::time_caption((t + 1) * r.dt)));
      }
    }
    std::string strip = a.plots + "/coupling_strip.png";
    sim::write_png(strip, sim::tile_images(tiles, 3, cols));
    j["strip"] = strip;
  }
  if (a.common.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("\nCoupled stepping, %s motion, %d envs x %d steps (%.2f s): errors at the end against MuJoCo\n%s",
              eval::hand_motion_name(a.motion), a.envs, a.steps, seconds,
              format_table({"mode", "cube pos err (m)", "cube rot err (rad)", "hand err (rad)", "env steps/s"}, rows).c_str());
  std::printf("hand deflection by the cube (two-way vs one-way, RMS joint angle): %.4g rad\n", r.hand_deflection.back());
  if (j.contains("plot")) std::printf("plot: %s\nstrip: %s (rows: MuJoCo, two-way, one-way)\n",
                                      j["plot"].get<std::string>().c_str(), j["strip"].get<std::string>().c_str());
}

}  // namespace

void register_couple(CLI::App& app) {
  auto [sub, a] = add_command<CoupleArgs>(app, "couple", "Two-way vs one-way coupling of a learned robot with MuJoCo "
                                          "objects", run_couple);
  add_precision_option(sub, a.precision);
  sub.add_option("--model", a.model, "A model trained with --target free_velocity")->required();
  sub.add_option("--scene", a.scene, "Robot + objects (built-in name or path)")->capture_default_str();
  sub.add_option("--alone", a.alone, "The same robot without objects")->capture_default_str();
  add_enum_option(sub, "--motion", a.motion, names_of(eval::kHandMotionNames), "Scripted commands: grasp, push or random");
  sub.add_option("--envs", a.envs, "Environments")->check(positive())->capture_default_str();
  sub.add_option("--steps", a.steps, "Steps (240 = 1 s for hand16)")->check(positive())->capture_default_str();
  sub.add_option("--seed", a.seed, "Seed of the random commands")->capture_default_str();
  sub.add_option("--plots", a.plots, "Directory for the PNG plot");
}

}  // namespace flashnerd::cli
