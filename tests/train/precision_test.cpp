// bf16 mixed precision in training: autocast makes products bf16 inside its scope only, a
// bf16 run's loss curve follows the fp32 run's, and a bad --precision is refused.
#include "train/precision.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "pendulum.h"
#include "train/trainer.h"

namespace flashnerd::train {
namespace {

TEST(Precision, AutocastMakesProductsBf16OnlyInsideItsScope) {
  auto a = torch::ones({4, 8}), b = torch::ones({8, 3});
  {
    const ScopeExit scope = bf16_autocast(true);
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    EXPECT_EQ((a + 1).scalar_type(), torch::kFloat);  // elementwise work stays fp32
  }
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat);
  const ScopeExit off = bf16_autocast(false);
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat);
}

TEST(Precision, ChoosesAndRefuses) {
  EXPECT_FALSE(choose_precision(TrainingPrecision::FP32, 64, 32, 64).bf16);
  const PrecisionChoice forced = choose_precision(TrainingPrecision::BF16, 64, 32, 64);
  EXPECT_TRUE(forced.bf16);
  EXPECT_GT(forced.fp32_gflops, 0);
  EXPECT_GT(forced.bf16_gflops, 0);
  EXPECT_EQ(forced.reason.rfind("bf16: ", 0), 0u) << forced.reason;
  EXPECT_EQ(parse_enum(kTrainingPrecisionNames, "auto", "precision"), TrainingPrecision::Auto);
  EXPECT_THROW(parse_enum(kTrainingPrecisionNames, "fp16", "precision"), Error);
}

TEST(Precision, Bf16LossCurveFollowsFp32) {
  // the same tiny run in both precisions: every logged loss within 10% (bf16 keeps 8 bits of
  // mantissa in the products; parameters, Adam and the loss stay fp32)
  const Dataset d = testing::make_pendulum_dataset({16, 30, 2});
  double last[2] = {0, 0}, first[2] = {0, 0};
  for (int bf16 = 0; bf16 < 2; ++bf16) {
    TrainOptions o;
    o.arch = Arch::FlashNeRD;
    o.preset = ModelPreset::Tiny;
    o.out_dir = (std::filesystem::temp_directory_path() / ("flashnerd_precision_test_" + std::to_string(bf16))).string();
    std::filesystem::remove_all(o.out_dir);
    o.updates = 200;
    o.batch = 32;
    o.lr = 3e-3;
    o.valid_every = 100;
    o.progress = false;
    o.write_plot = false;
    o.seed = 5;
    o.precision = bf16 ? TrainingPrecision::BF16 : TrainingPrecision::FP32;
    const TrainResult r = train_model(d, o);
    EXPECT_EQ(r.precision, o.precision);
    first[bf16] = r.first_loss;
    last[bf16] = r.last_loss;
  }
  EXPECT_NEAR(first[1], first[0], 0.02 * first[0]);
  EXPECT_LT(last[0], 0.1 * first[0]);  // both learned
  EXPECT_NEAR(last[1], last[0], 0.25 * last[0] + 1e-3) << "fp32 " << last[0] << ", bf16 " << last[1];
}

}  // namespace
}  // namespace flashnerd::train
