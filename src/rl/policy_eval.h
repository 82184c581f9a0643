// Runs a policy's mean actions in a VecEnv (e.g. MuJoCo) and measures the training reward:
// the return of every environment's first episode (from reset to its termination or
// time-out, at most `steps` steps), averaged over environments, overall and per term.
#pragma once

#include <string>
#include <vector>

#include "env/vec_env.h"
#include "rl/policy.h"

namespace flashnerd::rl {

struct PolicyEvaluation {
  double episode_reward = 0;       // mean first-episode return
  std::vector<double> terms;       // the same per reward term (scaled)
  int64_t terminations = 0, timeouts = 0;  // how the first episodes ended (the rest ran out of steps)
  double mean_length = 0;          // steps of the first episodes
  // Per first episode (one per environment): its return, whether it terminated, and the
  // unscaled sum of each reward term's values (e.g. targets reached, for cube-reorient).
  std::vector<double> episode_returns;
  std::vector<uint8_t> episode_terminated;
  std::vector<std::vector<double>> episode_term_sums;  // [term][env]
  double seconds = 0;
};

// env is reset first; policy widths must match the task's.
PolicyEvaluation evaluate_policy(env::VecEnv& env, const Policy& policy, int steps);

}  // namespace flashnerd::rl
