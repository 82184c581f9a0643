// The contract between training and inference: a libtorch model exported to an artifact and
// loaded by the engine gives the same outputs, streaming one frame at a time, as the torch
// full-window forward (and as the engine's double-precision reference). fp32 throughout.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/rng.h"
#include "engine/engine.h"
#include "engine/reference.h"
#include "engine/test_models.h"
#include "odd_sized_config.h"
#include "train/models.h"

namespace flashnerd::train {
namespace {

using engine::testing::kFp32Tolerance;
using engine::testing::relative_error;

void expect_engine_matches_torch(const ModelConfig& c) {
  auto model = make_model(c, 1);
  {  // every parameter random (lag biases, norm weights, positions included)
    torch::manual_seed(2);
    torch::NoGradGuard g;
    for (auto& p : model->parameters()) p.copy_(torch::randn(p.sizes()) * 0.3);
  }
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("flashnerd_equivalence_" + std::string(arch_name(c.arch)))).string();
  std::filesystem::remove_all(dir);
  export_model(*model, c, dir);
  auto engine_model = engine::Model::load(dir);

  const int B = 3, T = 14, din = c.input_dim, dout = c.output_dim;
  Rng rng(5);
  std::vector<float> raw(size_t(T) * B * din);  // (T, B, din): the engine's step layout
  for (auto& v : raw) v = float(rng.normal(0.0, 1.5));
  // torch: standardized (B, T, din)
  torch::Tensor x = torch::empty({B, T, din});
  auto xa = x.accessor<float, 3>();
  for (int t = 0; t < T; ++t)
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < din; ++k)
        xa[b][t][k] = (raw[(size_t(t) * B + b) * din + k] - c.norm.input_mean[size_t(k)]) / c.norm.input_std[size_t(k)];
  torch::NoGradGuard g;
  std::vector<double> want(size_t(B) * T * dout);  // (B, T, dout) raw increments
  auto store = [&](int b, int t, const torch::Tensor& yhat) {  // yhat (dout) standardized
    for (int k = 0; k < dout; ++k)
      want[(size_t(b) * T + t) * dout + k] =
          double(yhat[k].item<float>()) * c.norm.target_std[size_t(k)] + c.norm.target_mean[size_t(k)];
  };
  if (c.arch == Arch::FlashNeRD) {
    torch::Tensor y = model->forward(x);  // the whole sequence at once, banded mask
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) store(b, t, y[b][t]);
  } else {  // NeRD: the window of the last min(t+1, W) frames, last position
    const int W = c.nerd.window;
    for (int t = 0; t < T; ++t) {
      const int n = std::min(t + 1, W);
      torch::Tensor y = model->forward(x.narrow(1, t - n + 1, n));
      for (int b = 0; b < B; ++b) store(b, t, y[b][n - 1]);
    }
  }
  // engine: streaming, one frame per step
  engine::ContextOptions opt;
  opt.max_batch = B;
  engine::Context ctx(*engine_model, opt);
  std::vector<double> got(want.size());
  std::vector<float> out(size_t(B) * dout);
  for (int t = 0; t < T; ++t) {
    engine::step(*engine_model, ctx, B, raw.data() + size_t(t) * B * din, out.data());
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < dout; ++k) got[(size_t(b) * T + t) * dout + k] = out[size_t(b) * dout + k];
  }
  EXPECT_LT(relative_error(got, want), kFp32Tolerance) << arch_name(c.arch) << ": engine streaming vs torch";
  // engine reference (double) on each environment's sequence
  for (int b = 0; b < B; ++b) {
    std::vector<float> seq(size_t(T) * din);
    for (int t = 0; t < T; ++t)
      std::copy_n(raw.data() + (size_t(t) * B + b) * din, din, seq.data() + size_t(t) * din);
    std::vector<double> ref = engine::reference_forward(*engine_model, seq.data(), T);
    std::vector<double> mine(want.begin() + long(b) * T * dout, want.begin() + long(b + 1) * T * dout);
    EXPECT_LT(relative_error(mine, ref), kFp32Tolerance) << arch_name(c.arch) << ": torch vs engine reference, env " << b;
  }
}

TEST(EngineEquivalence, FlashRmsSwigluTorchEqualsEngine) {
  expect_engine_matches_torch(odd_sized_config(Arch::FlashNeRD, NormKind::RMSNorm, FfnActivation::SwiGLU));
}
TEST(EngineEquivalence, FlashLayerNormGegluTorchEqualsEngine) {
  expect_engine_matches_torch(odd_sized_config(Arch::FlashNeRD, NormKind::LayerNorm, FfnActivation::GEGLU));
}
TEST(EngineEquivalence, FlashReglueTorchEqualsEngine) {
  expect_engine_matches_torch(odd_sized_config(Arch::FlashNeRD, NormKind::RMSNorm, FfnActivation::ReGLU));
}
TEST(EngineEquivalence, FlashGluTorchEqualsEngine) {
  expect_engine_matches_torch(odd_sized_config(Arch::FlashNeRD, NormKind::RMSNorm, FfnActivation::GLU));
}
TEST(EngineEquivalence, FlashLayerNormMishgluTorchEqualsEngine) {
  expect_engine_matches_torch(odd_sized_config(Arch::FlashNeRD, NormKind::LayerNorm, FfnActivation::MishGLU));
}
TEST(EngineEquivalence, NerdTorchEqualsEngine) {  // as published: embedding bias, lm_head, ReLU head
  expect_engine_matches_torch(odd_sized_config(Arch::NeRD, NormKind::RMSNorm, FfnActivation::SwiGLU));
}
TEST(EngineEquivalence, NerdVersionOneLayoutTorchEqualsEngine) {  // artifacts written before the published head
  ModelConfig c = odd_sized_config(Arch::NeRD, NormKind::RMSNorm, FfnActivation::SwiGLU);
  c.nerd.embed_bias = c.nerd.lm_head = c.nerd.head_relu = false;
  expect_engine_matches_torch(c);
}

}  // namespace
}  // namespace flashnerd::train
