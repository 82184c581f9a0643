// flashnerd policy-eval: run a trained policy's mean actions in MuJoCo (or a learned backend)
// and report its training reward per term; for tasks with a velocity command also the velocity tracking
// per fixed command.
#include <cmath>

#include "cli/env_options.h"
#include "cli/option_values.h"
#include "core/bootstrap.h"
#include "core/error.h"
#include "core/rotation.h"
#include "env/spec_task.h"
#include "env/vec_env.h"
#include "rl/policy_eval.h"

namespace flashnerd::cli {

namespace {

struct PolicyEvalArgs {
  CommonOptions common;
  ThreadOptions threads;
  EnvOptions env;
  std::string policy;
  int steps = 1000;
  uint64_t seed = 7;
  std::string commands = "1,0,0;-1,0,0;0,0.7,0;0,0,1;0.7,0,0.5";
  int command_steps = 250;
};

struct Tracking {
  double command[3];
  double achieved[3] = {0, 0, 0};
  int64_t terminations = 0;
};

// Mean body-frame (vx, vy, yaw rate) under a fixed command, after one second of settling.
Tracking track_command(env::VecEnv& env, env::SpecTask& task, int velocity, const rl::Policy& policy,
                       const double cmd[3], int steps) {
  Tracking t;
  std::copy(cmd, cmd + 3, t.command);
  task.hold_commands(true);
  env.reset_all();
  for (int e = 0; e < env.envs(); ++e) task.set_command(e, velocity, cmd);
  env.refresh_observations();
  std::vector<float> actions(size_t(env.envs()) * size_t(env.action_dim()));
  rl::PolicyScratch scratch = policy.make_scratch();
  const int settle = std::min(steps / 2, int(std::lround(1.0 / env.backend().control_timestep())));
  int64_t samples = 0;
  for (int s = 0; s < steps; ++s) {
    policy.act(env.observations(), env.envs(), actions.data(), scratch);
    env.step(actions.data());
    for (int e = 0; e < env.envs(); ++e) {
      t.terminations += env.terminated()[e];
      if (s < settle || env.episode_step(e) < settle) continue;
      const double* q = env.backend().q(e);
      const double* v = env.backend().v(e);
      double lin[3];
      rot::quat_rotate_inv(q + 3, v, lin);
      t.achieved[0] += lin[0];
      t.achieved[1] += lin[1];
      t.achieved[2] += v[5];
      ++samples;
    }
  }
  for (double& x : t.achieved) x /= double(std::max<int64_t>(1, samples));
  task.hold_commands(false);
  return t;
}

// The paper's IV-D figures over the first episode of every environment: targets reached per
// episode with a 95% bootstrap interval, the share of episodes reaching two or more, and the
// drop rate (episodes ended by a dropped cube) with its interval.
nlohmann::json reorientation_summary(const rl::PolicyEvaluation& r, const std::vector<env::RewardTerm>& terms) {
  std::vector<double> targets, drops;
  for (size_t k = 0; k < terms.size(); ++k)
    if (terms[k].name == "success") targets = r.episode_term_sums[k];
  FN_ASSERT(!targets.empty());
  int two_or_more = 0;
  for (double t : targets) two_or_more += t >= 2;
  for (uint8_t d : r.episode_terminated) drops.push_back(d);
  const MeanInterval t = bootstrap_mean(targets, 0.95, 2000, 1), d = bootstrap_mean(drops, 0.95, 2000, 2);
  return {{"episodes", targets.size()},
          {"targets_per_episode", t.mean}, {"targets_per_episode_ci95", {t.low, t.high}},
          {"share_two_or_more_targets", double(two_or_more) / double(targets.size())}, {"drop_rate", d.mean},
          {"drop_rate_ci95", {d.low, d.high}}};
}

// The success rate of a term that judges command periods (a reach task's targets): successes
// over the periods of the first episodes, with a 95% bootstrap interval over episodes.
nlohmann::json success_summary(const rl::PolicyEvaluation& r, size_t term, int periods) {
  std::vector<double> rates;
  for (double successes : r.episode_term_sums[term]) rates.push_back(successes / periods);
  const MeanInterval m = bootstrap_mean(rates, 0.95, 2000, 3);
  return {{"episodes", rates.size()}, {"periods_per_episode", periods}, {"rate", m.mean}, {"rate_ci95", {m.low, m.high}}};
}

void run_policy_eval(const PolicyEvalArgs& a) {
  const rl::Policy policy = rl::Policy::load(a.policy);
  EnvOptions eo = a.env;
  eo.ensemble_seed = a.seed;
  check_model_used(eo);
  if (eo.task.empty() || eo.task == "auto") eo.task = policy.info().task;
  FN_CHECK(eo.task == policy.info().task, "policy ", a.policy, " was trained on task '", policy.info().task,
           "', not '", eo.task, "'");
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));
  EnvParts parts = make_env_parts(eo, eo.backend, eo.envs, pool);
  FN_CHECK(parts.robot->name() == policy.info().robot, "policy ", a.policy, " is for robot '", policy.info().robot,
           "', not '", parts.robot->name(), "'");
  if (!policy.info().mjcf_hash.empty() && policy.info().mjcf_hash != parts.robot->mjcf_hash())
    print_warnings({str_cat("policy ", a.policy, " was trained on MJCF ", policy.info().mjcf_hash, "; robot '",
                            parts.robot->name(), "' is MJCF ", parts.robot->mjcf_hash())});
  // the reward the policy was trained for: its recorded settings, then this command's flags
  const nlohmann::json trained = policy.info().training.value("reward_settings", nlohmann::json::object());
  apply_reward_settings(trained, *parts.task);
  apply_reward_settings(reward_settings(eo), *parts.task);
  env::VecEnv env(*parts.task, *parts.backend, pool, a.seed);
  const rl::PolicyEvaluation r = rl::evaluate_policy(env, policy, a.steps);
  nlohmann::json summary = {{"policy", a.policy}, {"task", eo.task},   {"backend", parts.backend->kind()},
                            {"envs", eo.envs},     {"steps", a.steps},  {"episode_reward", r.episode_reward},
                            {"terminations", r.terminations}, {"timeouts", r.timeouts}, {"seconds", r.seconds}};
  if (!trained.empty()) summary["reward_settings_of_training"] = trained;
  const auto& terms = parts.task->reward_terms();
  for (size_t k = 0; k < terms.size(); ++k) summary["term_" + terms[k].name] = r.terms[k];
  if (parts.task->name().rfind("cube-reorient", 0) == 0) summary["reorientation"] = reorientation_summary(r, terms);
  auto* spec = dynamic_cast<env::SpecTask*>(parts.task.get());
  for (size_t k = 0; spec && k < terms.size(); ++k)
    if (const int periods = spec->judged_periods(k); periods > 0)
      summary["success_" + terms[k].name] = success_summary(r, k, periods);
  const int velocity = spec ? env::velocity_command_index(*spec) : -1;
  if (velocity >= 0 && !a.commands.empty()) {
    nlohmann::json tracking = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    std::string rest = a.commands;
    while (!rest.empty()) {
      const size_t semi = rest.find(';');
      const std::string one = rest.substr(0, semi);
      rest = semi == std::string::npos ? "" : rest.substr(semi + 1);
      const std::vector<double> c = parse_velocity_command(one, "--commands");
      const Tracking t = track_command(env, *spec, velocity, policy, c.data(), a.command_steps);
      const double err = std::hypot(t.achieved[0] - c[0], t.achieved[1] - c[1]);
      tracking.push_back({{"command", c}, {"achieved", t.achieved}, {"planar_error", err},
                          {"yaw_rate_error", std::fabs(t.achieved[2] - c[2])}, {"terminations", t.terminations}});
      rows.push_back({format_number(c[0]) + ", " + format_number(c[1]) + ", " + format_number(c[2]),
                      format_number(t.achieved[0], "%.3f") + ", " + format_number(t.achieved[1], "%.3f") + ", " +
                          format_number(t.achieved[2], "%.3f"),
                      format_number(err, "%.3f"), format_number(std::fabs(t.achieved[2] - c[2]), "%.3f"),
                      std::to_string(t.terminations)});
    }
    summary["tracking"] = tracking;
    if (!a.common.json)
      std::printf("velocity tracking (%d envs x %d steps per command, body frame, after 1 s):\n%s\n", eo.envs,
                  a.command_steps,
                  format_table({"command vx, vy, yaw", "achieved", "|v_xy err|", "|yaw err|", "falls"}, rows).c_str());
  }
  print_summary(a.common, "policy-eval", summary);
}

}  // namespace

void register_policy_eval(CLI::App& app) {
  auto [sub, a] = add_command<PolicyEvalArgs>(app, "policy-eval", "Run a trained policy (mean actions) in MuJoCo and "
                                              "report its reward", run_policy_eval);
  add_env_options(sub, a.env, 256);
  a.env.task = "auto";  // the policy's own task; the help shows that, not add_env_options' default
  sub.get_option("--task")->default_str("auto")->description(
      sub.get_option("--task")->get_description() + "; auto: the task the policy was trained for");
  sub.add_option("--policy", a.policy, "Policy directory (policy.json + policy.safetensors)")->required();
  sub.add_option("--steps", a.steps, "Steps of every environment (auto-reset)")->check(at_least(1))
      ->capture_default_str();
  sub.add_option("--seed", a.seed, "Seed of resets and commands")->capture_default_str();
  sub.add_option("--commands", a.commands,
                 "tasks with a velocity command (quadruped-velocity, humanoid-velocity): fixed commands 'vx,vy,yaw;...' for the tracking table ('' = none)")
      ->capture_default_str();
  sub.add_option("--command-steps", a.command_steps, "Steps per fixed command")->check(at_least(1))
      ->capture_default_str();
}

}  // namespace flashnerd::cli
