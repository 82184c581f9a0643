// flashnerd rollout: renders rollouts next to MuJoCo's ground truth (EGL offscreen): a PNG
// strip (top row MuJoCo, one row per model) and an MP4 with the panels side by side, so a
// user sees where a model drifts. Without --model it renders the recorded trajectory only.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "cli/video_output.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/model_dataset_check.h"
#include "engine/engine.h"
#include "eval/engine_step_model.h"
#include "sim/renderer.h"
#include "sim/scene.h"

namespace flashnerd::cli {

namespace {

struct RolloutArgs : ModelDataOptions {
  CommonOptions common;
  VideoOutput output;
  int64_t trajectory = -1;  // -1: the first eligible
  int steps = 200;
};


void run_rollout(const RolloutArgs& a) {
  const auto lock = claim_video_output(a.output);
  Dataset data = load_dataset(a.data);
  auto robot = sim::Robot::from_spec(sim::RobotSpec::from_json(data.generator.at("spec"), a.data));
  ThreadPool pool(1);
  std::vector<std::shared_ptr<const engine::Model>> models;
  int history = 1;
  for (const auto& dir : a.models) {
    models.push_back(engine::Model::load(dir, model_options(a.precision)));
    print_warnings(check_model_dataset(models.back()->config(), dir, data, a.data, a.allow_other_mjcf));
    history = std::max(history, models.back()->config().history());
  }
  auto eligible = eval::eligible_trajectories(data, history, a.steps);
  FN_CHECK(!eligible.empty(), "no trajectory of ", a.data, " has ", history + a.steps - 1,
           " valid steps; lower --steps (the file has ", data.steps, " per trajectory)");
  int64_t n = a.trajectory >= 0 ? a.trajectory : eligible[0];
  FN_CHECK(std::find(eligible.begin(), eligible.end(), n) != eligible.end(), "trajectory ", n,
           " is not valid for ", a.steps, " steps; try one of the first eligible: ", eligible[0]);

  // rows: MuJoCo, then each model's rollout; all start at frame `history`
  const int nq = data.layout.nq;
  std::vector<std::vector<double>> rows;  // (steps, nq) per row
  std::vector<int> diverged;
  {
    std::vector<double> truth;
    for (int h = 0; h < a.steps; ++h) truth.insert(truth.end(), data.q(n, history + h), data.q(n, history + h) + nq);
    rows.push_back(truth);
    diverged.push_back(-1);
  }
  for (auto& m : models) {
    // every row starts at frame `history`: a model with a shorter history rolls out longer
    // and its first (history - R) predictions are dropped
    const int offset = history - m->config().history();
    eval::EngineStepModel sm(m, 1, &pool);
    eval::RolloutOptions ro;
    ro.horizon = a.steps + offset;
    ro.batch = 1;
    if (m->config().probe_dim > 0 || m->config().contact.enabled()) ro.robot = robot.get();
    ro.climbing_probes = data.generator.value("climbing_probes", false);
    auto r = eval::run_rollouts(sm, data, {n}, ro, pool);
    rows.emplace_back(r.qpos.begin() + size_t(offset) * nq, r.qpos.end());
    diverged.push_back(r.diverged_at[0] < 0 ? -1 : std::max(0, r.diverged_at[0] - offset));
  }

  sim::Renderer renderer(*robot, a.output.width, a.output.height);
  std::unique_ptr<mjModel, void (*)(mjModel*)> scene(robot->copy_model(), mj_deleteModel);
  if (sim::randomizes_scene(*robot)) {  // this trajectory's platform
    sim::apply_trajectory_scene(*robot, scene.get(), data.seed, n);
    renderer.use_scene(scene.get());
  }
  const std::string png = a.output.strip_path(), mp4 = a.output.mp4_path();
  std::vector<std::string> labels = {"MuJoCo"};
  for (size_t i = 0; i < models.size(); ++i) labels.push_back(model_label(models[i]->config(), a.models[i]));
  sim::render_sequences(renderer, rows, a.steps, nq, a.output.frames, labels, png, mp4,
                        1.0 / data.timestep);
  nlohmann::json row_info = nlohmann::json::array();
  row_info.push_back({{"label", "MuJoCo"}});
  for (size_t i = 0; i < models.size(); ++i)
    row_info.push_back({{"label", labels[i + 1]}, {"model", a.models[i]}, {"diverged_at", diverged[i + 1]}});
  print_video_summary(a.common, a.output, "flashnerd rollout", a.steps, row_info,
                      {{"trajectory", n}, {"precision", a.precision}});
}

}  // namespace

void register_rollout(CLI::App& app) {
  auto [sub, a] = add_command<RolloutArgs>(app, "rollout", "Render model rollouts next to MuJoCo (PNG strip + MP4)",
                                           run_rollout);
  add_model_data_options(sub, a, "Model directory (repeat for several; none: the recording only)",
                         "Dataset with the recorded trajectory (HDF5)", "Roll out");
  add_video_output_options(sub, a.output, "rollout_strip.png", "rollout.mp4");
  sub.add_option("--trajectory", a.trajectory, "Trajectory index (default: the first long enough)");
  sub.add_option("--steps", a.steps, "Steps to roll out")->check(at_least(1))->capture_default_str();
}

}  // namespace flashnerd::cli
