#include "env/vec_env.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace flashnerd::env {

const EnumName<Autoreset> kAutoresetNames[3] = {
    {Autoreset::SameStep, "same_step"}, {Autoreset::NextStep, "next_step"}, {Autoreset::Disabled, "disabled"}};

namespace {
double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

double VecEnv::bytes_per_env(int observation_dim, int reward_terms, int nu) {
  const double own = sizeof(float) * 2.0 * observation_dim + sizeof(double) * (2.0 * reward_terms + nu + 8) + sizeof(Rng);
  const double task_state = 256, caller_copies = sizeof(float) * 2.0 * observation_dim;
  return own + task_state + caller_copies;
}

VecEnv::VecEnv(Task& task, Backend& backend, ThreadPool& pool, uint64_t seed, Autoreset autoreset)
    : task_(&task), backend_(&backend), pool_(&pool), autoreset_(autoreset), envs_(backend.envs()) {
  obs_dim_ = task.observation_dim();
  act_dim_ = task.action_dim();
  nu_ = backend.nu();
  terms_ = int(task.reward_terms().size());
  task.allocate(envs_);
  if (!task.tracked_bodies().empty()) backend.track_bodies(task.tracked_bodies());
  const size_t E = size_t(envs_);
  for (int e = 0; e < envs_; ++e) rng_.push_back(Rng::stream(seed, uint64_t(e)));
  u_.assign(E * size_t(nu_), 0.0);
  q0_.assign(size_t(backend.nq()), 0.0);
  v0_.assign(size_t(backend.nv()), 0.0);
  oq0_.assign(size_t(backend.object_nq()), 0.0);
  ov0_.assign(size_t(backend.object_nv()), 0.0);
  term_values_.assign(E * size_t(terms_), 0.0);
  episode_terms_.assign(E * size_t(terms_), 0.0);
  obs_.assign(E * size_t(obs_dim_), 0.0f);
  final_obs_.assign(E * size_t(obs_dim_), 0.0f);
  reward_.assign(E, 0.0f);
  episode_return_.assign(E, 0.0);
  episode_uncertainty_.assign(E, 0.0);
  uncertainty_truncated_.assign(E, 0);
  steps_.assign(E, 0);
  horizon_.assign(E, task.episode_steps());
  terminated_.assign(E, 0);
  timed_out_.assign(E, 0);
  reset_pending_.assign(E, 0);
  held_.assign(E, 0);
  episode_ended_.assign(E, 0);
  ended_return_.assign(E, 0.0);
  ended_seconds_.assign(E, 0.0);
  started_at_.assign(E, 0.0);
  ended_length_.assign(E, 0);
  stats_.term_sums.assign(size_t(terms_), 0.0);
  batch_observations_ = task.observes_batch();
  batch_rows_.assign(E, nullptr);
}

void VecEnv::observe_batch_rows() {
  if (!batch_rows_set_) return;
  task_->observe_batch(*backend_, batch_rows_.data());
  std::fill(batch_rows_.begin(), batch_rows_.end(), nullptr);
  batch_rows_set_ = false;
}

void VecEnv::mark_batch_row(int e, float* row) {
  if (!batch_observations_) return;
  batch_rows_[size_t(e)] = row;
  batch_rows_set_ = true;
}

void VecEnv::start_episode(int e) {
  task_->reset(e, rng_[size_t(e)], q0_.data(), v0_.data());
  backend_->reset(e, q0_.data(), v0_.data());
  if (backend_->object_nq() > 0 && task_->reset_objects(e, rng_[size_t(e)], oq0_.data(), ov0_.data()))
    backend_->set_objects(e, oq0_.data(), ov0_.data());
  horizon_[size_t(e)] = task_->episode_steps();
  if (branched_.on() && branched_.buffer->size() > 0 && rng_[size_t(e)].uniform() < branched_.fraction) {
    // the task keeps the episode it drew (command, its own state); the robot takes a real state
    const StartBuffer::Start s = branched_.buffer->draw(rng_[size_t(e)]);
    backend_->reset_with_history(e, s.frames, s.q, s.v, s.u);
    if (branched_.steps > 0) horizon_[size_t(e)] = std::min(horizon_[size_t(e)], branched_.steps);
    ++stats_.branched_starts;
  }
  steps_[size_t(e)] = 0;
  held_[size_t(e)] = 0;
  started_at_[size_t(e)] = wall_seconds();
  episode_return_[size_t(e)] = 0;
  episode_uncertainty_[size_t(e)] = 0;
  std::fill_n(episode_terms_.data() + size_t(e) * size_t(terms_), terms_, 0.0);
  task_->observe(e, *backend_, obs_.data() + size_t(e) * size_t(obs_dim_));
  mark_batch_row(e, obs_.data() + size_t(e) * size_t(obs_dim_));
}

void VecEnv::reset_all() {
  for (int e = 0; e < envs_; ++e) start_episode(e);
  observe_batch_rows();
  std::fill(reset_pending_.begin(), reset_pending_.end(), 0);
}

void VecEnv::reset_envs(const uint8_t* mask) {
  for (int e = 0; e < envs_; ++e) {
    if (!mask[e]) continue;
    start_episode(e);
    reset_pending_[size_t(e)] = 0;
  }
  observe_batch_rows();
}

void VecEnv::seed_env(int env, uint64_t seed) {
  FN_CHECK(env >= 0 && env < envs_, "seed_env: environment ", env, " of ", envs_);
  rng_[size_t(env)] = Rng::stream(seed, 0);
}

void VecEnv::refresh_observations() {
  for (int e = 0; e < envs_; ++e) {
    task_->observe(e, *backend_, obs_.data() + size_t(e) * size_t(obs_dim_));
    mark_batch_row(e, obs_.data() + size_t(e) * size_t(obs_dim_));
  }
  observe_batch_rows();
}

void VecEnv::step(const float* actions) {
  auto t0 = std::chrono::steady_clock::now();
  pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e)
      task_->command(int(e), actions + size_t(e) * size_t(act_dim_), u_.data() + size_t(e) * size_t(nu_));
  });
  double task_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int control_steps = task_->control_steps();
  for (int k = 0; k < control_steps; ++k) backend_->step(u_.data());
  t0 = std::chrono::steady_clock::now();
  task_->evaluate_batch(*backend_, actions);
  const double dt = step_seconds();
  const auto& terms = task_->reward_terms();
  pool_->parallel_for(envs_, [&](int64_t e0, int64_t e1, int) {
    for (int64_t e = e0; e < e1; ++e) {
      episode_ended_[size_t(e)] = 0;
      if (reset_pending_[size_t(e)] || held_[size_t(e)]) {  // NextStep's reset (after the loop), Disabled's hold
        reward_[size_t(e)] = 0;
        std::fill_n(term_values_.data() + size_t(e) * size_t(terms_), terms_, 0.0);
        if (reset_pending_[size_t(e)]) terminated_[size_t(e)] = timed_out_[size_t(e)] = 0;  // held: as it ended
        continue;
      }
      double* values = term_values_.data() + size_t(e) * size_t(terms_);
      // a failed backend step (non-finite or unstable state) ends the episode whatever the task
      const bool ended = task_->evaluate(int(e), *backend_, actions + size_t(e) * size_t(act_dim_),
                                         rng_[size_t(e)], values) ||
                         backend_->failed(int(e));
      double r = 0, r_after_clip = 0;
      double* episode = episode_terms_.data() + size_t(e) * size_t(terms_);
      for (int k = 0; k < terms_; ++k) {
        const double scaled = terms[size_t(k)].scale * values[k] * dt;
        episode[k] += scaled;
        (terms[size_t(k)].after_clip ? r_after_clip : r) += scaled;
      }
      if (task_->clip_negative_reward() && r < 0) r = 0;
      r += r_after_clip;
      bool too_uncertain = false;
      if (uncertainty_.any()) {
        const double u = backend_->disagreement(int(e));
        const double penalty = uncertainty_.penalty * u * dt;
        r -= penalty;
        episode_uncertainty_[size_t(e)] += penalty;
        too_uncertain = uncertainty_.truncate_above > 0 && u > uncertainty_.truncate_above;
      }
      reward_[size_t(e)] = float(r);
      episode_return_[size_t(e)] += r;
      const int steps = ++steps_[size_t(e)];
      terminated_[size_t(e)] = ended ? 1 : 0;
      const int horizon = horizon_[size_t(e)];
      timed_out_[size_t(e)] = !ended && (steps >= horizon || too_uncertain) ? 1 : 0;
      uncertainty_truncated_[size_t(e)] = !ended && steps < horizon && too_uncertain ? 1 : 0;
      const bool done = terminated_[size_t(e)] || timed_out_[size_t(e)];
      float* obs = obs_.data() + size_t(e) * size_t(obs_dim_);
      float* final_obs = final_obs_.data() + size_t(e) * size_t(obs_dim_);
      task_->observe(int(e), *backend_, done ? final_obs : obs);
      if (batch_observations_) batch_rows_[size_t(e)] = done ? final_obs : obs;
      else if (done && autoreset_ != Autoreset::SameStep) std::memcpy(obs, final_obs, sizeof(float) * size_t(obs_dim_));
    }
  });
  if (batch_observations_) {  // the batch columns of every row observed above, before any reset
    task_->observe_batch(*backend_, batch_rows_.data());
    for (int e = 0; e < envs_; ++e) {  // NextStep and Disabled return the final observation as the step's
      float* final_obs = final_obs_.data() + size_t(e) * size_t(obs_dim_);
      if (autoreset_ != Autoreset::SameStep && batch_rows_[size_t(e)] == final_obs)
        std::memcpy(obs_.data() + size_t(e) * size_t(obs_dim_), final_obs, sizeof(float) * size_t(obs_dim_));
      batch_rows_[size_t(e)] = nullptr;
    }
  }
  // finished episodes: statistics, then a new episode (in env order, so the same bits
  // whatever the thread count; resets are rare next to steps)
  const double now = wall_seconds();
  for (int e = 0; e < envs_; ++e) {
    if (reset_pending_[size_t(e)]) {
      reset_pending_[size_t(e)] = 0;
      start_episode(e);
      continue;
    }
    if (held_[size_t(e)] || (!terminated_[size_t(e)] && !timed_out_[size_t(e)])) continue;
    episode_ended_[size_t(e)] = 1;
    ended_return_[size_t(e)] = episode_return_[size_t(e)];
    ended_length_[size_t(e)] = steps_[size_t(e)];
    ended_seconds_[size_t(e)] = now - started_at_[size_t(e)];
    stats_.episodes += 1;
    stats_.return_sum += episode_return_[size_t(e)];
    stats_.length_sum += steps_[size_t(e)];
    stats_.timeouts += timed_out_[size_t(e)];
    for (int k = 0; k < terms_; ++k) stats_.term_sums[size_t(k)] += episode_terms_[size_t(e) * size_t(terms_) + size_t(k)];
    stats_.uncertainty_sum += episode_uncertainty_[size_t(e)];
    stats_.uncertainty_truncations += uncertainty_truncated_[size_t(e)];
    if (autoreset_ == Autoreset::NextStep) {
      reset_pending_[size_t(e)] = 1;
    } else if (autoreset_ == Autoreset::SameStep) {
      start_episode(e);
    } else {
      held_[size_t(e)] = 1;  // Disabled: held until the caller resets it
    }
  }
  observe_batch_rows();  // the new episodes' first observations
  task_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  task_seconds_ += task_seconds;
}

void VecEnv::set_uncertainty(const UncertaintyOptions& o) {
  FN_CHECK(o.penalty >= 0 && std::isfinite(o.penalty) && o.truncate_above >= 0 && std::isfinite(o.truncate_above),
           "uncertainty penalty and truncation threshold must be finite and >= 0, got ", o.penalty, " and ",
           o.truncate_above);
  FN_CHECK(!o.any() || backend_->ensemble_size() > 1, "an uncertainty penalty or truncation needs an ensemble "
           "model (several members trained together); the ", backend_->kind(), " backend steps ",
           backend_->ensemble_size(), " model");
  uncertainty_ = o;
}

void VecEnv::set_branched_starts(const BranchedStarts& b) {
  FN_CHECK(b.fraction >= 0 && b.fraction <= 1, "branched starts: the share of branched episodes must be in [0, 1], got ",
           b.fraction);
  FN_CHECK(b.steps >= 0, "branched starts: steps must be >= 0, got ", b.steps);
  FN_CHECK(b.buffer == nullptr || task_->control_steps() == 1,
           "branched starts: task ", task_->name(), " holds each action for ", task_->control_steps(),
           " backend steps; a recorded history of actions cannot restore it");
  branched_ = b;
}

EpisodeStats VecEnv::take_episode_stats() {
  EpisodeStats s = stats_;
  stats_ = EpisodeStats{};
  stats_.term_sums.assign(size_t(terms_), 0.0);
  return s;
}

void VecEnv::io_state(StateIo& io, std::string& backend) {
  io.io(backend);
  io.io(rng_);
  io.io(obs_);
  io.io(episode_terms_);
  io.io(episode_return_);
  io.io(steps_);
  io.io(stats_.episodes);
  io.io(stats_.return_sum);
  io.io(stats_.length_sum);
  io.io(stats_.timeouts);
  io.io(stats_.term_sums);
  if (autoreset_ == Autoreset::NextStep) io.io(reset_pending_);  // SameStep states keep their format
  if (autoreset_ == Autoreset::Disabled) io.io(held_);
  if (uncertainty_.any()) {  // runs without it keep their format too
    io.io(episode_uncertainty_);
    io.io(stats_.uncertainty_sum);
    io.io(stats_.uncertainty_truncations);
  }
  if (branched_.on()) {  // runs without branches keep their format
    io.io(horizon_);
    io.io(stats_.branched_starts);
  }
}

std::string VecEnv::save_state() const {
  BlobWriter w;
  std::string backend = backend_->save_state();
  StateIo io(w);
  const_cast<VecEnv*>(this)->io_state(io, backend);
  task_->io_state(io);
  return w.bytes();
}

void VecEnv::load_state(const std::string& bytes) {
  BlobReader r(bytes, "environment state");
  std::string backend;  // its size is in the blob: no serialization just to learn it
  StateIo io(r);
  io_state(io, backend);
  backend_->load_state(backend);
  task_->io_state(io);
  r.expect_end();
}

}  // namespace flashnerd::env
