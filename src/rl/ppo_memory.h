// What a PPO run allocates, summed into one estimate checked before the first allocation:
// the environments (imagined or MuJoCo, the evaluation's, the real ones), the rollout
// storage, the update's minibatch activations and gradients, the real start buffer and the
// windows kept for model refreshes. Parts that fit one by one are not let through together.
#pragma once

#include "core/system_memory.h"
#include "rl/ppo_runner.h"

namespace flashnerd::rl {

// The run's shape as known before anything is made.
struct PpoMemoryShape {
  int envs = 0, real_envs = 0;  // PPO's environments; MuJoCo's beside them (model-based PPO)
  int observation_dim = 0, action_dim = 0;
  int history_frames = 0;       // the learned model's history (a start buffer's frames)
  int nq = 0, nv = 0, nu = 0;   // the robot's state and commands
  // environment_bytes (env/factory.h) of each set of environments; 0 where it exists already
  double environments = 0, eval_environments = 0, real_environments = 0;
};

MemoryPlan ppo_memory_plan(const PpoRunOptions& o, const PpoMemoryShape& s);

}  // namespace flashnerd::rl
