// flashnerd ppo: train a policy with PPO on a task, stepping MuJoCo or a learned model, and
// export it as a libtorch-free policy artifact (--out/policy).
#include <cmath>

#include "cli/env_options.h"
#include "cli/option_values.h"
#include "cli/plot_drawing.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/log_number.h"
#include "core/model_artifact.h"
#include "env/factory.h"
#include "core/progress.h"
#include "env/vec_env.h"
#include "rl/ppo_memory.h"
#include "rl/ppo_runner.h"

namespace flashnerd::cli {

namespace {

// "128,64,32": hidden widths as --hidden spells them.
std::string widths_text(const std::vector<int>& widths) {
  std::string s;
  for (int w : widths) s += (s.empty() ? "" : ",") + std::to_string(w);
  return s;
}

// "500:1000": from the refresh at iteration 500 on, 1000 updates per refresh.
rl::RefreshUpdatesFrom parse_updates_from(const std::string& text) {
  const size_t colon = text.find(':');
  FN_CHECK(colon != std::string::npos, "--refresh-updates-from takes ITERATION:UPDATES, got '", text, "'");
  const std::vector<int64_t> from = parse_int_list(text.substr(0, colon), "--refresh-updates-from's iteration");
  const std::vector<int64_t> updates = parse_int_list(text.substr(colon + 1), "--refresh-updates-from's updates");
  FN_CHECK(from.size() == 1 && updates.size() == 1 && from[0] <= (1 << 30),
           "--refresh-updates-from takes ITERATION:UPDATES, got '", text, "'");
  return {int(from[0]), updates[0]};
}

// The flags bind straight to the library's run options, so each default is declared once.
struct PpoArgs {
  CommonOptions common;
  ThreadOptions threads;
  EnvOptions env;
  rl::PpoRunOptions run;
  std::string hidden = widths_text(rl::PpoConfig{}.actor_hidden);  // actor and critic
  int eval_envs = 64;
  int real_envs = 0;  // model-based PPO: MuJoCo environments the policy explores (0: none)
  std::vector<std::string> refresh_updates_from;  // "ITERATION:UPDATES", each
  env::UncertaintyOptions uncertainty;
};

std::vector<int> hidden_widths(const PpoArgs& a) {
  std::vector<int> hidden;
  for (int64_t h : parse_int_list(a.hidden, "--hidden")) {
    FN_CHECK(h >= 1 && h <= 4096, "--hidden widths must be in [1, 4096], got ", h);
    hidden.push_back(int(h));
  }
  return hidden;
}

// The whole run's memory (rl/ppo_memory.h), checked before the first environment is made.
void check_ppo_memory(const PpoArgs& a, const EnvOptions& eo, const std::vector<int>& hidden) {
  const auto robot = env_robot(eo);
  const auto task = env::make_task(eo.task, *robot);
  rl::PpoRunOptions o = a.run;
  o.ppo.actor_hidden = o.ppo.critic_hidden = hidden;
  const StateLayout& l = robot->layout();
  rl::PpoMemoryShape s{eo.envs, a.real_envs, task->observation_dim(), task->action_dim(), 0, l.nq, l.nv, l.nu};
  if (!eo.model.empty()) s.history_frames = load_model_config(model_member_dirs(eo.model).front()).history();
  s.environments = env::environment_bytes(backend_request(eo, eo.backend, eo.envs), *robot, *task);
  if (a.run.eval_every > 0)
    s.eval_environments = env::environment_bytes(backend_request(eo, env::BackendKind::Mujoco, a.eval_envs), *robot, *task);
  if (a.real_envs > 0)
    s.real_environments = env::environment_bytes(backend_request(eo, env::BackendKind::Mujoco, a.real_envs), *robot, *task);
  rl::ppo_memory_plan(o, s).check("use fewer --envs, --steps-per-env, --start-buffer or --refresh-windows");
}

void run_ppo_command(const PpoArgs& a) {
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));
  EnvOptions eo = a.env;
  eo.ensemble_seed = a.run.seed;
  check_model_used(eo);
  const std::vector<int> hidden = hidden_widths(a);
  check_ppo_memory(a, eo, hidden);
  EnvParts parts = make_env_parts(eo, eo.backend, eo.envs, pool);
  env::VecEnv env(*parts.task, *parts.backend, pool, a.run.seed);
  env.set_uncertainty(a.uncertainty);
  // evaluation in the analytic simulator, off the training clock
  EnvParts eval_parts;
  std::unique_ptr<env::VecEnv> eval_env;
  if (a.run.eval_every > 0) {
    eval_parts = make_env_parts(a.env, env::BackendKind::Mujoco, a.eval_envs, pool);
    eval_env = std::make_unique<env::VecEnv>(*eval_parts.task, *eval_parts.backend, pool, a.run.seed + 1000003);
  }
  // model-based PPO: MuJoCo as the real system in the loop (its own seed streams)
  EnvParts real_parts;
  std::unique_ptr<env::VecEnv> real_env;
  if (a.real_envs > 0) {
    FN_CHECK(eo.backend != env::BackendKind::Mujoco, "ppo: --real-envs runs MuJoCo beside a learned --backend "
             "(flashnerd or nerd); with --backend mujoco every environment is already real");
    real_parts = make_env_parts(a.env, env::BackendKind::Mujoco, a.real_envs, pool);
    real_env = std::make_unique<env::VecEnv>(*real_parts.task, *real_parts.backend, pool, a.run.seed + 2000003);
  }
  rl::PpoRunOptions o = a.run;
  o.real.env = real_env.get();
  for (const std::string& text : a.refresh_updates_from) o.refresh.updates_from.push_back(parse_updates_from(text));
  if (o.refresh.on()) {
    FN_CHECK(real_env != nullptr, "ppo: --refresh-every fine-tunes the model on windows the policy explores in "
             "MuJoCo: add --real-envs N");
    o.refresh.model_dir = a.env.model;
    o.refresh.robot = real_parts.robot;
    o.refresh.pool = &pool;
    const bool say = a.run.progress;
    o.refresh.generate = rl::data_options_for(load_model_config(model_member_dirs(a.env.model).front()),
                                              *real_parts.robot);
    o.refresh.load = [&a, &parts, say](const std::string& dir) {
      env::BackendRequest r = backend_request(a.env, a.env.backend, a.env.envs);
      r.model_dir = dir;
      env::reload_learned_model(*parts.backend, r);
      if (say) std::fprintf(stderr, "\nppo: the imagined environments now step %s\n", dir.c_str());
    };
  }
  o.ppo.actor_hidden = o.ppo.critic_hidden = hidden;
  o.eval_env = eval_env.get();
  o.reward_settings = reward_settings(a.env);
  if (!a.env.model.empty()) o.model_fingerprint = model_fingerprint(a.env.model);
  o.run_info = {{"model", a.env.model}, {"envs", a.env.envs}, {"steps_per_env", o.ppo.steps_per_env}, {"seed", o.seed}};
  if (parts.backend->ensemble_size() > 1)
    o.run_info["ensemble"] = {{"members", parts.backend->ensemble_size()}, {"mode", env::ensemble_mode_name(a.env.ensemble_mode)},
                              {"uncertainty_penalty", a.uncertainty.penalty},
                              {"uncertainty_truncate_above", a.uncertainty.truncate_above}};
  const rl::PpoRunResult r = rl::run_ppo(env, o);
  const rl::IterationRow& last = r.rows.back();
  double dyn = 0, sense = 0, policy = 0, update = 0, task = 0, real = 0, refresh = 0, replay = 0;
  for (const auto& row : r.rows) {
    dyn += row.dynamics_s;
    sense += row.sensing_s;
    policy += row.policy_s;
    update += row.update_s;
    task += row.task_s;
    real += row.real_s;
    refresh += row.refresh_s;
    replay += row.refresh_replay_s;
  }
  nlohmann::json summary = {
      {"task", a.env.task}, {"backend", parts.backend->kind()}, {"iterations", last.iteration},
      {"transitions", last.transitions}, {"seconds", last.seconds},
      {"return_finished_episodes", finite_or_null(last.finished_return)}, {"reward_per_step", last.reward_per_step},
      {"eval_reward_mujoco", finite_or_null(last.eval_reward)},
      {"env_steps_per_second_dynamics", double(last.transitions) / std::max(1e-9, dyn + sense + task)},
      {"seconds_dynamics", dyn}, {"seconds_sensing", sense}, {"seconds_policy", policy}, {"seconds_update", update},
      {"seconds_task", task}, {"policy", a.run.out_dir + "/policy"}};
  if (real_env) {
    summary["real_transitions"] = last.real_transitions;
    summary["seconds_real"] = real;
  }
  if (o.refresh.on()) {
    summary["refresh_updates"] = last.refresh_updates;
    summary["seconds_refresh"] = refresh;
    summary["seconds_refresh_replay"] = replay;
  }
  const auto plots = draw_plots({a.run.out_dir + "/reward_vs_time.plot.json", a.run.out_dir + "/reward_vs_transitions.plot.json"});
  if (!plots.empty()) summary["plots"] = plots;
  print_summary(a.common, "ppo", summary);
}

}  // namespace

void register_ppo(CLI::App& app) {
  auto [sub, a] = add_command<PpoArgs>(app, "ppo", "Train a policy with PPO on MuJoCo or a learned model (--backend)",
                                       run_ppo_command);
  rl::PpoRunOptions& r = a.run;
  add_env_options(sub, a.env, 4096);
  sub.add_option("--out", r.out_dir, "Run directory: checkpoint.pt, log.csv, reward curves, policy/")->required();
  sub.add_option("--iterations", r.iterations, "PPO iterations (a resume continues to it)")->check(at_least(1))
      ->capture_default_str();
  sub.add_option("--uncertainty-penalty", a.uncertainty.penalty,
                 "An ensemble --model: each step's reward loses this x the members' disagreement x dt (MOPO)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--uncertainty-truncate", a.uncertainty.truncate_above,
                 "An ensemble --model: truncate (bootstrap) an episode at a step whose disagreement exceeds "
                 "this (MOReL; 0: never)")
      ->check(at_least(0))->capture_default_str();
  CLI::Option* real = sub.add_option("--real-envs", a.real_envs,
                 "Model-based PPO on a learned --backend: MuJoCo environments the current policy explores; the "
                 "states they visit start branched imagined episodes (0: none)")
      ->check(in_range(0, 1 << 16))->capture_default_str();
  sub.add_option("--real-every", r.real.every, "Iterations between explorations of the real environments")
      ->check(at_least(1))->capture_default_str()->needs(real);
  sub.add_option("--real-steps", r.real.steps, "Steps of every real environment per exploration")
      ->check(in_range(1, 100000))->capture_default_str()->needs(real);
  sub.add_option("--branch-fraction", r.real.branch_fraction,
                 "Share of imagined episodes that start from a real state, with its history")
      ->check(in_range(0, 1))->capture_default_str()->needs(real);
  sub.add_option("--branch-steps", r.real.branch_steps,
                 "Steps after which a branched imagined episode times out (0: the task's episode)")
      ->check(at_least(0))->capture_default_str()->needs(real);
  sub.add_flag("--real-in-batch", r.real.in_batch,
               "The real environments' transitions join the PPO batch beside the imagined ones (needs "
               "--real-every 1 and --real-steps equal to --steps-per-env)")
      ->needs(real);
  sub.add_option("--start-buffer", r.real.buffer_capacity, "Real starts held (the oldest give way)")
      ->check(in_range(1, 1 << 22))->capture_default_str()->needs(real);
  sub.add_option("--refresh-every", r.refresh.every,
                 "Model-based PPO: every N iterations, fine-tune the model on the windows the policy explored in "
                 "the real environments (0: never)")
      ->check(at_least(0))->capture_default_str()->needs(real);
  sub.add_option("--refresh-updates", r.refresh.updates, "Fine-tune updates per refresh")
      ->check(at_least(1))->capture_default_str()->needs(real);
  sub.add_option("--refresh-updates-from", a.refresh_updates_from,
                 "ITERATION:UPDATES, repeatable: from the refresh at that iteration on, that many updates per "
                 "refresh (a budget that grows with the run)")
      ->needs(real);
  sub.add_option("--refresh-batch", r.refresh.batch, "Windows per fine-tune update")
      ->check(in_range(1, 65536))->capture_default_str()->needs(real);
  sub.add_option("--refresh-lr", r.refresh.lr, "Fine-tune learning rate")->check(positive())->capture_default_str()
      ->needs(real);
  add_enum_option(sub, "--refresh-precision", r.refresh.precision,
                  names_of({train::TrainingPrecision::FP32, train::TrainingPrecision::BF16}, train::training_precision_name),
                  "Matrix products of the fine-tunes: fp32 (the same bits on every run) or bf16 (faster on CPUs with "
                  "native bf16; parameters, Adam and the loss stay fp32)")
      ->needs(real);
  sub.add_option("--refresh-windows", r.refresh.max_windows, "Explored windows kept for the refreshes")
      ->check(at_least(2))->capture_default_str()->needs(real);
  sub.add_option("--steps-per-env", r.ppo.steps_per_env, "Steps of every environment per iteration")
      ->check(in_range(1, 10000))->capture_default_str();
  sub.add_option("--seed", r.seed, "Seed of the networks, actions, minibatches and resets")->capture_default_str();
  sub.add_option("--lr", r.ppo.learning_rate, "Initial learning rate (adapted to KL 0.01)")->check(positive())
      ->capture_default_str();
  sub.add_option("--entropy", r.ppo.entropy_coef, "Entropy coefficient")->check(at_least(0))->capture_default_str();
  sub.add_option("--penalty-ramp", r.penalty_ramp,
                 "Iterations over which the task's shaping terms (penalties, feet air time; not its objective) grow from 1/N to their full scale (0: full from the start)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--penalty-delay", r.penalty_delay,
                 "Iterations with the shaping terms off before the --penalty-ramp starts")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--hidden", a.hidden, "Hidden widths of actor and critic")->capture_default_str();
  sub.add_option("--checkpoint-every", r.checkpoint_every, "Checkpoint every K iterations")->check(at_least(1))
      ->capture_default_str();
  sub.add_flag("--fused-update", r.fused_update,
               "Minibatch gradients by the fused update instead of libtorch's autograd (equal per update to "
               "float tolerance; experimental, docs/RL.md)");
  sub.add_option("--update-threads", r.update_threads,
                 "Threads of the PPO update (0: all cores; BLAS threads, or the fused update's parts); the same for every backend")
      ->capture_default_str();
  sub.add_option("--eval-every", r.eval_every,
                 "Evaluate the mean policy in MuJoCo every K iterations (0: never; off the training clock)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--eval-envs", a.eval_envs, "MuJoCo environments of the evaluation")->check(in_range(1, 1 << 20))
      ->capture_default_str();
  sub.add_option("--eval-steps", r.eval_steps, "Steps of each evaluation environment")->check(at_least(1))
      ->capture_default_str();
  sub.add_flag("--resume", r.resume, "Continue the checkpoint in --out");
  sub.add_flag("--allow-unsealed", r.allow_unsealed,
               "With --resume: accept a checkpoint written before checkpoints were sealed (damage undetectable)");
  sub.add_flag("--overwrite", r.overwrite, "Start a new run in an --out that holds one");
  add_quiet_flag(sub, r.progress);
}

}  // namespace flashnerd::cli
