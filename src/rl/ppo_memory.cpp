#include "rl/ppo_memory.h"

#include <numeric>

#include "core/error.h"
#include "rl/rollout_storage.h"

namespace flashnerd::rl {

MemoryPlan ppo_memory_plan(const PpoRunOptions& o, const PpoMemoryShape& s) {
  const int batch_envs = s.envs + (o.real.in_batch ? s.real_envs : 0);
  const double transitions = double(batch_envs) * o.ppo.steps_per_env;
  // per minibatch row: each hidden layer's pre-activation, activation and gradient in actor and
  // critic, and the row's inputs and their gradients (measured within 15% on the quadruped)
  const double hidden = std::accumulate(o.ppo.actor_hidden.begin(), o.ppo.actor_hidden.end(), 0.0) +
                        std::accumulate(o.ppo.critic_hidden.begin(), o.ppo.critic_hidden.end(), 0.0);
  const double row_floats = 3.0 * hidden + 2.0 * (s.observation_dim + s.action_dim);
  const double state = double(s.nq + s.nv + s.nu) * sizeof(double);
  MemoryPlan plan(str_cat("ppo: ", s.envs, " environments x ", o.ppo.steps_per_env, " steps"));
  plan.add("environments", s.environments)
      .add("evaluation environments", s.eval_environments)
      .add("real environments", s.real_environments)
      .add("rollout storage",
           RolloutStorage::bytes_needed(o.ppo.steps_per_env, batch_envs, s.observation_dim, s.action_dim))
      .add("update activations", transitions / std::max(1, o.ppo.minibatches) * row_floats * sizeof(float));
  if (s.real_envs > 0) {
    plan.add("real start buffer", double(o.real.buffer_capacity) * (s.history_frames + 1) * state);
    if (o.refresh.on())
      plan.add("refresh windows", double(o.refresh.max_windows) * (double(s.nq + s.nv) + double(o.real.steps) * s.nu) *
                                      sizeof(double));
  }
  return plan;
}

}  // namespace flashnerd::rl
