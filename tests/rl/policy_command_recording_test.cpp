// On-policy data (gen --policy): the plan holds exactly the start states and commands of the
// policy's run in MuJoCo, holds the last command once a window's episode has ended, and the
// generator's replay of the plan follows the environment's own states.
#include "rl/policy_command_recording.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/rng.h"
#include "testing/cartpole_env.h"
#include "sim/generator.h"

namespace flashnerd::rl {
namespace {

using flashnerd::testing::CartpoleEnv;

// A random one-hidden-layer policy for the env's widths.
Policy random_policy(const env::VecEnv& env, uint64_t seed) {
  Rng rng(seed);
  const int D = env.observation_dim(), A = env.action_dim(), H = 8;
  PolicyInfo info;
  info.task = "cartpole-balance";
  info.robot = "cartpole";
  info.observation_dim = D;
  info.action_dim = A;
  info.hidden = {H};
  std::vector<PolicyLayer> layers(2);
  layers[0].in = D, layers[0].out = H, layers[1].in = H, layers[1].out = A;
  for (auto& L : layers) {
    for (int i = 0; i < L.in * L.out; ++i) L.weight.push_back(float(rng.normal(0, 0.2)));
    L.bias.assign(size_t(L.out), 0.0f);
  }
  return Policy(info, std::vector<float>(size_t(D), 0.0f), std::vector<float>(size_t(D), 1.0f), layers,
                std::vector<float>(size_t(A), 0.5f));
}

TEST(PolicyCommandRecording, ReplayFollowsTheEnvironmentAndHoldsAfterAnEpisodeEnds) {
  ThreadPool pool(2);
  const int E = 3, N = 5, T = 60;
  CartpoleEnv a(E, 4, pool), b(E, 4, pool);
  const Policy policy = random_policy(a.env, 11);
  PolicyRecordingOptions o;
  o.trajectories = N;
  o.steps = T;
  o.noise = 0;
  const sim::CommandPlan plan = record_policy_commands(a.env, policy, o);
  const int nq = a.backend.nq(), nv = a.backend.nv(), nu = a.backend.nu();
  ASSERT_EQ(plan.ctrl.size(), size_t(N * T * nu));

  // the same run again, watched: states after every step and where each window's episode ends
  std::vector<double> seen(size_t(N * (T + 1) * nq));
  std::vector<int> ended_at(size_t(N), T);
  std::vector<float> actions(size_t(E * a.env.action_dim()));
  PolicyScratch scratch = policy.make_scratch();
  b.env.reset_all();
  int episodes_ended = 0;
  for (int first = 0; first < N; first += E) {
    for (int e = 0; e < E && first + e < N; ++e) {
      for (int i = 0; i < nq; ++i) EXPECT_EQ(plan.qpos[size_t((first + e) * nq + i)], b.backend.q(e)[i]);
      for (int i = 0; i < nv; ++i) EXPECT_EQ(plan.qvel[size_t((first + e) * nv + i)], b.backend.v(e)[i]);
    }
    for (int t = 0; t < T; ++t) {
      policy.act(b.env.observations(), E, actions.data(), scratch);
      b.env.step(actions.data());
      for (int e = 0; e < E && first + e < N; ++e) {
        const int n = first + e;
        const double* u = plan.ctrl.data() + size_t((n * T + t) * nu);
        if (t > ended_at[size_t(n)]) {
          for (int j = 0; j < nu; ++j) EXPECT_EQ(u[j], u[j - nu]) << "held after the episode ended";
          continue;
        }
        for (int j = 0; j < nu; ++j) EXPECT_EQ(u[j], b.env.commands()[e * nu + j]);
        if (b.env.terminated()[e] || b.env.timed_out()[e]) {
          ended_at[size_t(n)] = t;  // the backend now holds the next episode's start
          ++episodes_ended;
        } else {
          std::copy_n(b.backend.q(e), nq, seen.begin() + (n * (T + 1) + t + 1) * nq);
        }
      }
    }
  }
  ASSERT_GT(episodes_ended, 0) << "the random policy should drop the pole within " << T << " steps";

  sim::GenerateOptions g;
  g.trajectories = N;
  g.plan = &plan;
  g.progress = false;
  const Dataset d = sim::generate_dataset(*a.robot, g, pool);
  for (int n = 0; n < N; ++n)
    for (int t = 0; t < std::min(ended_at[size_t(n)], T); ++t)
      for (int i = 0; i < nq; ++i)
        EXPECT_NEAR(d.q(n, t + 1)[i], seen[size_t((n * (T + 1) + t + 1) * nq + i)], 1e-12) << n << " " << t;

  // noise: same seed, same plan; another seed, another plan
  o.noise = 1.0;
  o.seed = 3;
  const sim::CommandPlan p1 = record_policy_commands(a.env, policy, o), p2 = record_policy_commands(b.env, policy, o);
  EXPECT_EQ(p1.ctrl, p2.ctrl);
  EXPECT_NE(p1.ctrl, plan.ctrl);
  o.seed = 4;
  EXPECT_NE(record_policy_commands(a.env, policy, o).ctrl, p1.ctrl);
  o.noise = -1;
  EXPECT_THROW(record_policy_commands(a.env, policy, o), Error);
}

}  // namespace
}  // namespace flashnerd::rl
