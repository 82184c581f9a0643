#include "rl/ppo_runner.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/output_policy.h"
#include "core/json_diff.h"
#include "core/system_memory.h"
#include "core/plot_spec.h"
#include "core/progress.h"
#include "core/stopwatch.h"
#include "engine/engine.h"
#include "rl/observation_normalizer.h"
#include "rl/penalty_ramp.h"
#include "train/checkpoint.h"
#include "train/torch_threads.h"

namespace flashnerd::rl {

namespace {

constexpr const char* kCheckpointFormat = "flashnerd-ppo-checkpoint";
constexpr int kCheckpointVersion = 1;

using Clock = std::chrono::steady_clock;
std::string csv_header(const std::vector<std::string>& terms) {
  std::string h =
      "iteration,transitions,seconds,reward_per_step,episode_reward,finished_return,episodes,eval_reward,"
      "dynamics_s,sensing_s,policy_s,update_s,task_s,learning_rate,kl,value_loss,surrogate_loss,entropy,action_std";
  for (const auto& t : terms) h += ",term_" + t;
  return h + "\n";
}

std::string csv_row(const IterationRow& r) {
  std::ostringstream os;
  os.precision(9);
  os << r.iteration << ',' << r.transitions << ',' << r.seconds << ',' << r.reward_per_step << ','
     << r.episode_reward << ',' << r.finished_return << ',' << r.episodes << ',' << r.eval_reward << ','
     << r.dynamics_s << ',' << r.sensing_s << ',' << r.policy_s << ',' << r.update_s << ',' << r.task_s << ','
     << r.stats.learning_rate << ',' << r.stats.kl << ',' << r.stats.value_loss << ',' << r.stats.surrogate_loss
     << ',' << r.stats.entropy << ',' << r.stats.action_std;
  for (double t : r.terms) os << ',' << t;
  os << '\n';
  return os.str();
}

nlohmann::json row_json(const IterationRow& r) {
  return {{"iteration", r.iteration}, {"transitions", r.transitions}, {"seconds", r.seconds},
          {"reward_per_step", r.reward_per_step}, {"episode_reward", r.episode_reward},
          {"finished_return", std::isfinite(r.finished_return) ? nlohmann::json(r.finished_return) : nlohmann::json()},
          {"episodes", r.episodes},
          {"eval_reward", std::isfinite(r.eval_reward) ? nlohmann::json(r.eval_reward) : nlohmann::json()},
          {"time", {r.dynamics_s, r.sensing_s, r.policy_s, r.update_s, r.task_s}},
          {"stats", {{"learning_rate", r.stats.learning_rate}, {"kl", r.stats.kl}, {"value_loss", r.stats.value_loss},
                     {"surrogate_loss", r.stats.surrogate_loss}, {"entropy", r.stats.entropy},
                     {"action_std", r.stats.action_std}}},
          {"terms", r.terms}};
}

IterationRow row_from_json(const nlohmann::json& j) {
  IterationRow r;
  r.iteration = j.at("iteration");
  r.transitions = j.at("transitions");
  r.seconds = j.at("seconds");
  r.reward_per_step = j.at("reward_per_step");
  r.episode_reward = j.at("episode_reward");
  if (!j.at("finished_return").is_null()) r.finished_return = j.at("finished_return");
  r.episodes = j.at("episodes");
  if (!j.at("eval_reward").is_null()) r.eval_reward = j.at("eval_reward");
  const auto& t = j.at("time");
  r.dynamics_s = t[0];
  r.sensing_s = t[1];
  r.policy_s = t[2];
  r.update_s = t[3];
  r.task_s = t[4];
  const auto& s = j.at("stats");
  if (s.is_array()) {  // checkpoints before the stats were named: lr, kl, value, surrogate, entropy, std
    r.stats = {s[2], s[3], s[4], s[1], s[0], s[5]};
  } else {
    r.stats.value_loss = s.at("value_loss");
    r.stats.surrogate_loss = s.at("surrogate_loss");
    r.stats.entropy = s.at("entropy");
    r.stats.kl = s.at("kl");
    r.stats.learning_rate = s.at("learning_rate");
    r.stats.action_std = s.at("action_std");
  }
  r.terms = j.at("terms").get<std::vector<double>>();
  return r;
}

void write_curves(const std::string& dir, const std::vector<IterationRow>& rows, const std::string& title) {
  PlotSeries by_time{"training: return of finished episodes", {}, {}, 0x1f77b4, false};
  PlotSeries by_samples{"training: return of finished episodes", {}, {}, 0x1f77b4, false};
  PlotSeries eval_time{"evaluation (MuJoCo)", {}, {}, 0xd62728, true};
  PlotSeries eval_samples{"evaluation (MuJoCo)", {}, {}, 0xd62728, true};
  for (const auto& r : rows) {
    by_time.x.push_back(r.seconds);
    by_time.y.push_back(r.finished_return);
    by_samples.x.push_back(double(r.transitions));
    by_samples.y.push_back(r.finished_return);
    if (std::isfinite(r.eval_reward)) {
      eval_time.x.push_back(r.seconds);
      eval_time.y.push_back(r.eval_reward);
      eval_samples.x.push_back(double(r.transitions));
      eval_samples.y.push_back(r.eval_reward);
    }
  }
  PlotOptions o;
  o.title = title;
  o.y_label = "episode return";
  o.x_label = "training wall time (s)";
  write_plot_spec(dir + "/reward_vs_time.plot.json", {by_time, eval_time}, o);
  o.x_label = "transitions";
  write_plot_spec(dir + "/reward_vs_transitions.plot.json", {by_samples, eval_samples}, o);
}

// The run's reward settings and penalty curriculum, only those given: part of its identity and
// of the policy's training record.
nlohmann::json reward_curriculum(const PpoRunOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  if (!o.reward_settings.empty()) j["reward_settings"] = o.reward_settings;  // absent: the task's own
  if (o.penalty_ramp > 0) j["penalty_ramp"] = o.penalty_ramp;
  if (o.penalty_delay > 0) j["penalty_delay"] = o.penalty_delay;
  return j;
}

// The settings a resumed run must share with its checkpoint.
nlohmann::json run_identity(const env::VecEnv& env, const PpoRunOptions& o) {
  const PpoConfig& c = o.ppo;
  nlohmann::json id = {{"task", env.task().name()},
                       {"robot", env.backend().robot().name()},
                       {"backend", env.backend().kind()},
                       {"envs", env.envs()},
                       {"seed", o.seed},
                       {"steps_per_env", c.steps_per_env},
                       {"epochs", c.epochs},
                       {"minibatches", c.minibatches},
                       {"clip", c.clip},
                       {"gamma", c.gamma},
                       {"lambda", c.lambda},
                       {"lr", c.learning_rate},
                       {"adaptive_lr", c.adaptive_lr},
                       {"desired_kl", c.desired_kl},
                       {"value_coef", c.value_coef},
                       {"entropy", c.entropy_coef},
                       {"max_grad_norm", c.max_grad_norm},
                       {"init_noise_std", c.init_noise_std},
                       {"actor_hidden", c.actor_hidden},
                       {"critic_hidden", c.critic_hidden}};
  if (!o.model_fingerprint.empty()) id["model"] = o.model_fingerprint;
  id.update(reward_curriculum(o));
  if (env.uncertainty().any())
    id["uncertainty"] = {{"penalty", env.uncertainty().penalty}, {"truncate_above", env.uncertainty().truncate_above}};
  return id;
}

// A run that diverged stops at once, naming what went non-finite, with its last finite
// checkpoint (written before this iteration) left as it was.
void stop_unless_finite(int iteration, double reward_sum, const PpoUpdateStats& s, const torch::nn::Module& net,
                        const std::string& out_dir, int last_saved) {
  const std::string kept = last_saved > 0 ? str_cat("its last finite checkpoint (iteration ", last_saved, ") in ",
                                                    out_dir, " is kept")
                                          : std::string("no checkpoint was written");
  FN_CHECK(std::isfinite(reward_sum), "ppo: the rewards of iteration ", iteration, " are not finite (", reward_sum,
           "); the run stops, ", kept, "; check --reward-scale and the task's terms");
  for (const auto& [name, v] : {std::pair<const char*, double>{"value loss", s.value_loss},
                                {"surrogate loss", s.surrogate_loss}, {"entropy", s.entropy}, {"kl", s.kl},
                                {"action std", s.action_std}})
    FN_CHECK(std::isfinite(v), "ppo: iteration ", iteration, " diverged: its ", name, " is ", v, "; the run stops, ",
             kept, "; lower --lr, or check --reward-scale");
  try {
    train::check_module_finite(net, str_cat("ppo: iteration ", iteration));
  } catch (const Error& e) {
    throw Error(str_cat(e.what(), "; the run stops, ", kept, "; lower --lr"));
  }
}

}  // namespace

PpoRunResult run_ppo(env::VecEnv& env, const PpoRunOptions& o) {
  train::configure_threads();
  FN_CHECK(o.iterations >= 1, "ppo: --iterations must be >= 1");
  FN_CHECK(!o.out_dir.empty(), "ppo: no output directory (--out)");
  FN_CHECK(!(o.resume && o.overwrite), "ppo: --resume and --overwrite exclude each other");
  const std::string ckpt_path = o.out_dir + "/checkpoint.pt";
  const std::string policy_dir = o.out_dir + "/policy";
  const std::string best_dir = o.out_dir + "/best_policy";  // the best-evaluated mean policy
  for (const char* artifact : {"config.json", "weights.safetensors", "ensemble.json"})  // even with --overwrite
    FN_CHECK(!std::filesystem::exists(std::filesystem::path(o.out_dir) / artifact), "ppo: --out ", o.out_dir,
             " holds a trained model (", artifact, "); a PPO run needs a directory of its own");
  if (!o.resume && !o.overwrite) {
    FN_CHECK(!std::filesystem::exists(ckpt_path) && !std::filesystem::exists(policy_dir + "/policy.json"), "ppo: ",
             o.out_dir, " already holds a PPO run; pass --resume to continue it, --overwrite to start a new one there");
  }
  const int update_threads = o.update_threads > 0 ? o.update_threads : int(std::max(1u, std::thread::hardware_concurrency()));
  const int E = env.envs(), D = env.observation_dim(), A = env.action_dim(), T = o.ppo.steps_per_env;
  // rollout storage (observations, actions, log-probs, values, rewards, returns, advantages)
  // and the minibatch copies of it, before anything is allocated
  check_memory_fits(2.0 * double(E) * T * (D + 2.0 * A + 8) * sizeof(float),
                    str_cat("ppo: the rollout storage of ", E, " envs x ", T, " steps"),
                    "use fewer --envs or --steps-per-env");
  const OutputLock lock(o.out_dir, "ppo: --out");
  ensure_writable_directory(o.out_dir);
  ensure_writable_directory(policy_dir);
  if (o.overwrite) std::filesystem::remove_all(best_dir);  // a new run: the old run's best is not its

  const int episode_steps = env.task().episode_steps();
  torch::manual_seed(o.seed);
  Ppo ppo(o.ppo, D, A, E);
  ppo.use_fused_update(o.fused_update);
  ObservationNormalizer normalizer(D);
  PpoRunResult result;
  for (const auto& t : env.task().reward_terms()) result.term_names.push_back(t.name);
  const nlohmann::json identity = run_identity(env, o);
  int start = 0;
  double clock = 0;
  int64_t transitions = 0;

  if (o.resume) {
    FN_CHECK(std::filesystem::exists(ckpt_path), "--resume: no checkpoint at ", ckpt_path);
    const train::CheckpointReader ck(train::CheckpointReader::read_bytes(ckpt_path), ckpt_path, kCheckpointFormat,
                                     kCheckpointVersion);
    const nlohmann::json& meta = ck.meta();
    const std::string differences = json_differences(meta.at("identity"), identity, "checkpoint", "this run");
    FN_CHECK(differences.empty(), "--resume: the run in ", o.out_dir, " was made with other settings: ", differences,
             "; resume with the checkpoint's settings, or start a new run (another --out, or --overwrite)");
    ck.module("net", *ppo.net());
    ck.optimizer("optimizer", ppo.optimizer());
    env.load_state(ck.blob("env_state"));
    start = meta.at("iteration");
    ppo.set_learning_rate(meta.at("learning_rate"));
    normalizer.set(meta.at("obs_mean"), meta.at("obs_var"), meta.at("obs_count"));
    for (const auto& r : meta.at("rows")) result.rows.push_back(row_from_json(r));
    if (!result.rows.empty()) {
      clock = result.rows.back().seconds;
      transitions = result.rows.back().transitions;
    }
    FN_CHECK(o.iterations >= start, "--resume: the checkpoint is at iteration ", start, ", beyond --iterations ",
             o.iterations);
  } else {
    env.reset_all();
  }

  std::vector<float> obs_n(size_t(E) * size_t(D)), final_n(size_t(E) * size_t(D)), actions(size_t(E) * size_t(A));
  std::vector<float> bootstrap(static_cast<size_t>(E)), final_values(static_cast<size_t>(E));
  // The current mean policy as an artifact (normalizer folded in), trained for `iteration`
  // iterations; `extra` goes into its training record.
  auto current_policy = [&](int iteration, const nlohmann::json& extra) {
    PolicyInfo info;
    info.task = env.task().name();
    info.robot = env.backend().robot().name();
    info.mjcf_hash = env.backend().robot().mjcf_hash();
    info.control_timestep = env.step_seconds();  // per action
    info.observation_dim = D;
    info.action_dim = A;
    info.hidden = o.ppo.actor_hidden;
    info.observation_terms = env.task().observation_terms();
    info.training = o.run_info;
    info.training.update(reward_curriculum(o));
    info.training["backend"] = env.backend().kind();
    info.training["iterations"] = iteration;
    info.training["transitions"] = transitions;
    info.training["seconds"] = clock;
    info.training.update(extra);
    std::vector<float> mean(static_cast<size_t>(D)), denom(static_cast<size_t>(D));
    for (int i = 0; i < D; ++i) {
      mean[size_t(i)] = float(normalizer.mean()[size_t(i)]);
      denom[size_t(i)] = float(std::sqrt(normalizer.variance()[size_t(i)]) + ObservationNormalizer::kEpsilon);
    }
    return ppo.net()->export_policy(info, mean, denom);
  };
  int last_saved = start;
  auto save = [&](int iteration) {
    nlohmann::json meta = {{"format", kCheckpointFormat}, {"version", kCheckpointVersion}, {"identity", identity},
                           {"iteration", iteration}, {"learning_rate", ppo.learning_rate()},
                           {"obs_mean", normalizer.mean()}, {"obs_var", normalizer.variance()},
                           {"obs_count", normalizer.count()}};
    meta["rows"] = nlohmann::json::array();
    for (const auto& r : result.rows) meta["rows"].push_back(row_json(r));
    train::CheckpointWriter w;
    w.module("net", *ppo.net());
    w.optimizer("optimizer", ppo.optimizer());
    w.blob("env_state", env.save_state());
    w.commit(ckpt_path, meta);
    last_saved = iteration;
    std::string csv = csv_header(result.term_names);
    for (const auto& r : result.rows) csv += csv_row(r);
    write_file_atomic(o.out_dir + "/log.csv", csv);
    write_curves(o.out_dir, result.rows,
                 str_cat("PPO ", env.task().name(), " on ", env.backend().kind(), " (", E, " envs)"));
    current_policy(iteration, nlohmann::json::object()).save(policy_dir);
  };

  ProgressLine progress(str_cat("ppo ", env.task().name(), " on ", env.backend().kind()), o.iterations, "it",
                        o.progress);
  progress.resume_from(start);
  PenaltyRamp ramp(env.task(), o.penalty_ramp, o.penalty_delay);  // the full scales come back when the run ends
  for (int it = start; it < o.iterations; ++it) {
    ramp.apply(it);
    IterationRow row;
    row.iteration = it + 1;
    const auto t_iter = Clock::now();
    env.backend().clear_timings();
    const double task_before = env.task_seconds();
    Rng noise = Rng::stream(o.seed, 2 * uint64_t(it));
    Rng order = Rng::stream(o.seed, 2 * uint64_t(it) + 1);
    double reward_sum = 0;
    for (int t = 0; t < T; ++t) {
      auto t0 = Clock::now();
      normalizer.update(env.observations(), E);
      normalizer.normalize(env.observations(), E, obs_n.data());
      ppo.act(t, obs_n.data(), noise, actions.data());
      row.policy_s += seconds_since(t0);
      env.step(actions.data());
      t0 = Clock::now();
      int timeouts = 0;
      for (int e = 0; e < E; ++e) {
        reward_sum += env.rewards()[e];
        bootstrap[size_t(e)] = 0;
        if (env.timed_out()[e]) {  // gather, evaluate together
          std::memcpy(final_n.data() + size_t(timeouts) * size_t(D), env.final_observations() + size_t(e) * size_t(D),
                      sizeof(float) * size_t(D));
          ++timeouts;
        }
      }
      if (timeouts > 0) {
        normalizer.normalize(final_n.data(), timeouts, final_n.data());
        ppo.values(final_n.data(), timeouts, final_values.data());
        for (int e = 0, k = 0; e < E; ++e)
          if (env.timed_out()[e]) bootstrap[size_t(e)] = float(o.ppo.gamma * final_values[size_t(k++)]);
      }
      ppo.record(t, env.rewards(), env.terminated(), env.timed_out(), bootstrap.data());
      row.policy_s += seconds_since(t0);
    }
    auto t0 = Clock::now();
    normalizer.normalize(env.observations(), E, obs_n.data());
    {
      const engine::BlasThreads blas(update_threads);
      row.stats = ppo.update(obs_n.data(), order);
    }
    row.update_s = seconds_since(t0);
    stop_unless_finite(it + 1, reward_sum, row.stats, *ppo.net(), o.out_dir, last_saved);
    row.dynamics_s = env.backend().timings().dynamics_seconds;
    row.sensing_s = env.backend().timings().sensing_seconds;
    row.task_s = env.task_seconds() - task_before;
    clock += seconds_since(t_iter);
    transitions += int64_t(T) * E;
    row.seconds = clock;
    row.transitions = transitions;
    row.reward_per_step = reward_sum / (double(T) * E);
    row.episode_reward = row.reward_per_step * episode_steps;
    const env::EpisodeStats ep = env.take_episode_stats();
    row.episodes = ep.episodes;
    if (ep.episodes > 0) row.finished_return = ep.mean_return();
    for (double s : ep.term_sums) row.terms.push_back(ep.episodes ? s / double(ep.episodes) : 0.0);
    if (o.eval_env && o.eval_every > 0 && ((it + 1) % o.eval_every == 0 || it + 1 == o.iterations)) {
      row.eval_reward = evaluate_policy(*o.eval_env, current_policy(it + 1, nlohmann::json::object()), o.eval_steps)
                            .episode_reward;
      // the paper's checkpoint selection: keep the mean policy that scored best in the
      // analytic simulator so far (ties keep the earlier one)
      double best = -std::numeric_limits<double>::infinity();
      for (const auto& r : result.rows)
        if (std::isfinite(r.eval_reward)) best = std::max(best, r.eval_reward);
      if (std::isfinite(row.eval_reward) && row.eval_reward > best)
        current_policy(it + 1, {{"selected_by", {{"eval_reward", row.eval_reward}, {"iteration", it + 1},
                                                 {"eval_envs", o.eval_env->envs()}, {"eval_steps", o.eval_steps}}}})
            .save(best_dir);
    }
    result.rows.push_back(row);
    progress.update(it + 1, str_cat("return ", std::isfinite(row.finished_return) ? str_cat(row.finished_return) : std::string("-"),
                                    std::isfinite(row.eval_reward) ? str_cat(" eval ", row.eval_reward) : ""));
    if ((it + 1) % std::max(1, o.checkpoint_every) == 0 || it + 1 == o.iterations) save(it + 1);
  }
  progress.finish();
  if (start == o.iterations) save(start);
  return result;
}

}  // namespace flashnerd::rl
