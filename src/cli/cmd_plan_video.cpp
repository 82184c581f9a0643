// flashnerd plan-video: trials written by `plan --out` side by side in MuJoCo, one row per
// trial (e.g. planning with MuJoCo, FlashNeRD and NeRD on the same terrain): a PNG strip and
// an MP4, in the trials' own scene (the platform of their terrain).
#include <fstream>

#include "cli/cli_common.h"
#include "cli/video_output.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "sim/renderer.h"
#include "sim/scene.h"

namespace flashnerd::cli {

namespace {

struct PlanVideoArgs {
  CommonOptions common;
  std::vector<std::string> trials;
  VideoOutput output;
};


void run_plan_video(const PlanVideoArgs& a) {
  const auto lock = claim_video_output(a.output);
  std::vector<nlohmann::json> trials;
  for (const std::string& path : a.trials) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_file(path));
    } catch (const nlohmann::json::exception& e) {
      throw Error(str_cat("--trial '", path, "' is not valid JSON: ", e.what()));
    }
    FN_CHECK(j.contains("qpos") && j.contains("nq") && j.contains("robot"), "--trial '", path,
             "' has no states; write trials with `flashnerd plan --out`");
    trials.push_back(std::move(j));
  }
  const std::string robot_name = trials[0]["robot"].get<std::string>();
  auto robot = sim::Robot::load(robot_name);
  const int nq = robot->layout().nq;
  size_t steps = 0;
  for (size_t i = 0; i < trials.size(); ++i) {
    FN_CHECK(trials[i]["robot"] == robot_name && trials[i]["nq"].get<int>() == nq, "--trial '", a.trials[i],
             "' is of robot ", trials[i]["robot"], ", not ", robot_name);
    FN_CHECK(trials[i].value("terrain", nlohmann::json()) == trials[0].value("terrain", nlohmann::json()), "--trial '",
             a.trials[i], "' is on another terrain than '", a.trials[0], "'");
    steps = std::max(steps, trials[i]["qpos"].size() / size_t(nq));
  }
  std::vector<std::vector<double>> sequences;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> labels;
  for (size_t i = 0; i < trials.size(); ++i) {
    std::vector<double> q = trials[i]["qpos"].get<std::vector<double>>();
    while (q.size() / size_t(nq) < steps) q.insert(q.end(), q.end() - nq, q.end());  // hold the last state
    sequences.push_back(std::move(q));
    rows.push_back({{"trial", a.trials[i]}, {"backend", trials[i].value("backend", "?")},
                    {"success", trials[i].value("success", false)}});
    labels.push_back(backend_label(trials[i].value("backend", "?")) + (trials[i].value("success", false) ? ": climbed" : ": failed"));
  }
  mjModel* scene = robot->copy_model();
  if (trials[0].contains("terrain"))
    sim::apply_platform(*robot, scene,
                        {trials[0]["terrain"]["height"].get<double>(), trials[0]["terrain"]["distance"].get<double>()});
  const std::string png = a.output.strip_path(), mp4 = a.output.mp4_path();
  try {
    sim::Renderer renderer(*robot, a.output.width, a.output.height);
    renderer.use_scene(scene);
    sim::render_sequences(renderer, sequences, int(steps), nq, std::min<int>(a.output.frames, int(steps)),
                          labels, png, mp4, 1.0 / robot->control_timestep());
  } catch (...) {
    mj_deleteModel(scene);
    throw;
  }
  mj_deleteModel(scene);
  print_video_summary(a.common, a.output, "plan-video", int64_t(steps), rows);
}

}  // namespace

void register_plan_video(CLI::App& app) {
  auto [sub, a] = add_command<PlanVideoArgs>(app, "plan-video", "Planned trials side by side in MuJoCo: PNG strip and MP4", run_plan_video);
  sub.add_option("--trial", a.trials, "Trial JSON from `plan --out` (repeatable; one row each)")->required();
  add_video_output_options(sub, a.output, "plans_strip.png", "plans.mp4");
}

}  // namespace flashnerd::cli
