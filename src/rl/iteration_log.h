// The PPO training log: one row per iteration (returns, time split by part, update
// statistics, reward terms), kept in the checkpoint's meta so a resumed run continues it, and
// written as log.csv and the reward curves' data (reward_vs_time / reward_vs_transitions
// .plot.json) in the run's directory. Missing values are empty CSV cells and JSON nulls
// (core/log_number.h), as in the training log.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace flashnerd::rl {

struct PpoUpdateStats {
  double value_loss = 0, surrogate_loss = 0, entropy = 0, kl = 0, learning_rate = 0, action_std = 0;
};

struct IterationRow {
  int iteration = 0;            // 1-based
  int64_t transitions = 0;      // cumulative
  double seconds = 0;           // cumulative training wall time (evaluation excluded)
  double reward_per_step = 0;   // mean over the iteration's transitions
  double episode_reward = 0;    // reward_per_step × episode steps (the scale of an episode's return)
  double finished_return = std::numeric_limits<double>::quiet_NaN();  // mean return of episodes that ended
  int64_t episodes = 0;
  double finished_length = std::numeric_limits<double>::quiet_NaN();  // mean steps of episodes that ended
  // an ensemble's uncertainty penalty (VecEnv::set_uncertainty): the mean an ended episode paid,
  // and the episodes truncated for disagreement this iteration
  double uncertainty_penalty = std::numeric_limits<double>::quiet_NaN();
  int64_t uncertainty_truncations = 0;
  double eval_reward = std::numeric_limits<double>::quiet_NaN();  // eval env, per episode length
  double dynamics_s = 0, sensing_s = 0, policy_s = 0, update_s = 0, task_s = 0;
  PpoUpdateStats stats;
  // model-based PPO (PpoRunOptions::real): the real system's transitions so far (cumulative),
  // the seconds they took this iteration (inside `seconds`), the mean return of real episodes
  // that ended, and the imagined episodes that started from a real state this iteration
  int64_t real_transitions = 0;
  double real_s = 0;
  double real_return = std::numeric_limits<double>::quiet_NaN();
  int64_t branched_starts = 0;
  // on-policy model refreshes: fine-tune updates so far (cumulative), the seconds of this
  // iteration's refresh (replay and fine-tune, inside `seconds`) and of its replay of the new
  // windows, its one-step validation loss
  int64_t refresh_updates = 0;
  double refresh_s = 0;
  double refresh_replay_s = 0;
  double model_valid_loss = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> terms;  // mean per-step reward of each term × episode steps
};

nlohmann::json row_to_json(const IterationRow& r);
IterationRow row_from_json(const nlohmann::json& j);

// log.csv: a header naming every column (reward terms as term_NAME), then one row per iteration.
void write_iteration_csv(const std::string& path, const std::vector<IterationRow>& rows,
                         const std::vector<std::string>& term_names);
// Returns of finished episodes (and evaluations) against wall time and against transitions.
void write_reward_curves(const std::string& dir, const std::vector<IterationRow>& rows, const std::string& title);

}  // namespace flashnerd::rl
