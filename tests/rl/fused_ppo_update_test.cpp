// The fused PPO update (rl/fused_ppo_update.h) computes what libtorch's autograd computes: on
// one recorded rollout, a whole update (5 epochs x 4 minibatches of Adam steps) from the same
// weights, by either path, ends at the same weights and reports the same losses, KL and
// learning rate, to float tolerance. A second setting drives the ratio and value clips and the
// gradient-norm clip, so every branch of the hand-written gradients is exercised.
#include "rl/ppo.h"

#include <gtest/gtest.h>

#include <cmath>

namespace flashnerd::rl {
namespace {

constexpr int kObs = 7, kAct = 3, kEnvs = 24;

// A rollout of random observations and rewards with some ends, the same for every Ppo given
// the same weights.
void record_rollout(Ppo& ppo, std::vector<float>& last_obs, int envs = kEnvs) {
  Rng rng(11);
  const size_t E = size_t(envs);
  std::vector<float> obs(E * kObs), actions(E * kAct), rewards(E), bootstrap(E);
  std::vector<uint8_t> terminated(E), timed_out(E);
  for (int t = 0; t < ppo.config().steps_per_env; ++t) {
    for (auto& x : obs) x = float(rng.normal());
    ppo.act(t, obs.data(), rng, actions.data());
    for (int e = 0; e < envs; ++e) {
      rewards[size_t(e)] = float(rng.normal() + actions[size_t(e * kAct)]);
      terminated[size_t(e)] = rng.uniform() < 0.05;
      timed_out[size_t(e)] = !terminated[size_t(e)] && rng.uniform() < 0.05;
      bootstrap[size_t(e)] = timed_out[size_t(e)] ? float(rng.normal()) : 0.0f;
    }
    ppo.record(t, rewards.data(), terminated.data(), timed_out.data(), bootstrap.data());
  }
  last_obs.resize(obs.size());
  for (auto& x : last_obs) x = float(rng.normal());
}

void expect_same_update(PpoConfig c, int threads = 1, int envs = kEnvs) {
  torch::manual_seed(3);
  Ppo fused(c, kObs, kAct, envs);
  fused.use_fused_update(true, threads);
  torch::manual_seed(3);
  Ppo reference(c, kObs, kAct, envs);
  std::vector<float> last_a, last_b;
  record_rollout(fused, last_a, envs);
  record_rollout(reference, last_b, envs);
  Rng ra(5), rb(5);
  const PpoUpdateStats a = fused.update(last_a.data(), ra);
  const PpoUpdateStats b = reference.update(last_b.data(), rb);
  EXPECT_NEAR(a.value_loss, b.value_loss, 1e-4 * (1 + std::fabs(b.value_loss)));
  EXPECT_NEAR(a.surrogate_loss, b.surrogate_loss, 1e-5);
  EXPECT_NEAR(a.entropy, b.entropy, 1e-5);
  EXPECT_NEAR(a.kl, b.kl, 1e-6 + 1e-3 * std::fabs(b.kl));
  EXPECT_DOUBLE_EQ(a.learning_rate, b.learning_rate);
  EXPECT_NEAR(a.action_std, b.action_std, 1e-5);
  const auto pa = fused.net()->named_parameters(), pb = reference.net()->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    const double diff = (pa[i].value() - pb[i].value()).abs().max().item<double>();
    EXPECT_LT(diff, 2e-5) << pa[i].key();
  }
  // the update moved the weights: the comparison is not between two untouched nets
  torch::manual_seed(3);
  Ppo untouched(c, kObs, kAct, envs);
  EXPECT_GT((untouched.net()->parameters()[0] - fused.net()->parameters()[0]).abs().max().item<double>(), 1e-4);
}

// Three updates in a row, each on a rollout the updated policy acts in: the fused update's
// buffers and cached parameters stay valid from one update to the next. A fixed learning rate:
// once the nets differ by rounding, a KL of rounding size (1e-9, either sign) decides rsl_rl's
// "kl > 0" rule one way or the other, and the schedules part.
TEST(FusedPpoUpdate, EqualsAutogradOverConsecutiveUpdates) {
  PpoConfig c;
  c.steps_per_env = 16;
  c.actor_hidden = c.critic_hidden = {32, 32};
  c.entropy_coef = 0.01;
  c.adaptive_lr = false;
  torch::manual_seed(4);
  Ppo fused(c, kObs, kAct, kEnvs);
  fused.use_fused_update(true);
  torch::manual_seed(4);
  Ppo reference(c, kObs, kAct, kEnvs);
  Rng ra(9), rb(9);
  for (int u = 0; u < 3; ++u) {
    std::vector<float> last_a, last_b;
    record_rollout(fused, last_a);
    record_rollout(reference, last_b);
    const PpoUpdateStats a = fused.update(last_a.data(), ra), b = reference.update(last_b.data(), rb);
    EXPECT_NEAR(a.surrogate_loss, b.surrogate_loss, 1e-4) << "update " << u;
    EXPECT_NEAR(a.value_loss, b.value_loss, 1e-4 * (1 + std::fabs(b.value_loss))) << "update " << u;
  }
  const auto pa = fused.net()->named_parameters(), pb = reference.net()->named_parameters();
  for (size_t i = 0; i < pa.size(); ++i)
    EXPECT_LT((pa[i].value() - pb[i].value()).abs().max().item<double>(), 1e-4) << pa[i].key();
}

PpoConfig small_config() {
  PpoConfig c;
  c.steps_per_env = 16;
  c.actor_hidden = {32, 16};
  c.critic_hidden = {24, 16};
  return c;
}

TEST(FusedPpoUpdate, EqualsAutogradWithRslRlDefaults) { expect_same_update(small_config()); }

// The minibatch's rows cut into three parts on three threads (96 rows: parts of 32).
TEST(FusedPpoUpdate, EqualsAutogradOnThreeThreads) { expect_same_update(small_config(), 3); }

// Minibatches of 1 152 rows: a part runs its rows in several chunks, accumulating their
// gradients (one part, and two parts of 576).
TEST(FusedPpoUpdate, EqualsAutogradOverSeveralChunks) {
  PpoConfig c = small_config();
  c.minibatches = 2;
  expect_same_update(c, 1, 144);
  expect_same_update(c, 2, 144);
}

// Parts add their gradients in part order: a thread count gives the same bits every time.
TEST(FusedPpoUpdate, SameBitsForTheSameThreadCount) {
  const PpoConfig c = small_config();
  std::vector<torch::Tensor> first;
  for (int run = 0; run < 2; ++run) {
    torch::manual_seed(3);
    Ppo ppo(c, kObs, kAct, kEnvs);
    ppo.use_fused_update(true, 2);
    std::vector<float> last;
    record_rollout(ppo, last);
    Rng order(5);
    ppo.update(last.data(), order);
    const auto params = ppo.net()->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      if (run == 0) first.push_back(params[i].clone());
      else EXPECT_TRUE(torch::equal(first[i], params[i])) << "parameter " << i;
  }
}

TEST(FusedPpoUpdate, EqualsAutogradWhereTheClipsBind) {
  PpoConfig c = small_config();
  c.clip = 0.02;  // ratios and values leave the clip range within the first epoch
  c.learning_rate = 0.01;
  c.adaptive_lr = false;
  c.max_grad_norm = 0.05;  // every step's gradient is scaled down
  c.entropy_coef = 0.01;
  expect_same_update(c);
  expect_same_update(c, 2);
}

}  // namespace
}  // namespace flashnerd::rl
