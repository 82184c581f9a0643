// Runs a policy's mean actions in a VecEnv (e.g. MuJoCo) and measures the training reward:
// every environment steps `steps` times (auto-reset), rewards are averaged per step and
// reported on the scale of one episode (× the task's episode steps), overall and per term.
#pragma once

#include <string>
#include <vector>

#include "env/vec_env.h"
#include "rl/policy.h"

namespace flashnerd::rl {

struct PolicyEvaluation {
  double episode_reward = 0;       // mean reward per step × episode steps
  std::vector<double> terms;       // the same per reward term (scaled)
  int64_t terminations = 0, timeouts = 0;
  double seconds = 0;
};

// env is reset first; policy widths must match the task's.
PolicyEvaluation evaluate_policy(env::VecEnv& env, const Policy& policy, int steps);

}  // namespace flashnerd::rl
