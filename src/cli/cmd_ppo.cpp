// flashnerd ppo: train a policy with PPO on a task, stepping MuJoCo or a learned model, and
// export it as a libtorch-free policy artifact (--out/policy).
#include <cmath>

#include "cli/env_options.h"
#include "cli/plot_drawing.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/progress.h"
#include "env/vec_env.h"
#include "rl/ppo_runner.h"

namespace flashnerd::cli {

namespace {

struct PpoArgs {
  CommonOptions common;
  ThreadOptions threads;
  EnvOptions env;
  std::string out;
  int iterations = 300;
  int steps_per_env = 24;
  uint64_t seed = 1;
  double lr = 1e-3;
  double entropy = 0.005;
  std::string hidden = "128,64,32";
  int checkpoint_every = 10;
  int update_threads = 1;
  bool fused_update = false;
  int eval_every = 0;
  int eval_envs = 64;
  int eval_steps = 1000;
  int penalty_ramp = 0;
  int penalty_delay = 0;
  env::UncertaintyOptions uncertainty;
  bool resume = false;
  bool overwrite = false;
  bool quiet = false;
};

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

void run_ppo_command(const PpoArgs& a) {
  FN_CHECK(a.iterations >= 1, "--iterations must be >= 1, got ", a.iterations);
  FN_CHECK(a.steps_per_env >= 1 && a.steps_per_env <= 10000, "--steps-per-env must be in [1, 10000], got ",
           a.steps_per_env);
  FN_CHECK(a.lr > 0 && std::isfinite(a.lr), "--lr must be positive, got ", a.lr);
  FN_CHECK(a.entropy >= 0 && std::isfinite(a.entropy), "--entropy must be >= 0, got ", a.entropy);
  FN_CHECK(a.eval_every >= 0 && a.eval_envs >= 1 && a.eval_steps >= 1,
           "--eval-every must be >= 0, --eval-envs and --eval-steps >= 1");
  FN_CHECK(a.penalty_ramp >= 0, "--penalty-ramp must be >= 0, got ", a.penalty_ramp);
  FN_CHECK(a.penalty_delay >= 0, "--penalty-delay must be >= 0, got ", a.penalty_delay);
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));
  EnvOptions eo = a.env;
  eo.ensemble_seed = a.seed;
  check_model_used(eo);
  EnvParts parts = make_env_parts(eo, eo.backend, eo.envs, pool);
  env::VecEnv env(*parts.task, *parts.backend, pool, a.seed);
  env.set_uncertainty(a.uncertainty);
  // evaluation in the analytic simulator, off the training clock
  EnvParts eval_parts;
  std::unique_ptr<env::VecEnv> eval_env;
  if (a.eval_every > 0) {
    eval_parts = make_env_parts(a.env, "mujoco", a.eval_envs, pool);
    eval_env = std::make_unique<env::VecEnv>(*eval_parts.task, *eval_parts.backend, pool, a.seed + 1000003);
  }
  rl::PpoRunOptions o;
  o.ppo.steps_per_env = a.steps_per_env;
  o.ppo.learning_rate = a.lr;
  o.ppo.entropy_coef = a.entropy;
  std::vector<int> hidden;
  for (int64_t h : parse_int_list(a.hidden, "--hidden")) {
    FN_CHECK(h >= 1 && h <= 4096, "--hidden widths must be in [1, 4096], got ", h);
    hidden.push_back(int(h));
  }
  o.ppo.actor_hidden = o.ppo.critic_hidden = hidden;
  o.iterations = a.iterations;
  o.seed = a.seed;
  o.out_dir = a.out;
  o.resume = a.resume;
  o.overwrite = a.overwrite;
  o.checkpoint_every = a.checkpoint_every;
  o.update_threads = a.update_threads;
  o.fused_update = a.fused_update;
  o.progress = !a.quiet;
  o.eval_env = eval_env.get();
  o.eval_every = a.eval_every;
  o.eval_steps = a.eval_steps;
  o.reward_settings = reward_settings(a.env);
  o.penalty_ramp = a.penalty_ramp;
  o.penalty_delay = a.penalty_delay;
  if (!a.env.model.empty()) o.model_fingerprint = model_fingerprint(a.env.model);
  o.run_info = {{"model", a.env.model}, {"envs", a.env.envs}, {"steps_per_env", a.steps_per_env}, {"seed", a.seed}};
  if (parts.backend->ensemble_size() > 1)
    o.run_info["ensemble"] = {{"members", parts.backend->ensemble_size()}, {"mode", a.env.ensemble_mode},
                              {"uncertainty_penalty", a.uncertainty.penalty},
                              {"uncertainty_truncate_above", a.uncertainty.truncate_above}};
  const rl::PpoRunResult r = rl::run_ppo(env, o);
  const rl::IterationRow& last = r.rows.back();
  double dyn = 0, sense = 0, policy = 0, update = 0, task = 0;
  for (const auto& row : r.rows) {
    dyn += row.dynamics_s;
    sense += row.sensing_s;
    policy += row.policy_s;
    update += row.update_s;
    task += row.task_s;
  }
  nlohmann::json summary = {
      {"task", a.env.task},
      {"backend", parts.backend->kind()},
      {"iterations", last.iteration},
      {"transitions", last.transitions},
      {"seconds", last.seconds},
      {"return_finished_episodes", number_or_null(last.finished_return)},
      {"reward_per_step", last.reward_per_step},
      {"eval_reward_mujoco", number_or_null(last.eval_reward)},
      {"env_steps_per_second_dynamics", double(last.transitions) / std::max(1e-9, dyn + sense + task)},
      {"seconds_dynamics", dyn},
      {"seconds_sensing", sense},
      {"seconds_policy", policy},
      {"seconds_update", update},
      {"seconds_task", task},
      {"policy", a.out + "/policy"}};
  const auto plots = draw_plots({a.out + "/reward_vs_time.plot.json", a.out + "/reward_vs_transitions.plot.json"});
  if (!plots.empty()) summary["plots"] = plots;
  print_summary(a.common, "ppo", summary);
}

}  // namespace

void register_ppo(CLI::App& app) {
  auto args = std::make_shared<PpoArgs>();
  auto* sub = app.add_subcommand("ppo", "Train a policy with PPO on MuJoCo or a learned model (--backend)");
  add_common_options(*sub, args->common);
  add_thread_options(*sub, args->threads);
  add_env_options(*sub, args->env, 4096);
  sub->add_option("--out", args->out, "Run directory: checkpoint.pt, log.csv, reward curves, policy/")->required();
  sub->add_option("--iterations", args->iterations, "PPO iterations (a resume continues to it)")->capture_default_str();
  sub->add_option("--uncertainty-penalty", args->uncertainty.penalty,
                  "An ensemble --model: each step's reward loses this x the members' disagreement x dt (MOPO)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--uncertainty-truncate", args->uncertainty.truncate_above,
                  "An ensemble --model: truncate (bootstrap) an episode at a step whose disagreement exceeds "
                  "this (MOReL; 0: never)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--steps-per-env", args->steps_per_env, "Steps of every environment per iteration")
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed of the networks, actions, minibatches and resets")->capture_default_str();
  sub->add_option("--lr", args->lr, "Initial learning rate (adapted to KL 0.01)")->capture_default_str();
  sub->add_option("--entropy", args->entropy, "Entropy coefficient")->capture_default_str();
  sub->add_option("--penalty-ramp", args->penalty_ramp,
                  "Iterations over which the task's shaping terms (penalties, feet air time; not its objective) grow from 1/N to their full scale (0: full from the start)")
      ->capture_default_str();
  sub->add_option("--penalty-delay", args->penalty_delay,
                  "Iterations with the shaping terms off before the --penalty-ramp starts")
      ->capture_default_str();
  sub->add_option("--hidden", args->hidden, "Hidden widths of actor and critic")->capture_default_str();
  sub->add_option("--checkpoint-every", args->checkpoint_every, "Checkpoint every K iterations")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_flag("--fused-update", args->fused_update,
                "Minibatch gradients by the fused update instead of libtorch's autograd (equal per update to "
                "float tolerance; experimental, docs/RL.md)");
  sub->add_option("--update-threads", args->update_threads,
                  "BLAS threads of the PPO update (0: all cores); the same for every backend")
      ->capture_default_str();
  sub->add_option("--eval-every", args->eval_every,
                  "Evaluate the mean policy in MuJoCo every K iterations (0: never; off the training clock)")
      ->capture_default_str();
  sub->add_option("--eval-envs", args->eval_envs, "MuJoCo environments of the evaluation")->capture_default_str();
  sub->add_option("--eval-steps", args->eval_steps, "Steps of each evaluation environment")->capture_default_str();
  sub->add_flag("--resume", args->resume, "Continue the checkpoint in --out");
  sub->add_flag("--overwrite", args->overwrite, "Start a new run in an --out that holds one");
  sub->add_flag("--quiet", args->quiet, "No progress line");
  sub->callback([args] { run_ppo_command(*args); });
}

}  // namespace flashnerd::cli
