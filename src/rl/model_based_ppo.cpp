#include "rl/model_based_ppo.h"

#include <chrono>
#include <functional>
#include <utility>

#include "core/blob.h"
#include "core/error.h"
#include "core/stopwatch.h"
#include "train/checkpoint.h"

namespace flashnerd::rl {

namespace {

// The real environments' action noise: streams of their own, apart from the imagined ones'
constexpr uint64_t kRealStreams = 0x7265616c656e7673ull;

using Clock = std::chrono::steady_clock;

void check_real(const RealEnvOptions& real, const ModelBasedRun& run) {
  const env::VecEnv& imagined = *run.imagined;
  FN_CHECK(real.env->task().name() == imagined.task().name() &&
               real.env->observation_dim() == imagined.observation_dim() &&
               real.env->action_dim() == imagined.action_dim() &&
               real.env->backend().robot().name() == imagined.backend().robot().name(),
           "ppo: the real environments run ", real.env->task().name(), " on ", real.env->backend().robot().name(),
           ", the imagined ones ", imagined.task().name(), " on ", imagined.backend().robot().name());
  FN_CHECK(real.env != &imagined && real.env != run.eval_env, "ppo: the real environments must be a VecEnv of their own");
  FN_CHECK(real.every >= 1 && real.steps >= 1 && real.buffer_capacity >= 1, "ppo: real environments every ",
           real.every, " iterations for ", real.steps, " steps, ", real.buffer_capacity,
           " starts held (each must be >= 1)");
  FN_CHECK(!real.in_batch || (real.every == 1 && real.steps == run.steps_per_env),
           "ppo: real transitions in the PPO batch need an exploration every iteration (now every ", real.every,
           ") of PPO's ", run.steps_per_env, " steps per environment (now ", real.steps, ")");
}

void check_refresh(const ModelRefreshOptions& r) {
  FN_CHECK(r.load != nullptr && !r.model_dir.empty(), "ppo: a model refresh needs the model's "
           "directory and a way to reload it");
  FN_CHECK(r.updates >= 1 && r.batch >= 1 && r.max_windows >= 2 && r.lr > 0, "ppo: model refreshes of ", r.updates,
           " updates of ", r.batch, " windows, lr ", r.lr, ", ", r.max_windows,
           " windows kept (updates and batch >= 1, lr > 0, >= 2 windows)");
  r.check_schedule();
}

}  // namespace

ModelBasedPpo::ModelBasedPpo(const RealEnvOptions& real, ModelRefreshOptions refresh, const ModelBasedRun& run)
    : real_(real), refresh_(std::move(refresh)), run_(run) {
  FN_CHECK(real_.env != nullptr, "ppo: model-based PPO needs real environments");
  check_real(real_, run_);
  env::VecEnv& imagined = *run_.imagined;
  const env::Backend& b = real_.env->backend();
  const int frames = imagined.backend().history_frames();
  starts_ = std::make_unique<env::StartBuffer>(frames, b.nq(), b.nv(), b.nu(), real_.buffer_capacity);
  recorder_ = std::make_unique<env::HistoryRecorder>(*real_.env, frames);
  imagined.set_branched_starts({starts_.get(), real_.branch_fraction, real_.branch_steps});
  if (refresh_.on()) {
    check_refresh(refresh_);
    windows_ = std::make_unique<env::CommandPlanRecorder>(*real_.env, real_.steps, refresh_.max_windows);
    explored_ = std::make_unique<ExploredData>(refresh_.robot, refresh_.generate, *refresh_.pool);
    model_dir_ = refresh_.model_dir;
  }
  if (real_.in_batch)
    ramp_ = std::make_unique<PenaltyRamp>(real_.env->task(), run_.penalty_ramp, run_.penalty_delay);
}

ModelBasedPpo::~ModelBasedPpo() = default;

nlohmann::json ModelBasedPpo::settings() const {
  nlohmann::json j = nlohmann::json::object();
  j["real"] = {{"envs", real_.env->envs()}, {"backend", real_.env->backend().kind()}, {"every", real_.every},
               {"steps", real_.steps}, {"branch_fraction", real_.branch_fraction},
               {"branch_steps", real_.branch_steps}, {"buffer_capacity", real_.buffer_capacity}};
  if (real_.in_batch) j["real"]["in_batch"] = true;  // absent: as before
  if (refresh_.on()) {
    j["refresh"] = {{"every", refresh_.every}, {"updates", refresh_.updates}, {"batch", refresh_.batch},
                    {"lr", refresh_.lr}, {"max_windows", refresh_.max_windows}};
    if (refresh_.precision != train::TrainingPrecision::FP32)  // fp32 runs: as before
      j["refresh"]["precision"] = train::training_precision_name(refresh_.precision);
    for (const RefreshUpdatesFrom& s : refresh_.updates_from)  // a fixed budget: as before
      j["refresh"]["updates_from"].push_back({s.from, s.updates});
  }
  return j;
}

int ModelBasedPpo::batch_envs() const { return real_.in_batch ? real_.env->envs() : 0; }

int ModelBasedPpo::step_rows() const { return real_.env->envs(); }

void ModelBasedPpo::start() {
  real_.env->reset_all();
  recorder_->restart();
}

void ModelBasedPpo::before_collection(PpoRunnerAccess& runner, IterationRow& row, int iteration) {
  if (ramp_) ramp_->apply(iteration);
  if (iteration % real_.every == 0) explore(runner, row, iteration);
  if (refresh_.on() && (iteration + 1) % refresh_.every == 0) refresh(row, iteration);
}

// The current policy explores the real environments (exploration noise, observations
// normalized by the imagined run's statistics, which it leaves alone); every state they reach
// becomes a start, with its history.
void ModelBasedPpo::explore(PpoRunnerAccess& runner, IterationRow& row, int iteration) {
  const auto t0 = Clock::now();
  env::VecEnv& real = *real_.env;
  const int R = real.envs();
  Rng noise = Rng::stream(run_.seed ^ kRealStreams, uint64_t(iteration));
  if (windows_) windows_->begin_window();
  const std::function<void()> record_starts = [&] {
    recorder_->after_step();
    if (windows_) windows_->after_step();
    for (int e = 0; e < R; ++e)
      if (recorder_->recorded(e) > 0) recorder_->add_to(*starts_, e);
  };
  if (real_.in_batch) {  // into the storage's columns after the imagined environments'
    double policy_seconds = 0;
    runner.collect(real, run_.imagined->envs(), noise, policy_seconds, record_starts);
  } else {
    for (int t = 0; t < real_.steps; ++t) {
      runner.explore_step(real, noise);
      record_starts();
    }
  }
  real_transitions_ += int64_t(R) * real_.steps;
  const env::EpisodeStats ep = real.take_episode_stats();
  if (ep.episodes > 0) row.real_return = ep.mean_return();
  row.real_s = seconds_since(t0);
}

// The model continues training on every window explored so far (the last max_windows), into an
// artifact of this iteration's own; the imagined environments start again on it (their
// histories came from the old weights).
void ModelBasedPpo::refresh(IterationRow& row, int iteration) {
  const auto t0 = Clock::now();
  const Dataset& explored = explored_->update(*windows_);
  row.refresh_replay_s = seconds_since(t0);
  const int64_t updates = refresh_.updates_at(iteration + 1);
  const RefreshResult r = refresh_model(refresh_, explored, updates, model_dir_,
                                        str_cat(run_.out_dir, "/model_refresh/iteration_", iteration + 1),
                                        run_.seed + uint64_t(iteration));
  refresh_.load(r.model_dir);
  model_dir_ = r.model_dir;
  run_.imagined->reset_all();
  refresh_updates_ += updates;
  row.refresh_s = seconds_since(t0);
  row.model_valid_loss = r.valid_loss;
}

void ModelBasedPpo::last_observations(const PpoRunnerAccess& runner, float* out) const {
  if (real_.in_batch) runner.normalize(real_.env->observations(), real_.env->envs(), out);
}

void ModelBasedPpo::after_iteration(IterationRow& row) {
  row.real_transitions = real_transitions_;
  row.refresh_updates = refresh_updates_;
}

void ModelBasedPpo::save(nlohmann::json& meta, train::CheckpointWriter& writer) const {
  if (refresh_.on()) meta["model_dir"] = model_dir_;
  BlobWriter w;
  StateIo io(w);
  std::string real = real_.env->save_state();
  io.io(real);
  recorder_->io_state(io);
  starts_->io_state(io);
  if (windows_) windows_->io_state(io);
  writer.blob(name() + "_state", w.bytes());
}

// A run refreshed before its checkpoint steps the model the checkpoint names.
void ModelBasedPpo::reload(const nlohmann::json& meta) {
  if (!refresh_.on() || meta.at("model_dir").get<std::string>() == model_dir_) return;
  model_dir_ = meta.at("model_dir").get<std::string>();
  refresh_.load(model_dir_);
}

void ModelBasedPpo::load(const train::CheckpointReader& reader, const IterationRow* last) {
  const std::string bytes = reader.blob(name() + "_state");  // the reader reads it in place
  BlobReader r(bytes, "the real environments' state");
  StateIo io(r);
  std::string real;
  io.io(real);
  real_.env->load_state(real);
  recorder_->io_state(io);
  starts_->io_state(io);
  if (windows_) windows_->io_state(io);
  r.expect_end();
  if (last != nullptr) {
    real_transitions_ = last->real_transitions;
    refresh_updates_ = last->refresh_updates;
  }
}

}  // namespace flashnerd::rl
