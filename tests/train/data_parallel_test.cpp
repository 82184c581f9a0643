// The data-parallel layer over real Gloo on loopback, ranks as threads of this process (the
// end-to-end test with worker processes is tests/cli/data_parallel_cli.sh).
#include "train/data_parallel.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>

#include "core/error.h"
#include "core/frame_features.h"
#include "core/loopback_port.h"
#include "core/state_codec.h"
#include "pendulum.h"
#include "train/train_data.h"

namespace flashnerd::train {
namespace {

// Runs body(rank, group) on `world` threads, each a rank of one group on a fresh port.
void on_ranks(int world, const std::function<void(int, DataParallel&)>& body) {
  const int port = free_loopback_port();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      try {
        DataParallel dp({r, world, "127.0.0.1", port, 20});
        body(r, dp);
      } catch (const std::exception& e) {
        errors[size_t(r)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int r = 0; r < world; ++r) EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
}

TEST(DataParallel, OneRankIsLocal) {
  DataParallel dp({});
  EXPECT_FALSE(dp.distributed());
  EXPECT_TRUE(dp.is_root());
  std::vector<double> v{1.5, -2};
  dp.sum(v, "test");
  EXPECT_EQ(v, (std::vector<double>{1.5, -2}));
  std::string bytes = "abc";
  dp.broadcast_bytes(bytes, "test");
  EXPECT_EQ(bytes, "abc");
}

TEST(DataParallel, SumsBroadcastsAndGradientsAgreeOverTwoRanks) {
  on_ranks(2, [](int r, DataParallel& dp) {
    std::vector<double> v{double(r + 1), 10.0 * (r + 1)};
    dp.sum(v, "test sum");
    EXPECT_EQ(v, (std::vector<double>{3, 30}));

    std::string bytes = r == 0 ? std::string(100000, 'x') + "rank0" : std::string("other");
    dp.broadcast_bytes(bytes, "test broadcast");
    EXPECT_EQ(bytes.size(), 100005u);
    EXPECT_EQ(bytes.substr(100000), "rank0");

    // parameters: rank 0's values everywhere
    std::vector<at::Tensor> params{torch::full({3, 2}, float(r + 7)), torch::full({5}, float(-r))};
    dp.broadcast_parameters(params);
    EXPECT_TRUE(torch::equal(params[0], torch::full({3, 2}, 7.f)));
    EXPECT_TRUE(torch::equal(params[1], torch::zeros({5})));

    // gradients: sums times scale(sums of values); rank 1 leaves one gradient undefined (zero)
    for (auto& p : params) p.set_requires_grad(true);
    params[0].mutable_grad() = torch::full({3, 2}, float(r + 1));
    if (r == 0) params[1].mutable_grad() = torch::full({5}, 4.f);
    std::vector<double> loss{r == 0 ? 1.0 : 3.0, 8.0};  // sum, count
    dp.sum_gradients(params, loss, [](const std::vector<double>& s) { return 1.0 / s[1]; });
    EXPECT_EQ(loss, (std::vector<double>{4, 16}));
    EXPECT_TRUE(torch::allclose(params[0].grad(), torch::full({3, 2}, 3.f / 16)));
    EXPECT_TRUE(torch::allclose(params[1].grad(), torch::full({5}, 4.f / 16)));
  });
}

TEST(DataParallel, GlobalNormalizationEqualsSingleProcess) {
  const Dataset d = testing::make_pendulum_dataset({30, 25, 4, "pendulum", 0.1});
  const StateCodec codec(d.layout);
  const TransitionArrays a = build_transitions(d, codec, false, false, false);
  const auto [train, valid] = split_trajectories(d.trajectories, 0.1, 3);
  const Normalization one = fit_normalization(d, a, codec, train);
  std::vector<Normalization> ranks(3);
  on_ranks(3, [&](int r, DataParallel& dp) {
    std::vector<int64_t> share;  // unequal shares, as the trainer deals them
    for (size_t i = size_t(r); i < train.size(); i += 3) share.push_back(train[i]);
    ranks[size_t(r)] = fit_normalization(d, a, codec, share, [&dp](std::vector<double>& v) { dp.sum(v, "norm"); });
  });
  for (const Normalization& n : ranks) {
    ASSERT_EQ(n.input_mean.size(), one.input_mean.size());
    for (size_t i = 0; i < one.input_mean.size(); ++i) {
      EXPECT_NEAR(n.input_mean[i], one.input_mean[i], 1e-6 * (1 + std::abs(one.input_mean[i])));
      EXPECT_NEAR(n.input_std[i], one.input_std[i], 1e-6 * one.input_std[i]);
    }
    for (size_t i = 0; i < one.target_mean.size(); ++i) {
      EXPECT_NEAR(n.target_mean[i], one.target_mean[i], 1e-6 * (1 + std::abs(one.target_mean[i])));
      EXPECT_NEAR(n.target_std[i], one.target_std[i], 1e-6 * one.target_std[i]);
    }
    for (size_t i = 0; i < one.channel_std.size(); ++i) EXPECT_NEAR(n.channel_std[i], one.channel_std[i], 1e-12);
  }
  // and a share alone is not the global statistics (the reduction is what makes them equal)
  std::vector<int64_t> half(train.begin(), train.begin() + int64_t(train.size() / 3));
  EXPECT_GT(std::abs(fit_normalization(d, a, codec, half).input_std[0] - one.input_std[0]), 1e-4);
}

TEST(DataParallel, AMissingPeerEndsTheRendezvousWithinTheTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    DataParallel dp({0, 2, "127.0.0.1", free_loopback_port(), 1});
    FAIL() << "a world of 2 formed with one rank";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 of 2: no rendezvous"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
}

TEST(DataParallel, TheLaunchContractIsReadFromTheEnvironment) {
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
  EXPECT_EQ(distributed_from_environment().world_size, 1);
  ::setenv("RANK", "1", 1);
  ::setenv("WORLD_SIZE", "4", 1);
  ::setenv("MASTER_ADDR", "10.0.0.2", 1);
  ::setenv("MASTER_PORT", "23456", 1);
  const DistributedConfig c = distributed_from_environment();
  EXPECT_EQ(c.rank, 1);
  EXPECT_EQ(c.world_size, 4);
  EXPECT_EQ(c.master_addr, "10.0.0.2");
  EXPECT_EQ(c.master_port, 23456);
  ::setenv("RANK", "4", 1);  // outside the world
  EXPECT_THROW(distributed_from_environment(), Error);
  ::setenv("RANK", "one", 1);
  EXPECT_THROW(distributed_from_environment(), Error);
  ::unsetenv("WORLD_SIZE");  // half the contract
  ::setenv("RANK", "0", 1);
  EXPECT_THROW(distributed_from_environment(), Error);
  for (const char* k : {"RANK", "MASTER_ADDR", "MASTER_PORT"}) ::unsetenv(k);
}

}  // namespace
}  // namespace flashnerd::train
