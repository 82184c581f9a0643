#include "rl/policy_command_recording.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/rng.h"

namespace flashnerd::rl {

sim::CommandPlan record_policy_commands(env::VecEnv& env, const Policy& policy, const PolicyRecordingOptions& o) {
  FN_CHECK(policy.info().observation_dim == env.observation_dim() && policy.info().action_dim == env.action_dim(),
           "policy for task '", policy.info().task, "' does not fit task '", env.task().name(), "'");
  FN_CHECK(o.trajectories > 0 && o.steps > 0, "policy data: trajectories and steps must be positive");
  FN_CHECK(o.noise >= 0, "policy data: the action noise must be >= 0, got ", o.noise);
  FN_CHECK(env.task().control_steps() == 1, "policy data: task '", env.task().name(), "' holds each action for ",
           env.task().control_steps(), " control steps; only tasks with one control step per action are supported");
  env::Backend& b = env.backend();
  FN_CHECK(b.object_nq() == 0, "policy data: task '", env.task().name(), "' moves objects, which a plan of the "
           "robot's states cannot replay");
  const int E = env.envs(), A = env.action_dim(), nq = b.nq(), nv = b.nv(), nu = b.nu(), T = o.steps;
  sim::CommandPlan plan;
  plan.trajectories = o.trajectories;
  plan.steps = T;
  plan.qpos.resize(size_t(o.trajectories) * size_t(nq));
  plan.qvel.resize(size_t(o.trajectories) * size_t(nv));
  plan.ctrl.resize(size_t(o.trajectories) * size_t(T) * size_t(nu));
  plan.source = {{"policy_task", policy.info().task}, {"backend", b.kind()}, {"noise", o.noise},
                 {"envs", E}, {"seed", o.seed}, {"policy_training", policy.info().training}};

  std::vector<Rng> noise;
  for (int e = 0; e < E; ++e) noise.push_back(Rng::stream(o.seed ^ 0x9E3779B97F4A7C15ull, uint64_t(e)));
  std::vector<float> actions(size_t(E) * size_t(A));
  std::vector<uint8_t> ended(static_cast<size_t>(E));
  PolicyScratch scratch = policy.make_scratch();
  const auto& stds = policy.action_std();
  env.reset_all();
  for (int64_t first = 0; first < o.trajectories; first += E) {  // one window of every environment
    const int rows = int(std::min<int64_t>(E, o.trajectories - first));
    for (int e = 0; e < rows; ++e) {
      std::memcpy(plan.qpos.data() + size_t(first + e) * size_t(nq), b.q(e), sizeof(double) * size_t(nq));
      std::memcpy(plan.qvel.data() + size_t(first + e) * size_t(nv), b.v(e), sizeof(double) * size_t(nv));
    }
    std::fill(ended.begin(), ended.end(), 0);
    for (int t = 0; t < T; ++t) {
      policy.act(env.observations(), E, actions.data(), scratch);
      for (int e = 0; e < E; ++e)
        for (int j = 0; j < A; ++j)
          actions[size_t(e) * size_t(A) + size_t(j)] += float(o.noise * stds[size_t(j)] * noise[size_t(e)].normal());
      env.step(actions.data());
      for (int e = 0; e < rows; ++e) {
        double* u = plan.ctrl.data() + (size_t(first + e) * size_t(T) + size_t(t)) * size_t(nu);
        if (ended[size_t(e)]) {
          std::memcpy(u, u - nu, sizeof(double) * size_t(nu));  // the window's episode ended: hold
        } else {
          std::memcpy(u, env.commands() + size_t(e) * size_t(nu), sizeof(double) * size_t(nu));
        }
        if (env.terminated()[e] || env.timed_out()[e]) ended[size_t(e)] = 1;
      }
    }
  }
  return plan;
}

}  // namespace flashnerd::rl
