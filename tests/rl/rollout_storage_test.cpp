// The rollout storage's environment ranges: two environment sets recorded apart (the imagined
// and the real ones of model-based PPO) equal one recording of both, through to the update.
#include "rl/rollout_storage.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "rl/ppo.h"

namespace flashnerd::rl {
namespace {

void expect_close(const torch::Tensor& a, const torch::Tensor& b, const char* what) {
  EXPECT_TRUE(torch::allclose(a, b, 1e-5, 1e-6)) << what << ": largest difference "
                                                 << (a - b).abs().max().item<double>();
}

TEST(RolloutStorage, EnvironmentSetsRecordedApartEqualOneRecording) {
  const int T = 4, E = 6, R = 3, N = E + R, D = 5, A = 2;
  PpoConfig c;
  c.steps_per_env = T;
  c.epochs = 2;
  c.minibatches = 3;
  c.actor_hidden = c.critic_hidden = {8};
  torch::manual_seed(1);
  Ppo whole(c, D, A, N);
  torch::manual_seed(1);
  Ppo apart(c, D, A, N);
  Rng data(7), noise_whole(3), noise_apart(3);
  std::vector<float> obs(size_t(N) * D), rewards(N), bootstrap(N), a_whole(size_t(N) * A), a_apart(size_t(N) * A);
  std::vector<uint8_t> terminated(N), timed_out(N);
  for (int t = 0; t < T; ++t) {
    for (float& x : obs) x = float(data.normal());
    for (int e = 0; e < N; ++e) {
      rewards[size_t(e)] = float(data.normal());
      terminated[size_t(e)] = (t + e) % 5 == 0;
      timed_out[size_t(e)] = (t + 2 * e) % 7 == 0 && !terminated[size_t(e)];
      bootstrap[size_t(e)] = timed_out[size_t(e)] ? float(data.normal()) : 0.0f;
    }
    whole.act(t, obs.data(), noise_whole, a_whole.data());
    apart.act(t, 0, E, obs.data(), noise_apart, a_apart.data());
    apart.act(t, E, R, obs.data() + size_t(E) * D, noise_apart, a_apart.data() + size_t(E) * A);
    for (size_t i = 0; i < a_whole.size(); ++i) EXPECT_NEAR(a_whole[i], a_apart[i], 1e-5) << "step " << t;
    whole.record(t, rewards.data(), terminated.data(), timed_out.data(), bootstrap.data());
    apart.record(t, 0, E, rewards.data(), terminated.data(), timed_out.data(), bootstrap.data());
    apart.record(t, E, R, rewards.data() + E, terminated.data() + E, timed_out.data() + E, bootstrap.data() + E);
  }
  for (float& x : obs) x = float(data.normal());
  Rng order_whole(11), order_apart(11);
  const PpoUpdateStats s_whole = whole.update(obs.data(), order_whole);
  const PpoUpdateStats s_apart = apart.update(obs.data(), order_apart);
  expect_close(whole.storage().obs(), apart.storage().obs(), "observations");
  expect_close(whole.storage().actions(), apart.storage().actions(), "actions");
  expect_close(whole.storage().log_prob(), apart.storage().log_prob(), "log-probabilities");
  expect_close(whole.storage().returns(), apart.storage().returns(), "returns");
  expect_close(whole.storage().advantages(), apart.storage().advantages(), "advantages");
  EXPECT_NEAR(s_whole.value_loss, s_apart.value_loss, 1e-5);
  const auto pw = whole.net()->parameters(), pa = apart.net()->parameters();
  ASSERT_EQ(pw.size(), pa.size());
  for (size_t i = 0; i < pw.size(); ++i) expect_close(pw[i], pa[i], "updated parameters");
  // the returns are not all equal: the rewards, ends and bootstraps reached them
  EXPECT_GT(whole.storage().returns().std().item<double>(), 0.1);
}

TEST(RolloutStorage, RefusesARangeBeyondItsEnvironments) {
  RolloutStorage st(2, 4, 3, 1);
  const std::vector<float> r(4);
  const std::vector<uint8_t> d(4);
  EXPECT_THROW(st.add_outcome(0, 2, 3, r.data(), d.data(), d.data(), r.data()), Error);
}

}  // namespace
}  // namespace flashnerd::rl
