#include "rl/policy_command_recording.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/rng.h"
#include "env/command_plan_recorder.h"

namespace flashnerd::rl {

sim::CommandPlan record_policy_commands(env::VecEnv& env, const Policy& policy, const PolicyRecordingOptions& o) {
  FN_CHECK(policy.info().observation_dim == env.observation_dim() && policy.info().action_dim == env.action_dim(),
           "policy for task '", policy.info().task, "' does not fit task '", env.task().name(), "'");
  FN_CHECK(o.trajectories > 0 && o.steps > 0, "policy data: trajectories and steps must be positive");
  FN_CHECK(o.noise >= 0, "policy data: the action noise must be >= 0, got ", o.noise);
  const int E = env.envs(), A = env.action_dim();
  const int64_t rounds = (o.trajectories + E - 1) / E;  // one window of every environment per round
  env::CommandPlanRecorder recorder(env, o.steps, rounds * E);
  std::vector<Rng> noise;
  for (int e = 0; e < E; ++e) noise.push_back(Rng::stream(o.seed ^ 0x9E3779B97F4A7C15ull, uint64_t(e)));
  std::vector<float> actions(size_t(E) * size_t(A));
  PolicyScratch scratch = policy.make_scratch();
  const auto& stds = policy.action_std();
  env.reset_all();
  for (int64_t round = 0; round < rounds; ++round) {
    recorder.begin_window();
    for (int t = 0; t < o.steps; ++t) {
      policy.act(env.observations(), E, actions.data(), scratch);
      for (int e = 0; e < E; ++e)
        for (int j = 0; j < A; ++j)
          actions[size_t(e) * size_t(A) + size_t(j)] += float(o.noise * stds[size_t(j)] * noise[size_t(e)].normal());
      env.step(actions.data());
      recorder.after_step();
    }
  }
  sim::CommandPlan plan = recorder.plan(o.trajectories);
  plan.source = {{"policy_task", policy.info().task}, {"backend", env.backend().kind()}, {"noise", o.noise},
                 {"envs", E}, {"seed", o.seed}, {"policy_training", policy.info().training}};
  return plan;
}

}  // namespace flashnerd::rl
