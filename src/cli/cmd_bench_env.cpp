// flashnerd bench-env: environment steps per second of each backend inside a VecEnv (task
// bookkeeping, probes or contact detection included), with random actions, in one run:
// MuJoCo, then each trained model given (or random-weight FlashNeRD and NeRD of a preset).
// The table splits the time into dynamics, sensing and task and gives the ratio to MuJoCo.
#include <chrono>
#include <cmath>

#include "cli/env_options.h"
#include "cli/option_values.h"
#include "core/error.h"
#include "core/rng.h"
#include "env/factory.h"
#include "env/learned_backend.h"
#include "core/model_artifact.h"
#include "env/vec_env.h"

namespace flashnerd::cli {

namespace {

struct BenchEnvArgs {
  CommonOptions common;
  ThreadOptions threads;
  EnvOptions env;
  std::vector<std::string> models;
  ModelPreset preset = ModelPreset::Small;
  int members = 0;  // also a random-weight FlashNeRD ensemble of this many members (0: none)
  int steps = 50;
  int warmup = 5;
  uint64_t seed = 1;
};

struct Rate {
  std::string backend;
  double steps_per_second = 0, dynamics = 0, sensing = 0, task = 0;
};

Rate measure(env::Backend& backend, env::Task& task, ThreadPool& pool, const BenchEnvArgs& a) {
  env::VecEnv env(task, backend, pool, a.seed);
  env.reset_all();
  std::vector<float> actions(size_t(env.envs()) * size_t(env.action_dim()));
  Rng rng(a.seed);
  auto draw = [&] {
    for (float& x : actions) x = float(rng.normal(0.0, 0.5));
  };
  for (int s = 0; s < a.warmup; ++s) {
    draw();
    env.step(actions.data());
  }
  backend.clear_timings();
  const double task0 = env.task_seconds();
  double stepping = 0;
  for (int s = 0; s < a.steps; ++s) {
    draw();  // off the clock
    const auto t0 = std::chrono::steady_clock::now();
    env.step(actions.data());
    stepping += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  Rate r;
  r.backend = backend.kind();
  r.steps_per_second = double(a.steps) * env.envs() / stepping;
  r.dynamics = backend.timings().dynamics_seconds / stepping;
  r.sensing = backend.timings().sensing_seconds / stepping;
  r.task = (env.task_seconds() - task0) / stepping;
  return r;
}

void run_bench_env(const BenchEnvArgs& a) {
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));
  std::vector<Rate> rates;
  {
    EnvParts p = make_env_parts(a.env, env::BackendKind::Mujoco, a.env.envs, pool);
    rates.push_back(measure(*p.backend, *p.task, pool, a));
  }
  auto robot = env_robot(a.env);
  auto task = env::make_task(a.env.task, *robot);
  const engine::ModelOptions mo = model_options(a.env.precision);
  std::vector<std::pair<std::string, std::shared_ptr<const engine::Model>>> models;
  if (a.models.empty()) {
    for (Arch arch : {Arch::FlashNeRD, Arch::NeRD})
      models.push_back({str_cat("random ", preset_name(a.preset)),
                        engine::Model::random(env::random_robot_model_config(*robot, arch, a.preset, true), a.seed, mo)});
  }
  for (const auto& dir : a.models) {
    EnvOptions eo = a.env;
    eo.model = dir;
    eo.backend = load_model_config(dir).arch == Arch::FlashNeRD ? env::BackendKind::FlashNeRD : env::BackendKind::NeRD;
    EnvParts p = make_env_parts(eo, eo.backend, a.env.envs, pool);
    Rate r = measure(*p.backend, *p.task, pool, a);
    r.backend += " (" + dir + ")";
    rates.push_back(r);
  }
  for (const auto& [label, model] : models) {
    env::LearnedBackend backend(robot, model, a.env.envs, pool);
    Rate r = measure(backend, *task, pool, a);
    r.backend += " (" + label + ")";
    rates.push_back(r);
  }
  if (a.members > 0) {  // independent random members, stepped together with their disagreement
    std::vector<std::shared_ptr<const engine::Model>> members;
    for (int m = 0; m < a.members; ++m)
      members.push_back(engine::Model::random(env::random_robot_model_config(*robot, Arch::FlashNeRD, a.preset, true),
                                              a.seed + uint64_t(m), mo));
    env::LearnedBackend backend(robot, members, a.env.envs, pool, env::EnsembleUse{env::EnsembleMode::Random, 0, a.seed});
    Rate r = measure(backend, *task, pool, a);
    r.backend += str_cat(" (random ", preset_name(a.preset), ", ensemble of ", a.members, ")");
    rates.push_back(r);
  }
  std::vector<std::vector<std::string>> rows;
  nlohmann::json summary = {{"task", a.env.task}, {"envs", a.env.envs}, {"threads", pool.size()}, {"steps", a.steps}};
  for (const Rate& r : rates) {
    const double ratio = r.steps_per_second / rates[0].steps_per_second;
    rows.push_back({r.backend, format_number(r.steps_per_second, "%.0f"), format_number(100 * r.dynamics, "%.0f%%"),
                    format_number(100 * r.sensing, "%.0f%%"), format_number(100 * r.task, "%.0f%%"),
                    format_number(ratio, "%.2fx")});
    summary["backends"].push_back({{"backend", r.backend}, {"env_steps_per_second", r.steps_per_second},
                                   {"dynamics_share", r.dynamics}, {"sensing_share", r.sensing},
                                   {"task_share", r.task}, {"ratio_to_mujoco", ratio}});
  }
  if (!a.common.json)
    std::printf("%s, %d envs, %d threads, %d steps:\n%s\n", a.env.task.c_str(), a.env.envs, pool.size(), a.steps,
                format_table({"backend", "env steps/s", "dynamics", "sensing", "task", "vs mujoco"}, rows).c_str());
  else
    print_summary(a.common, "bench-env", summary);
}

}  // namespace

void register_bench_env(CLI::App& app) {
  auto [sub, a] = add_command<BenchEnvArgs>(app, "bench-env", "Environment steps/s of MuJoCo and learned backends "
                                            "inside a VecEnv", run_bench_env);
  add_env_options(sub, a.env, 4096, false);
  sub.add_option("--model", a.models, "Trained models to compare (repeatable); default: random weights of --preset");
  add_enum_option(sub, "--preset", a.preset, names_of(kModelPresetNames), "Preset of the random-weight models");
  sub.add_option("--members", a.members,
                 "Also time a random-weight FlashNeRD ensemble (with probes) of this many members")
      ->check(in_range(0, 16))->capture_default_str();
  sub.add_option("--steps", a.steps, "Timed steps")->check(at_least(1))->capture_default_str();
  sub.add_option("--warmup", a.warmup, "Untimed steps first")->check(at_least(0))->capture_default_str();
  sub.add_option("--seed", a.seed, "Seed of resets, actions and random weights")->capture_default_str();
}

}  // namespace flashnerd::cli
