// VecEnv = Task × Backend (docs/DESIGN.md §9): steps every environment with the policy's actions,
// computes rewards and terminations, and resets finished environments automatically, each
// from its own seeded RNG stream (same seed, same bits, whatever the thread count). A reset
// clears only that environment's history. Time-outs are reported apart from terminations,
// with the observation the episode ended in, so PPO can bootstrap them. Per-term rewards of
// finished episodes are accumulated for logs. No allocation per step.
//
// Autoreset modes (Gymnasium's names):
// - SameStep (PPO's): a finished environment starts its new episode inside the step that
//   ended it; observations() then holds the new episode's first observation and
//   final_observations() the one the episode ended in.
// - NextStep (Gymnasium 1.x's default): the step that ends an episode returns its final
//   observation; the next step resets that environment instead of stepping it (its action
//   is ignored, its reward 0, neither flag set) and returns the new first observation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "env/backend.h"
#include "env/start_buffer.h"
#include "env/task.h"

namespace flashnerd::env {

// Episodes finished since the last take_episode_stats().
struct EpisodeStats {
  int64_t episodes = 0;
  double return_sum = 0;               // Σ episode returns
  double length_sum = 0;               // Σ episode lengths (steps)
  int64_t timeouts = 0;
  std::vector<double> term_sums;       // Σ over episodes of each reward term's scaled sum
  double uncertainty_sum = 0;          // Σ over episodes of the uncertainty penalty taken
  int64_t uncertainty_truncations = 0; // episodes truncated for disagreement
  int64_t branched_starts = 0;         // episodes started from a real state (BranchedStarts)
  double mean_return() const { return episodes ? return_sum / double(episodes) : 0.0; }
  double mean_length() const { return episodes ? length_sum / double(episodes) : 0.0; }
};

// When an ended episode's environment starts again (Gymnasium 1.x's autoreset modes): inside
// the ending step (SameStep: rsl_rl, legged_gym), at the next step, which ignores its action
// (NextStep), or only when the caller resets it (Disabled: reset_envs with a mask). Until then
// a Disabled environment is held as it ended: the same observation and flags at every step,
// reward 0, no new episode (the backend steps it on; nothing reads it).
enum class Autoreset { SameStep, NextStep, Disabled };
extern const EnumName<Autoreset> kAutoresetNames[3];  // same_step, next_step, disabled

// Uncertainty of an ensemble backend in the reward (MOPO, RWM-U) and in the episode's end
// (MOReL): each step's reward loses penalty · disagreement · dt (a rate per second, like the
// task's terms), and an episode is truncated (bootstrapped, not terminated) at a step whose
// disagreement exceeds truncate_above. Zero turns either off; with both off nothing changes.
struct UncertaintyOptions {
  double penalty = 0;
  double truncate_above = 0;
  bool any() const { return penalty > 0 || truncate_above > 0; }
};

// Branched starts (MBPO, RWM): a share of new episodes starts from a real state drawn from a
// StartBuffer, with its recorded history, and may time out sooner than the task's episodes
// (short branches keep the model's drift short). Off (no buffer, or share 0) draws nothing.
struct BranchedStarts {
  const StartBuffer* buffer = nullptr;  // not owned; may be empty for a while (no branch then)
  double fraction = 0;                  // share of new episodes that branch, in [0, 1]
  int steps = 0;                        // steps after which a branched episode times out (0: the task's)
  bool on() const { return buffer != nullptr && fraction > 0; }
};

class VecEnv {
 public:
  VecEnv(Task& task, Backend& backend, ThreadPool& pool, uint64_t seed, Autoreset autoreset = Autoreset::SameStep);

  // What one environment's buffers take (observations, reward terms, commands, episode state,
  // the task's own state, and a caller's copies of observations and actions), for memory
  // estimates made before anything is allocated.
  static double bytes_per_env(int observation_dim, int reward_terms, int nu);

  int envs() const { return envs_; }
  int observation_dim() const { return obs_dim_; }
  int action_dim() const { return act_dim_; }
  Task& task() { return *task_; }
  const Task& task() const { return *task_; }
  Backend& backend() { return *backend_; }
  const Backend& backend() const { return *backend_; }

  // Every environment starts a new episode (the first call; later resets are automatic).
  void reset_all();
  // The environments where mask[e] != 0 start a new episode; the others go on untouched.
  void reset_envs(const uint8_t* mask);
  // Environment e draws its resets from the stream of `seed` from now on (per-env seeds);
  // the constructor's seed s gives environment e the stream (s, e).
  void seed_env(int env, uint64_t seed);
  // Uncertainty in reward and episode end (needs an ensemble backend when any()).
  void set_uncertainty(const UncertaintyOptions& o);
  const UncertaintyOptions& uncertainty() const { return uncertainty_; }
  // Branched starts from now on (a learned backend's history takes each start's real frames).
  void set_branched_starts(const BranchedStarts& b);
  const BranchedStarts& branched_starts() const { return branched_; }
  // Recomputes every observation (after the task's state was changed from outside, e.g. a
  // fixed command for an evaluation).
  void refresh_observations();
  // One control step of every environment with actions (envs, action_dim).
  void step(const float* actions);

  const float* observations() const { return obs_.data(); }         // (envs, obs_dim) after reset
  const float* rewards() const { return reward_.data(); }           // (envs)
  const uint8_t* terminated() const { return terminated_.data(); }  // (envs) failure ends
  const uint8_t* timed_out() const { return timed_out_.data(); }    // (envs) truncations
  // Observation in which an environment's episode ended, at the step it ended (terminated or
  // timed out; envs, obs_dim); rows of other environments are stale.
  const float* final_observations() const { return final_obs_.data(); }
  // The backend commands of the last step (envs, nu): the task's mapping of the actions.
  const double* commands() const { return u_.data(); }
  Autoreset autoreset() const { return autoreset_; }
  int episode_step(int env) const { return steps_[size_t(env)]; }
  // The episodes that ended at the last step (envs; a held or NextStep reset step ends none),
  // with each one's return, length (steps) and wall seconds since its reset: Gymnasium's
  // RecordEpisodeStatistics; rows of other environments are stale.
  const uint8_t* episode_ended() const { return episode_ended_.data(); }
  const double* ended_returns() const { return ended_return_.data(); }
  const int* ended_lengths() const { return ended_length_.data(); }
  const double* ended_seconds() const { return ended_seconds_.data(); }
  // Simulated seconds per step: the backend's control timestep times the task's control steps
  // per action (the dt of every reward rate).
  double step_seconds() const { return backend_->control_timestep() * task_->control_steps(); }
  // Unscaled reward-term values of env's last step (task().reward_terms() order; zeros for
  // a NextStep reset step).
  const double* term_values(int env) const { return term_values_.data() + size_t(env) * size_t(terms_); }

  EpisodeStats take_episode_stats();
  double task_seconds() const { return task_seconds_; }

  // Everything needed to continue bit-exactly: the backend's states and histories, the task's
  // state, RNG streams, episode counters.
  std::string save_state() const;
  void load_state(const std::string& bytes);

 private:
  void start_episode(int env);
  // A task with batch observation columns (Task::observes_batch): row is env's observation to
  // complete; observe_batch_rows() completes every marked row in one call.
  void mark_batch_row(int env, float* row);
  void observe_batch_rows();
  void io_state(StateIo& io, std::string& backend);  // the fields save_state / load_state share

  Task* task_;
  Backend* backend_;
  ThreadPool* pool_;
  Autoreset autoreset_;
  int envs_, obs_dim_, act_dim_, nu_, terms_;
  std::vector<Rng> rng_;
  std::vector<double> u_, q0_, v0_, oq0_, ov0_, term_values_, episode_terms_;
  std::vector<float> obs_, final_obs_, reward_;
  std::vector<double> episode_return_, episode_uncertainty_;
  std::vector<uint8_t> uncertainty_truncated_;
  UncertaintyOptions uncertainty_;
  BranchedStarts branched_;
  std::vector<int> horizon_;  // per env: steps after which its episode times out
  std::vector<int> steps_;
  std::vector<uint8_t> terminated_, timed_out_;
  std::vector<uint8_t> reset_pending_;  // NextStep: the episode ended at the last step
  std::vector<uint8_t> held_;           // Disabled: ended, not reset yet
  std::vector<uint8_t> episode_ended_;
  std::vector<double> ended_return_, ended_seconds_, started_at_;
  std::vector<int> ended_length_;
  EpisodeStats stats_;
  double task_seconds_ = 0;
  bool batch_observations_ = false, batch_rows_set_ = false;
  std::vector<float*> batch_rows_;  // (envs): rows observe_batch completes, nullptr elsewhere
};

}  // namespace flashnerd::env
