// Options shared by the commands that build environments (ppo, policy-eval): the task, the
// robot, the backend and its model, the number of environments.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "env/backend.h"
#include "env/factory.h"
#include "env/task.h"
#include "sim/robot.h"

namespace flashnerd::cli {

struct EnvOptions {
  std::string task = "quadruped-velocity";
  std::string robot;  // default: the task's robot
  env::BackendKind backend = env::BackendKind::Mujoco;
  std::string model;
  engine::Precision precision = engine::Precision::Auto;
  env::EnsembleMode ensemble_mode = env::EnsembleMode::Mean;  // an ensemble --model
  int ensemble_member = 0;
  uint64_t ensemble_seed = 0;  // --ensemble-mode random: the members' draws (the command's --seed)
  bool allow_other_mjcf = false;
  int envs = 0;  // 0: the command's default
  std::vector<std::string> reward_scales;  // "TERM=SCALE", per second
  bool only_positive_rewards = false;
};

// What --reward-scale and --only-positive-rewards ask of the task: {"scales": {TERM: SCALE},
// "only_positive": true}, only the keys given; an empty object for the task's own rewards.
nlohmann::json reward_settings(const EnvOptions& o);

// Throws when --model is given to a command that steps MuJoCo (--backend mujoco) and would ignore it.
void check_model_used(const EnvOptions& o);
// Applies such settings (the flags', or a policy's recorded training settings) to a task.
void apply_reward_settings(const nlohmann::json& settings, env::Task& task);

// default_envs: what --envs means when not given; backend_options: --backend and --model
// (commands that compare several backends define their own).
void add_env_options(CLI::App& sub, EnvOptions& o, int default_envs, bool backend_options = true);

// The robot of --robot, or the task's own robot.
std::shared_ptr<const sim::Robot> env_robot(const EnvOptions& o);

struct EnvParts {
  std::shared_ptr<const sim::Robot> robot;
  std::unique_ptr<env::Backend> backend;
  std::unique_ptr<env::Task> task;
};
// backend: the kind to build (o.backend for the main env, MuJoCo for evaluation envs).
// What make_env_parts asks the backend factory for (also to reload a refreshed model).
env::BackendRequest backend_request(const EnvOptions& o, env::BackendKind backend, int envs);
EnvParts make_env_parts(const EnvOptions& o, env::BackendKind backend, int envs, ThreadPool& pool);

// "vx,vy,yaw_rate" (quadruped-velocity commands) as three numbers; `option` names the flag in errors.
std::vector<double> parse_velocity_command(const std::string& text, const std::string& option);

}  // namespace flashnerd::cli
