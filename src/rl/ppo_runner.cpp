#include "rl/ppo_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_diff.h"
#include "core/option_error.h"
#include "core/output_policy.h"
#include "core/progress.h"
#include "core/stopwatch.h"
#include "core/system_memory.h"
#include "engine/blas.h"
#include "engine/engine.h"
#include "rl/observation_normalizer.h"
#include "rl/penalty_ramp.h"
#include "rl/ppo_memory.h"
#include "train/checkpoint.h"
#include "train/torch_threads.h"

namespace flashnerd::rl {

namespace {

constexpr const char* kCheckpointFormat = "flashnerd-ppo-checkpoint";
constexpr int kCheckpointVersion = 1;

using Clock = std::chrono::steady_clock;

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
nlohmann::json run_identity(const env::VecEnv& env, const PpoRunOptions& o,
                            const std::vector<std::shared_ptr<PpoRunnerComponent>>& components) {
  const PpoConfig& c = o.ppo;
  nlohmann::json id = {
      {"task", env.task().source()}, {"robot", env.backend().robot().name()}, {"backend", env.backend().kind()},
      {"envs", env.envs()},        {"seed", o.seed},                        {"steps_per_env", c.steps_per_env},
      {"epochs", c.epochs},        {"minibatches", c.minibatches},          {"clip", c.clip},
      {"gamma", c.gamma},          {"lambda", c.lambda},                    {"lr", c.learning_rate},
      {"adaptive_lr", c.adaptive_lr}, {"desired_kl", c.desired_kl},         {"value_coef", c.value_coef},
      {"entropy", c.entropy_coef}, {"max_grad_norm", c.max_grad_norm},      {"init_noise_std", c.init_noise_std},
      {"actor_hidden", c.actor_hidden}, {"critic_hidden", c.critic_hidden}};
  if (!o.model_fingerprint.empty()) id["model"] = o.model_fingerprint;
  id.update(reward_curriculum(o));
  for (const auto& c : components) id.update(c->settings());
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
  FN_CHECK_OPTION(std::isfinite(reward_sum), "", "ppo: the rewards of iteration ", iteration, " are not finite (",
                  reward_sum, "); the run stops, ", kept, "; check ", option_ref("reward_scale"), " and the task's terms");
  for (const auto& [name, v] : {std::pair<const char*, double>{"value loss", s.value_loss},
                                {"surrogate loss", s.surrogate_loss}, {"entropy", s.entropy}, {"kl", s.kl},
                                {"action std", s.action_std}})
    FN_CHECK_OPTION(std::isfinite(v), "", "ppo: iteration ", iteration, " diverged: its ", name, " is ", v,
                    "; the run stops, ", kept, "; lower ", option_ref("learning_rate"), ", or check ",
                    option_ref("reward_scale"));
  try {
    train::check_module_finite(net, str_cat("ppo: iteration ", iteration));
  } catch (const Error& e) {
    throw OptionError("", str_cat(e.what(), "; the run stops, ", kept, "; lower ", option_ref("learning_rate")));
  }
}

}  // namespace

PpoRunner::PpoRunner(env::VecEnv& env, const PpoRunOptions& o)
    : env_(env), o_(o), ckpt_path_(o.out_dir + "/checkpoint.pt"), policy_dir_(o.out_dir + "/policy"),
      best_dir_(o.out_dir + "/best_policy"), normalizer_(env.observation_dim()) {
  train::configure_threads();
  check_output();
  update_threads_ = o.update_threads > 0 ? o.update_threads : int(std::max(1u, std::thread::hardware_concurrency()));
  const int E = env.envs(), D = env.observation_dim(), A = env.action_dim();
  const int R = o.real.env != nullptr ? o.real.env->envs() : 0;
  const env::Backend& b = env.backend();
  // the environments exist already: the rest of the run's plan must fit beside them
  ppo_memory_plan(o, {E, R, D, A, b.history_frames(), b.nq(), b.nv(), b.nu()})
      .check(str_cat("use fewer ", option_ref("envs"), ", ", option_ref("steps_per_env"), ", ",
                     option_ref("real.buffer_capacity"), " or ", option_ref("refresh.max_windows")));
  lock_ = std::make_unique<OutputLock>(o.out_dir, "out");
  ensure_writable_directory(o.out_dir);
  ensure_writable_directory(policy_dir_);
  if (o.overwrite) std::filesystem::remove_all(best_dir_);  // a new run: the old run's best is not its

  FN_CHECK(!o.refresh.on() || o.real.env != nullptr, "ppo: model refreshes train on the real environments' windows; "
           "there are none");
  if (o.real.env != nullptr)
    components_.push_back(std::make_shared<ModelBasedPpo>(
        o.real, o.refresh,
        ModelBasedRun{&env, o.eval_env, o.seed, o.out_dir, o.ppo.steps_per_env, o.penalty_ramp, o.penalty_delay}));
  components_.insert(components_.end(), o.components.begin(), o.components.end());
  int batch_envs = E, rows = E;  // the storage's environments; the step buffers' rows
  for (const auto& c : components_) {
    batch_envs += c->batch_envs();
    rows = std::max(rows, c->step_rows());
  }
  torch::manual_seed(o.seed);
  ppo_ = std::make_unique<Ppo>(o.ppo, D, A, batch_envs);
  ppo_->use_fused_update(o.fused_update, update_threads_);
  for (const auto& t : env.task().reward_terms()) result_.term_names.push_back(t.name);
  identity_ = run_identity(env, o, components_);
  if (o.resume) {
    restore();
  } else {
    env.reset_all();
    for (const auto& c : components_) c->start();
  }
  last_saved_ = start_;
  obs_n_.resize(size_t(rows) * size_t(D));
  final_n_.resize(size_t(rows) * size_t(D));
  actions_.resize(size_t(rows) * size_t(A));
  bootstrap_.resize(size_t(rows));
  final_values_.resize(size_t(rows));
  last_obs_n_.resize(size_t(batch_envs) * size_t(D));
}

PpoRunner::~PpoRunner() = default;

void PpoRunner::check_output() const {
  FN_CHECK_OPTION(o_.iterations >= 1, "iterations", "must be >= 1 (got ", o_.iterations, ")");
  FN_CHECK_OPTION(!o_.out_dir.empty(), "out", "no output directory given");
  FN_CHECK_OPTION(!(o_.resume && o_.overwrite), "resume", "excludes ", option_ref("overwrite"),
                  ": continue the run or start a new one, not both");
  for (const char* artifact : {"config.json", "weights.safetensors", "ensemble.json"})  // even with overwrite
    FN_CHECK_OPTION(!std::filesystem::exists(std::filesystem::path(o_.out_dir) / artifact), "out", o_.out_dir,
                    " holds a trained model (", artifact, "); a PPO run needs a directory of its own");
  if (!o_.resume && !o_.overwrite) {
    FN_CHECK_OPTION(!std::filesystem::exists(ckpt_path_) && !std::filesystem::exists(policy_dir_ + "/policy.json"),
                    "out", o_.out_dir, " already holds a PPO run; pass ", option_ref("resume"), " to continue it, ",
                    option_ref("overwrite"), " to start a new one there");
  }
}

void PpoRunner::restore() {
  FN_CHECK_OPTION(std::filesystem::exists(ckpt_path_), "resume", "no checkpoint at ", ckpt_path_);
  const train::CheckpointReader ck(train::CheckpointReader::read_bytes(ckpt_path_, o_.allow_unsealed), ckpt_path_, kCheckpointFormat,
                                   kCheckpointVersion);
  const nlohmann::json& meta = ck.meta();
  const std::string differences = json_differences(meta.at("identity"), identity_, "checkpoint", "this run");
  FN_CHECK_OPTION(differences.empty(), "resume", "the run in ", o_.out_dir, " was made with other settings: ",
                  differences, "; resume with the checkpoint's settings, or start a new run (another ",
                  option_ref("out"), ", or ", option_ref("overwrite"), ")");
  ck.module("net", *ppo_->net());
  ck.optimizer("optimizer", ppo_->optimizer());
  for (const auto& c : components_) c->reload(meta);
  std::vector<IterationRow> rows;
  for (const auto& r : meta.at("rows")) rows.push_back(row_from_json(r));
  try {  // the seal held, so the state was damaged before sealing or resealed after: name the file
    env_.load_state(ck.blob("env_state"));
    for (const auto& c : components_) c->load(ck, rows.empty() ? nullptr : &rows.back());
  } catch (const Error& e) {
    throw OptionError("resume", str_cat(ckpt_path_, " holds a damaged environment state (", e.what(),
                                        "); it cannot be resumed: start the run again with ", option_ref("overwrite"),
                                        ", or restore the checkpoint from a copy"));
  }
  start_ = meta.at("iteration");
  ppo_->set_learning_rate(meta.at("learning_rate"));
  normalizer_.set(meta.at("obs_mean"), meta.at("obs_var"), meta.at("obs_count"));
  result_.rows = std::move(rows);
  if (!result_.rows.empty()) {
    clock_ = result_.rows.back().seconds;
    transitions_ = result_.rows.back().transitions;
  }
  FN_CHECK_OPTION(o_.iterations >= start_, "iterations", o_.iterations, " is before the checkpoint's iteration ",
                  start_, "; give at least that many to resume the run");
}

// The current mean policy as an artifact (normalizer folded in), trained for `iteration`
// iterations; `extra` goes into its training record.
Policy PpoRunner::current_policy(int iteration, const nlohmann::json& extra) const {
  const int D = env_.observation_dim();
  PolicyInfo info;
  info.task = env_.task().source();
  info.robot = env_.backend().robot().name();
  info.mjcf_hash = env_.backend().robot().mjcf_hash();
  info.control_timestep = env_.step_seconds();  // per action
  info.observation_dim = D;
  info.action_dim = env_.action_dim();
  info.hidden = o_.ppo.actor_hidden;
  info.observation_terms = env_.task().observation_terms();
  info.training = o_.run_info;
  info.training.update(reward_curriculum(o_));
  for (const auto& c : components_) info.training.update(c->settings());
  info.training["backend"] = env_.backend().kind();
  info.training["iterations"] = iteration;
  info.training["transitions"] = transitions_;
  info.training["seconds"] = clock_;
  info.training.update(extra);
  std::vector<float> mean(static_cast<size_t>(D)), denom(static_cast<size_t>(D));
  for (int i = 0; i < D; ++i) {
    mean[size_t(i)] = float(normalizer_.mean()[size_t(i)]);
    denom[size_t(i)] = float(std::sqrt(normalizer_.variance()[size_t(i)]) + ObservationNormalizer::kEpsilon);
  }
  return ppo_->net()->export_policy(info, mean, denom);
}

void PpoRunner::save(int iteration) {
  nlohmann::json meta = {{"format", kCheckpointFormat}, {"version", kCheckpointVersion}, {"identity", identity_},
                         {"iteration", iteration}, {"learning_rate", ppo_->learning_rate()},
                         {"obs_mean", normalizer_.mean()}, {"obs_var", normalizer_.variance()},
                         {"obs_count", normalizer_.count()}};
  meta["rows"] = nlohmann::json::array();
  for (const auto& r : result_.rows) meta["rows"].push_back(row_to_json(r));
  train::CheckpointWriter w;
  w.module("net", *ppo_->net());
  w.optimizer("optimizer", ppo_->optimizer());
  w.blob("env_state", env_.save_state());
  for (const auto& c : components_) c->save(meta, w);
  w.commit(ckpt_path_, meta);
  last_saved_ = iteration;
  write_iteration_csv(o_.out_dir + "/log.csv", result_.rows, result_.term_names);
  write_reward_curves(o_.out_dir, result_.rows,
                      str_cat("PPO ", env_.task().name(), " on ", env_.backend().kind(), " (", env_.envs(), " envs)"));
  current_policy(iteration, nlohmann::json::object()).save(policy_dir_);
}

double PpoRunner::collect(env::VecEnv& env, int first_env, Rng& noise, double& policy_seconds,
                          const std::function<void()>& after_step) {
  const int E = env.envs(), D = env.observation_dim();
  const bool imagined = &env == &env_;
  double reward_sum = 0;
  for (int t = 0; t < o_.ppo.steps_per_env; ++t) {
    auto t0 = Clock::now();
    if (imagined) normalizer_.update(env.observations(), E);
    normalizer_.normalize(env.observations(), E, obs_n_.data());
    ppo_->act(t, first_env, E, obs_n_.data(), noise, actions_.data());
    policy_seconds += seconds_since(t0);
    env.step(actions_.data());
    if (after_step) after_step();
    t0 = Clock::now();
    int timeouts = 0;
    for (int e = 0; e < E; ++e) {
      reward_sum += env.rewards()[e];
      bootstrap_[size_t(e)] = 0;
      if (env.timed_out()[e]) {  // gather, evaluate together
        std::memcpy(final_n_.data() + size_t(timeouts) * size_t(D), env.final_observations() + size_t(e) * size_t(D),
                    sizeof(float) * size_t(D));
        ++timeouts;
      }
    }
    if (timeouts > 0) {
      normalizer_.normalize(final_n_.data(), timeouts, final_n_.data());
      ppo_->values(final_n_.data(), timeouts, final_values_.data());
      for (int e = 0, k = 0; e < E; ++e)
        if (env.timed_out()[e]) bootstrap_[size_t(e)] = float(o_.ppo.gamma * final_values_[size_t(k++)]);
    }
    ppo_->record(t, first_env, E, env.rewards(), env.terminated(), env.timed_out(), bootstrap_.data());
    policy_seconds += seconds_since(t0);
  }
  return reward_sum;
}

void PpoRunner::explore_step(env::VecEnv& env, Rng& noise) {
  normalizer_.normalize(env.observations(), env.envs(), obs_n_.data());  // the step buffers hold every set's rows
  ppo_->explore(env.envs(), obs_n_.data(), noise, actions_.data());
  env.step(actions_.data());
}

void PpoRunner::normalize(const float* observations, int rows, float* out) const {
  normalizer_.normalize(observations, rows, out);
}

void PpoRunner::update(IterationRow& row, Rng& order) {
  const auto t0 = Clock::now();
  const int E = env_.envs();
  normalizer_.normalize(env_.observations(), E, last_obs_n_.data());
  float* next = last_obs_n_.data() + size_t(E) * size_t(env_.observation_dim());
  for (const auto& c : components_) {  // their environments' observations after their last step
    c->last_observations(*this, next);
    next += size_t(c->batch_envs()) * size_t(env_.observation_dim());
  }
  {
    const ScopeExit blas = engine::blas_threads(update_threads_);
    row.stats = ppo_->update(last_obs_n_.data(), order);
  }
  row.update_s = seconds_since(t0);
}

void PpoRunner::log_iteration(IterationRow& row, double reward_sum, double iteration_seconds) {
  const int64_t T = o_.ppo.steps_per_env, E = env_.envs();
  row.dynamics_s = env_.backend().timings().dynamics_seconds;
  row.sensing_s = env_.backend().timings().sensing_seconds;
  clock_ += iteration_seconds;
  transitions_ += T * E;
  row.seconds = clock_;
  row.transitions = transitions_;
  row.reward_per_step = reward_sum / (double(T) * double(E));
  row.episode_reward = row.reward_per_step * env_.task().episode_steps();
  const env::EpisodeStats ep = env_.take_episode_stats();
  row.episodes = ep.episodes;
  row.branched_starts = ep.branched_starts;
  if (ep.episodes > 0) {
    row.finished_return = ep.mean_return();
    row.finished_length = ep.mean_length();
    if (env_.uncertainty().penalty > 0) row.uncertainty_penalty = ep.uncertainty_sum / double(ep.episodes);
  }
  row.uncertainty_truncations = ep.uncertainty_truncations;
  for (double s : ep.term_sums) row.terms.push_back(ep.episodes ? s / double(ep.episodes) : 0.0);
}

// The paper's checkpoint selection: keep the mean policy that scored best in the analytic
// simulator so far (ties keep the earlier one).
void PpoRunner::evaluate(IterationRow& row) {
  const int iteration = row.iteration;
  row.eval_reward =
      evaluate_policy(*o_.eval_env, current_policy(iteration, nlohmann::json::object()), o_.eval_steps).episode_reward;
  double best = -std::numeric_limits<double>::infinity();
  for (const auto& r : result_.rows)
    if (std::isfinite(r.eval_reward)) best = std::max(best, r.eval_reward);
  if (std::isfinite(row.eval_reward) && row.eval_reward > best)
    current_policy(iteration, {{"selected_by", {{"eval_reward", row.eval_reward}, {"iteration", iteration},
                                                {"eval_envs", o_.eval_env->envs()}, {"eval_steps", o_.eval_steps}}}})
        .save(best_dir_);
}

PpoRunResult PpoRunner::run() {
  ProgressLine progress(str_cat("ppo ", env_.task().name(), " on ", env_.backend().kind()), o_.iterations, "it",
                        o_.progress);
  progress.resume_from(start_);
  PenaltyRamp ramp(env_.task(), o_.penalty_ramp, o_.penalty_delay);  // the full scales come back when the run ends
  for (int it = start_; it < o_.iterations; ++it) {
    ramp.apply(it);
    IterationRow row;
    row.iteration = it + 1;
    const auto t_iter = Clock::now();
    env_.backend().clear_timings();
    const double task_before = env_.task_seconds();
    Rng noise = Rng::stream(o_.seed, 2 * uint64_t(it));
    Rng order = Rng::stream(o_.seed, 2 * uint64_t(it) + 1);
    for (const auto& c : components_) c->before_collection(*this, row, it);
    const double reward_sum = collect(env_, 0, noise, row.policy_s, nullptr);
    update(row, order);
    stop_unless_finite(it + 1, reward_sum, row.stats, *ppo_->net(), o_.out_dir, last_saved_);
    row.task_s = env_.task_seconds() - task_before;
    log_iteration(row, reward_sum, seconds_since(t_iter));
    for (const auto& c : components_) c->after_iteration(row);
    if (o_.eval_env && o_.eval_every > 0 && ((it + 1) % o_.eval_every == 0 || it + 1 == o_.iterations)) evaluate(row);
    result_.rows.push_back(row);
    progress.update(it + 1, str_cat("return ", std::isfinite(row.finished_return) ? str_cat(row.finished_return) : std::string("-"),
                                    std::isfinite(row.eval_reward) ? str_cat(" eval ", row.eval_reward) : ""));
    if ((it + 1) % std::max(1, o_.checkpoint_every) == 0 || it + 1 == o_.iterations) save(it + 1);
  }
  progress.finish();
  if (start_ == o_.iterations) save(start_);
  return result_;
}

PpoRunResult run_ppo(env::VecEnv& env, const PpoRunOptions& o) { return PpoRunner(env, o).run(); }

}  // namespace flashnerd::rl
