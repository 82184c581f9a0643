#include "rl/policy_eval.h"

#include <chrono>

#include "core/error.h"

namespace flashnerd::rl {

PolicyEvaluation evaluate_policy(env::VecEnv& env, const Policy& policy, int steps) {
  FN_CHECK(policy.info().observation_dim == env.observation_dim() && policy.info().action_dim == env.action_dim(),
           "policy for task '", policy.info().task, "' (", policy.info().observation_dim, " observations, ",
           policy.info().action_dim, " actions) does not fit task '", env.task().name(), "' (",
           env.observation_dim(), ", ", env.action_dim(), ")");
  FN_CHECK(steps >= 1, "policy evaluation: steps must be >= 1");
  const auto t0 = std::chrono::steady_clock::now();
  const int E = env.envs(), A = env.action_dim();
  const auto& terms = env.task().reward_terms();
  const double dt = env.backend().control_timestep();
  std::vector<float> actions(size_t(E) * size_t(A));
  PolicyScratch scratch = policy.make_scratch();
  PolicyEvaluation r;
  r.terms.assign(terms.size(), 0.0);
  double reward = 0;
  env.reset_all();
  for (int s = 0; s < steps; ++s) {
    policy.act(env.observations(), E, actions.data(), scratch);
    env.step(actions.data());
    for (int e = 0; e < E; ++e) {
      reward += env.rewards()[e];
      r.terminations += env.terminated()[e];
      r.timeouts += env.timed_out()[e];
      const double* values = env.term_values(e);
      for (size_t k = 0; k < terms.size(); ++k) r.terms[k] += terms[k].scale * values[k] * dt;
    }
  }
  const double scale = double(env.task().episode_steps()) / (double(steps) * E);
  r.episode_reward = reward * scale;
  for (double& t : r.terms) t *= scale;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace flashnerd::rl
