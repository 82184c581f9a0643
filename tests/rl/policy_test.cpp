// The exported policy runs without libtorch and gives the libtorch actor's mean actions;
// the observation normalizer's merged statistics equal the direct ones; artifacts round-trip
// and corrupt ones are refused by name.
#include "rl/policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/rng.h"
#include "rl/actor_critic.h"
#include "rl/observation_normalizer.h"

namespace flashnerd::rl {
namespace {

TEST(ObservationNormalizer, MergedBatchesEqualDirectStatistics) {
  const int D = 3, N = 50;
  Rng rng(1);
  std::vector<float> x(size_t(N * D));
  for (int i = 0; i < N * D; ++i) x[size_t(i)] = float(rng.normal(i % D, 1 + i % D));
  ObservationNormalizer n(D);
  n.update(x.data(), 20);
  n.update(x.data() + 20 * D, 30);
  for (int d = 0; d < D; ++d) {
    double mean = 0, var = 0;
    for (int r = 0; r < N; ++r) mean += x[size_t(r * D + d)];
    mean /= N;
    for (int r = 0; r < N; ++r) var += (x[size_t(r * D + d)] - mean) * (x[size_t(r * D + d)] - mean);
    var /= N;
    EXPECT_NEAR(n.mean()[size_t(d)], mean, 1e-12);
    EXPECT_NEAR(n.variance()[size_t(d)], var, 1e-10);
  }
  EXPECT_EQ(n.count(), N);
}

TEST(Policy, ExportedActorMatchesLibtorch) {
  torch::manual_seed(3);
  const int D = 7, A = 3, rows = 5;
  const std::vector<int> actor_hidden{16, 8}, critic_hidden{16};
  ActorCritic net(D, A, actor_hidden, critic_hidden, 0.5);
  Rng rng(2);
  std::vector<float> mean(static_cast<size_t>(D)), denom(static_cast<size_t>(D)), obs(static_cast<size_t>(rows * D));
  for (int i = 0; i < D; ++i) {
    mean[size_t(i)] = float(rng.normal());
    denom[size_t(i)] = float(rng.uniform(0.5, 2.0));
  }
  for (float& o : obs) o = float(rng.normal(0, 2));
  PolicyInfo info;
  info.task = "t";
  info.robot = "r";
  info.observation_dim = D;
  info.action_dim = A;
  info.hidden = {16, 8};
  const Policy policy = net->export_policy(info, mean, denom);
  std::vector<float> actions(size_t(rows * A));
  PolicyScratch scratch = policy.make_scratch();
  policy.act(obs.data(), rows, actions.data(), scratch);
  torch::Tensor x = torch::from_blob(obs.data(), {rows, D}).clone();
  x = (x - torch::from_blob(mean.data(), {D})) / torch::from_blob(denom.data(), {D});
  const torch::Tensor ref = net->action_mean(x).detach();
  for (int i = 0; i < rows * A; ++i) EXPECT_NEAR(actions[size_t(i)], ref.data_ptr<float>()[i], 1e-5) << i;

  // round trip through the artifact, then a corrupt one
  const std::string dir = ::testing::TempDir() + "/policy_roundtrip";
  std::filesystem::remove_all(dir);
  policy.save(dir);
  const Policy loaded = Policy::load(dir);
  std::vector<float> again(actions.size());
  loaded.act(obs.data(), rows, again.data(), scratch);
  EXPECT_EQ(actions, again);
  std::ofstream(dir + "/policy.json") << "{\"format\": \"flashnerd-policy\", \"version\": 1, \"activation\": \"elu\"}";
  try {
    Policy::load(dir);
    FAIL() << "a policy.json without fields was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("policy.json"), std::string::npos) << e.what();
  }
  // an activation outside the table is refused naming the ones there are
  std::ofstream(dir + "/policy.json") << "{\"format\": \"flashnerd-policy\", \"version\": 1, \"activation\": \"relu\"}";
  try {
    Policy::load(dir);
    FAIL() << "a relu policy was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("activation 'relu' is not supported (elu or tanh)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace flashnerd::rl
