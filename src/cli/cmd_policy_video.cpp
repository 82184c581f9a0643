// flashnerd policy-video: policies side by side in MuJoCo (e.g. trained on FlashNeRD next
// to trained on MuJoCo): a PNG strip (one row per policy) and an MP4, one environment each,
// mean actions, the same start and (tasks with a velocity command) the same fixed command.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cli/env_options.h"
#include "cli/option_values.h"
#include "cli/video_output.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "env/spec_task.h"
#include "env/vec_env.h"
#include "rl/policy.h"
#include "sim/renderer.h"

namespace flashnerd::cli {

namespace {

struct PolicyVideoArgs {
  CommonOptions common;
  std::vector<std::string> policies;
  VideoOutput output;
  std::string command = "0.8,0,0";
  int steps = 250;
  uint64_t seed = 7;
};

// "trained on FlashNeRD": a strip row's caption; the policy's directory names rows that would
// read the same.
std::vector<std::string> row_labels(const std::vector<std::string>& trained_on, const std::vector<std::string>& dirs) {
  std::vector<std::string> labels;
  for (const auto& b : trained_on) labels.push_back("trained on " + backend_label(b));
  for (size_t i = 0; i < labels.size(); ++i) {
    if (std::count(labels.begin(), labels.end(), labels[i]) < 2) continue;
    labels[i] += " (" + std::filesystem::path(dirs[i]).lexically_normal().parent_path().filename().string() + ")";
  }
  return labels;
}

void run_policy_video(const PolicyVideoArgs& a) {
  FN_CHECK(a.output.frames <= a.steps, "--frames ", a.output.frames, " must be <= --steps ", a.steps);
  const std::vector<double> cmd = parse_velocity_command(a.command, "--command");
  const auto lock = claim_video_output(a.output);
  ThreadPool pool(1);
  std::vector<std::vector<double>> sequences;
  std::shared_ptr<const sim::Robot> robot;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> trained_on;
  int control_steps = 1;
  bool commanded = false;  // velocity-command policies: the command belongs in the summary
  for (size_t p = 0; p < a.policies.size(); ++p) {
    const rl::Policy policy = rl::Policy::load(a.policies[p]);
    EnvOptions eo;
    eo.task = policy.info().task;
    EnvParts parts = make_env_parts(eo, env::BackendKind::Mujoco, 1, pool);
    FN_CHECK(!robot || parts.robot->name() == robot->name(), "policies for different robots: ", robot->name(), " and ",
             parts.robot->name());
    robot = parts.robot;
    env::VecEnv env(*parts.task, *parts.backend, pool, a.seed);
    auto* spec = dynamic_cast<env::SpecTask*>(parts.task.get());
    const int velocity = spec ? env::velocity_command_index(*spec) : -1;
    if (velocity >= 0) spec->hold_commands(true);
    commanded |= velocity >= 0;
    env.reset_all();
    if (velocity >= 0) spec->set_command(0, velocity, cmd.data());
    env.refresh_observations();
    std::vector<float> action(size_t(env.action_dim()));
    rl::PolicyScratch scratch = policy.make_scratch();
    std::vector<double> states;
    int falls = 0;
    // the whole scene (a cube in the hand too), one frame per action
    const mjModel* m = parts.robot->model();
    std::vector<double> qpos(size_t(m->nq)), qvel(size_t(m->nv));
    control_steps = parts.task->control_steps();
    for (int s = 0; s < a.steps; ++s) {
      parts.backend->write_scene_state(0, qpos.data(), qvel.data());
      states.insert(states.end(), qpos.begin(), qpos.end());
      policy.act(env.observations(), 1, action.data(), scratch);
      env.step(action.data());
      falls += env.terminated()[0];
    }
    sequences.push_back(std::move(states));
    trained_on.push_back(policy.info().training.value("backend", "?"));
    rows.push_back({{"policy", a.policies[p]}, {"trained_on", trained_on.back()}, {"falls", falls}});
  }
  const std::vector<std::string> labels = row_labels(trained_on, a.policies);
  for (size_t p = 0; p < labels.size(); ++p) rows[p]["label"] = labels[p];
  sim::Renderer renderer(*robot, a.output.width, a.output.height);
  const std::string png = a.output.strip_path(), mp4 = a.output.mp4_path();
  sim::render_sequences(renderer, sequences, a.steps, robot->model()->nq, a.output.frames,
                        labels, png, mp4,
                        1.0 / (robot->control_timestep() * control_steps), true);
  nlohmann::json j = nlohmann::json::object();
  if (commanded) j["command"] = cmd;
  print_video_summary(a.common, a.output, "policy-video", a.steps, rows, j);
}

}  // namespace

void register_policy_video(CLI::App& app) {
  auto [sub, a] = add_command<PolicyVideoArgs>(app, "policy-video", "Policies side by side in MuJoCo: PNG strip and MP4", run_policy_video);
  sub.add_option("--policy", a.policies, "Policy directories (repeatable; one row each)")->required();
  add_video_output_options(sub, a.output, "policies_strip.png", "policies.mp4");
  sub.add_option("--command", a.command, "tasks with a velocity command: the fixed command vx,vy,yaw_rate")->capture_default_str();
  sub.add_option("--steps", a.steps, "Control steps")->check(at_least(2))->capture_default_str();
  sub.add_option("--seed", a.seed, "Seed of the start state")->capture_default_str();
}

}  // namespace flashnerd::cli
