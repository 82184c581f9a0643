#include "cli/env_options.h"

#include <cmath>
#include <sstream>

#include "cli/option_values.h"
#include "core/error.h"

namespace flashnerd::cli {

void add_env_options(CLI::App& sub, EnvOptions& o, int default_envs, bool backend_options) {
  o.envs = default_envs;
  sub.add_option("--task", o.task,
                 "Task: a built-in task (`flashnerd tasks` lists them: quadruped-velocity, humanoid-velocity, "
                 "arm7-reach, cartpole-balance, cartpole-swingup, cube-reorient and its variants) or a task spec "
                 "file of your own (NAME.json; docs/TASK_SPECS.md)")
      ->capture_default_str();
  sub.add_option("--robot", o.robot, "Robot (built-in name, spec .json or MJCF); default: the task's robot");
  if (backend_options) {
    add_enum_option(sub, "--backend", o.backend, names_of(env::kBackendKindNames),
                    "Dynamics: mujoco, flashnerd or nerd (a trained --model); for objects in a hand: two-way or "
                    "one-way coupling of a free-velocity --model of the hand with MuJoCo's contact solve");
    sub.add_option("--model", o.model,
                   "Model artifact directory for --backend flashnerd / nerd, or the hand's free-velocity model "
                   "(two-way / one-way); an ensemble (train --ensemble N) steps all its members");
    add_enum_option(sub, "--ensemble-mode", o.ensemble_mode,
                    names_of({env::EnsembleMode::Mean, env::EnsembleMode::Random, env::EnsembleMode::Member},
                             env::ensemble_mode_name),
                    "An ensemble --model: environments advance by the members' mean increment, by a member drawn "
                    "at each reset (random), or by --ensemble-member; the members' disagreement is reported");
    sub.add_option("--ensemble-member", o.ensemble_member, "The member of --ensemble-mode member")
        ->check(at_least(0))
        ->capture_default_str();
  }
  sub.add_option("--envs", o.envs, "Environments stepped together")->check(in_range(1, 1 << 20))->capture_default_str();
  sub.add_option("--reward-scale", o.reward_scales,
                 "TERM=SCALE: another scale (per second, the reward of a step is scale * value * dt) for one of "
                 "the task's reward terms; repeatable. ppo records them: policy-eval applies a policy's own");
  sub.add_flag("--only-positive-rewards", o.only_positive_rewards,
               "Clip each step's reward at zero (legged_gym's only_positive_rewards)");
  sub.add_flag("--allow-other-mjcf", o.allow_other_mjcf, "Run a model on a robot MJCF other than its own");
  add_precision_option(sub, o.precision);
}

std::shared_ptr<const sim::Robot> env_robot(const EnvOptions& o) {
  return sim::Robot::load(o.robot.empty() ? env::task_robot(o.task) : o.robot);
}

void check_model_used(const EnvOptions& o) {
  FN_CHECK(o.backend != env::BackendKind::Mujoco || o.model.empty(), "--model ", o.model,
           " is not used by --backend mujoco; drop it, or pass --backend flashnerd / nerd");
}

env::BackendRequest backend_request(const EnvOptions& o, env::BackendKind backend, int envs) {
  env::BackendRequest r;
  r.kind = backend;
  r.model_dir = o.model;
  r.allow_other_mjcf = o.allow_other_mjcf;
  r.envs = envs;
  r.ensemble = {o.ensemble_mode, o.ensemble_member, o.ensemble_seed};
  if (backend != env::BackendKind::Mujoco) r.model_options = model_options(o.precision);
  return r;
}

EnvParts make_env_parts(const EnvOptions& o, env::BackendKind backend, int envs, ThreadPool& pool) {
  FN_CHECK(backend == env::BackendKind::Mujoco || !o.model.empty(), "--backend ", env::backend_kind_name(backend),
           " steps a trained model: pass --model DIR (from flashnerd train)");
  EnvParts p;
  p.robot = env_robot(o);
  p.task = env::make_task(o.task, *p.robot);
  apply_reward_settings(reward_settings(o), *p.task);
  std::vector<std::string> warnings;
  p.backend = env::make_backend(backend_request(o, backend, envs), p.robot, pool, &warnings);
  print_warnings(warnings);
  return p;
}

nlohmann::json reward_settings(const EnvOptions& o) {
  nlohmann::json settings = nlohmann::json::object();
  for (const std::string& item : o.reward_scales) {
    const size_t eq = item.find('=');
    double scale = 0;
    size_t pos = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      try {
        scale = std::stod(item.substr(eq + 1), &pos);
      } catch (const std::exception&) {
        ok = false;
      }
    }
    FN_CHECK(ok && pos == item.size() - eq - 1, "--reward-scale: '", item,
             "' is not TERM=SCALE (e.g. feet_air_time=0.5)");
    const std::string term = item.substr(0, eq);
    FN_CHECK(std::isfinite(scale) && std::abs(scale) <= 1e6, "--reward-scale ", item, ": the scale of ", term,
             " must be a finite number of magnitude <= 1e6, got ", item.substr(eq + 1));
    FN_CHECK(!settings.contains("scales") || !settings["scales"].contains(term), "--reward-scale ", term,
             " is given twice; give each term once");
    settings["scales"][term] = scale;
  }
  if (o.only_positive_rewards) settings["only_positive"] = true;
  return settings;
}

void apply_reward_settings(const nlohmann::json& settings, env::Task& task) {
  if (settings.contains("scales"))
    for (const auto& [term, scale] : settings.at("scales").items()) task.set_reward_scale(term, scale.get<double>());
  if (settings.value("only_positive", false)) task.set_clip_negative_reward(true);
}

std::vector<double> parse_velocity_command(const std::string& text, const std::string& option) {
  std::vector<double> c;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t pos = 0;
    try {
      c.push_back(std::stod(item, &pos));
    } catch (const std::exception&) {
      pos = std::string::npos;
    }
    FN_CHECK(pos == item.size(), option, ": '", text, "' is not vx,vy,yaw_rate");
  }
  FN_CHECK(c.size() == 3, option, ": '", text, "' is not vx,vy,yaw_rate");
  return c;
}

}  // namespace flashnerd::cli
