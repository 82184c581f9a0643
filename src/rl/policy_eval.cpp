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
  const double dt = env.step_seconds();  // per action
  std::vector<float> actions(size_t(E) * size_t(A));
  PolicyScratch scratch = policy.make_scratch();
  PolicyEvaluation r;
  r.terms.assign(terms.size(), 0.0);
  std::vector<uint8_t> done(static_cast<size_t>(E), 0);
  double reward = 0, length = 0;
  int running = E;
  r.episode_returns.assign(size_t(E), 0.0);
  r.episode_terminated.assign(size_t(E), 0);
  r.episode_term_sums.assign(terms.size(), std::vector<double>(size_t(E), 0.0));
  env.reset_all();
  for (int s = 0; s < steps && running > 0; ++s) {
    policy.act(env.observations(), E, actions.data(), scratch);
    env.step(actions.data());
    for (int e = 0; e < E; ++e) {
      if (done[size_t(e)]) continue;
      reward += env.rewards()[e];
      r.episode_returns[size_t(e)] += env.rewards()[e];
      length += 1;
      const double* values = env.term_values(e);
      for (size_t k = 0; k < terms.size(); ++k) {
        r.terms[k] += terms[k].scale * values[k] * dt;
        r.episode_term_sums[k][size_t(e)] += values[k];
      }
      if (env.terminated()[e] || env.timed_out()[e]) {
        done[size_t(e)] = 1;
        --running;
        r.terminations += env.terminated()[e];
        r.episode_terminated[size_t(e)] = env.terminated()[e];
        r.timeouts += env.timed_out()[e];
      }
    }
  }
  r.episode_reward = reward / E;
  r.mean_length = length / E;
  for (double& t : r.terms) t /= E;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace flashnerd::rl
