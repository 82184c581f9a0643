// The fused training pass against libtorch's autograd (the reference): the loss and every
// parameter's gradient, for both norms, every FFN activation, spans shorter and longer than
// the window, padded windows and probe inputs; its products against a double-precision
// product; the same bits on a rerun.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "core/bf16.h"
#include "core/rng.h"
#include "engine/test_models.h"
#include "odd_sized_config.h"
#include "train/fused_flash_pass.h"
#include "train/models.h"
#include "train/precision.h"
#include "train/training_product.h"
#include "train/validation.h"

namespace flashnerd::train {
namespace {

// max |a − b| / rms(b)
double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  const double rms = std::sqrt(b.pow(2).mean().item<double>());
  return (a - b).abs().max().item<double>() / std::max(rms, 1e-30);
}

std::vector<float> random_floats(size_t n, uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = float(scale * rng.normal());
  return v;
}

TEST(TrainingProduct, EveryTransposeAndAccumulationMatchesTheDoubleProduct) {
  const int64_t M = 37, N = 29, K = 45;
  for (OperandType type : {OperandType::F32, OperandType::BF16}) {
    if (!training_products_support(type)) continue;
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int acc = 0; acc < 2; ++acc) {
          const int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 5;
          const std::vector<float> a32 = random_floats(size_t((ta ? K : M) * lda), 1),
                                   b32 = random_floats(size_t((tb ? N : K) * ldb), 2);
          std::vector<uint16_t> a16(a32.size()), b16(b32.size());
          for (size_t i = 0; i < a32.size(); ++i) a16[i] = bf16_round(a32[i]);
          for (size_t i = 0; i < b32.size(); ++i) b16[i] = bf16_round(b32[i]);
          const void* A = type == OperandType::BF16 ? static_cast<const void*>(a16.data()) : a32.data();
          const void* B = type == OperandType::BF16 ? static_cast<const void*>(b16.data()) : b32.data();
          std::vector<float> c = random_floats(size_t(M * ldc), 3), expected = c;
          TrainingProduct(type, ta, tb, M, N, K, lda, ldb, ldc, acc).run(A, B, c.data());
          training_product_naive(type, ta, tb, M, N, K, A, lda, B, ldb, expected.data(), ldc, acc);
          double worst = 0;
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j)
              worst = std::max(worst, std::abs(double(c[size_t(i * ldc + j)]) - expected[size_t(i * ldc + j)]));
          EXPECT_LT(worst, 1e-4) << "type " << int(type) << " trans " << ta << tb << " accumulate " << acc;
        }
  }
}

// The odd-sized FlashNeRD (windows of 6 frames are longer and shorter than its spans) with
// inputs wide enough for 4 probes.
ModelConfig pass_config(NormKind norm, FfnActivation act) {
  ModelConfig c = odd_sized_config(Arch::FlashNeRD, norm, act);
  c.probe_dim = 4;
  c.input_dim = 13;
  engine::testing::random_normalization(c, 17);
  c.validate();
  return c;
}

struct Windows {
  int batch, window;
  std::vector<float> inputs, targets, mask;
};

// Random windows; the last two windows are padded (mask 0 after frame 2 and 4).
Windows random_windows(const ModelConfig& c, int batch, int window, uint64_t seed) {
  Windows w{batch, window, random_floats(size_t(batch * window * c.input_dim), seed),
            random_floats(size_t(batch * window * c.output_dim), seed + 1, 0.5),
            std::vector<float>(size_t(batch * window), 1.0f)};
  for (int t = 2; t < window; ++t) w.mask[size_t((batch - 1) * window + t)] = 0;
  for (int t = 4; t < window; ++t) w.mask[size_t((batch - 2) * window + t)] = 0;
  return w;
}

std::shared_ptr<DynamicsModel> perturbed_model(const ModelConfig& c) {
  auto model = make_model(c, 1);
  torch::manual_seed(2);
  torch::NoGradGuard g;
  for (auto& p : model->parameters()) p.copy_(p + torch::randn(p.sizes()) * 0.3);  // lag biases, norms too
  return model;
}

// Autograd's loss sums and gradients of scale · sse.
std::map<std::string, torch::Tensor> reference_gradients(DynamicsModel& model, const Windows& w, double scale,
                                                         FusedLoss& loss) {
  const ModelConfig& c = model.config();
  model.zero_grad();
  const auto x = torch::from_blob(const_cast<float*>(w.inputs.data()), {w.batch, w.window, c.input_dim});
  const auto y = torch::from_blob(const_cast<float*>(w.targets.data()), {w.batch, w.window, c.output_dim});
  const auto m = torch::from_blob(const_cast<float*>(w.mask.data()), {w.batch, w.window, 1});
  const torch::Tensor sse = ((model.forward(x) - y).pow(2) * m).sum();
  (sse * scale).backward();
  loss = {sse.item<double>(), m.sum().item<double>()};
  std::map<std::string, torch::Tensor> grads;
  for (const auto& kv : model.named_parameters()) grads[kv.key()] = kv.value().grad().clone();
  return grads;
}

void expect_fused_matches_autograd(const ModelConfig& c, bool bf16, int threads, double tolerance) {
  auto model = perturbed_model(c);
  const Windows w = random_windows(c, 5, 6, 11);
  const double scale = 1.0 / 97.0;
  FusedLoss expected;
  const auto grads = reference_gradients(*model, w, scale, expected);
  FusedFlashPass pass(*model, w.batch, w.window, bf16, threads);
  const FusedLoss got = pass.forward_backward(w.inputs.data(), w.targets.data(), w.mask.data(), scale);
  EXPECT_NEAR(got.sse, expected.sse, tolerance * expected.sse);
  EXPECT_EQ(got.weights, expected.weights);
  for (const auto& kv : model->named_parameters()) {
    const torch::Tensor& reference = grads.at(kv.key());
    ASSERT_GT(reference.abs().max().item<double>(), 0) << kv.key() << " has no gradient to compare";
    EXPECT_LT(relative_error(kv.value().grad(), reference), tolerance)
        << kv.key() << (bf16 ? " (bf16)" : " (fp32)") << " norm " << norm_name(c.flash.norm) << " activation "
        << activation_name(c.flash.activation);
  }
}

TEST(FusedFlashPass, LossAndGradientsEqualAutogradForBothNormsAndEveryActivation) {
  for (NormKind norm : {NormKind::RMSNorm, NormKind::LayerNorm})
    for (FfnActivation act : kAllActivations)
      expect_fused_matches_autograd(pass_config(norm, act), false, 1, 2e-5);
}

TEST(FusedFlashPass, TwoThreadsAgreeWithAutograd) {
  expect_fused_matches_autograd(pass_config(NormKind::RMSNorm, FfnActivation::SwiGLU), false, 2, 2e-5);
}

// bf16 operands: every gradient within the error of libtorch's own bf16 (autocast), both
// measured against fp32 autograd as ‖a − b‖ / ‖b‖.
TEST(FusedFlashPass, Bf16GradientsAreNoFurtherFromFp32ThanAutocastBf16) {
  if (!training_products_support(OperandType::BF16)) GTEST_SKIP() << "no bf16 products on this CPU";
  const ModelConfig c = pass_config(NormKind::RMSNorm, FfnActivation::SwiGLU);
  auto model = perturbed_model(c);
  const Windows w = random_windows(c, 5, 6, 11);
  FusedLoss fp32_loss, autocast_loss;
  const auto fp32 = reference_gradients(*model, w, 0.01, fp32_loss);
  std::map<std::string, torch::Tensor> autocast;
  {
    const ScopeExit guard = bf16_autocast(true);
    autocast = reference_gradients(*model, w, 0.01, autocast_loss);
  }
  FusedFlashPass pass(*model, w.batch, w.window, true, 2);
  const FusedLoss fused_loss = pass.forward_backward(w.inputs.data(), w.targets.data(), w.mask.data(), 0.01);
  auto distance = [](const torch::Tensor& a, const torch::Tensor& b) {
    const torch::Tensor reference = b.to(torch::kDouble);
    return (a.to(torch::kDouble) - reference).norm().item<double>() / reference.norm().item<double>();
  };
  EXPECT_NEAR(fused_loss.sse, fp32_loss.sse, 0.01 * fp32_loss.sse) << "autocast's: " << autocast_loss.sse;
  for (const auto& kv : model->named_parameters()) {
    const double fused = distance(kv.value().grad(), fp32.at(kv.key()));
    const double torch_bf16 = distance(autocast.at(kv.key()), fp32.at(kv.key()));
    EXPECT_LE(fused, std::max(1.5 * torch_bf16, 0.01)) << kv.key() << ": autocast's " << torch_bf16;
  }
}

// Variable contacts: the encoder and its three gates stay in autograd, the trunk in the pass;
// every gradient (encoder, gates, trunk) equals autograd's through the whole model. Rows per
// frame from none to all 4, padding rows full of garbage the mask hides.
TEST(FusedFlashPass, ContactEncoderGradientsContinueThroughAutograd) {
  ModelConfig c = engine::testing::flash_contact_test_config();
  c.flash.head_dim = 16;
  c.validate();
  auto model = perturbed_model(c);
  const Windows w = random_windows(c, 4, 6, 21);
  WindowBatch batch;
  batch.batch = w.batch;
  batch.length = w.window;
  batch.input_dim = c.input_dim;
  batch.output_dim = c.output_dim;
  batch.inputs = w.inputs;
  batch.targets = w.targets;
  batch.mask = w.mask;
  batch.contact_k = 4;
  const size_t frames = size_t(w.batch * w.window);
  batch.contact_rows = random_floats(frames * 4 * kContactRowDim, 31);
  batch.contact_link.resize(frames * 4);
  batch.contact_mask.resize(frames * 4);
  Rng rng(32);
  for (size_t f = 0; f < frames; ++f) {
    const int count = int(f % 5);  // 0 .. 4 rows
    for (int r = 0; r < 4; ++r) {
      batch.contact_link[f * 4 + size_t(r)] = int64_t(rng.uniform() * c.contact.link_count) % c.contact.link_count;
      batch.contact_mask[f * 4 + size_t(r)] = r < count;
    }
  }
  const double scale = 1.0 / 53.0;
  model->zero_grad();
  const auto x = torch::from_blob(batch.inputs.data(), {w.batch, w.window, c.input_dim});
  const auto y = torch::from_blob(batch.targets.data(), {w.batch, w.window, c.output_dim});
  const auto m = torch::from_blob(batch.mask.data(), {w.batch, w.window, 1});
  const ContactWindow contacts = contact_tensors(batch, 0, batch.batch);
  const torch::Tensor sse = ((model->predict(x, &contacts) - y).pow(2) * m).sum();
  (sse * scale).backward();
  std::map<std::string, torch::Tensor> expected;
  for (const auto& kv : model->named_parameters()) expected[kv.key()] = kv.value().grad().clone();
  FusedFlashPass pass(*model, w.batch, w.window, false, 2);
  const FusedLoss got = pass.forward_backward(batch, scale);
  EXPECT_NEAR(got.sse, sse.item<double>(), 2e-5 * sse.item<double>());
  int contact_parameters = 0;
  for (const auto& kv : model->named_parameters()) {
    contact_parameters += kv.key().rfind("contact", 0) == 0;
    const torch::Tensor& reference = expected.at(kv.key());
    ASSERT_GT(reference.abs().max().item<double>(), 0) << kv.key() << " has no gradient to compare";
    EXPECT_LT(relative_error(kv.value().grad(), reference), 2e-5) << kv.key();
  }
  EXPECT_GE(contact_parameters, 10);  // link embedding, row MLP, queries, three gates of two
  // a second update overwrites the encoder's gradients rather than adding to them
  pass.forward_backward(batch, scale);
  for (const auto& kv : model->named_parameters())
    EXPECT_LT(relative_error(kv.value().grad(), expected.at(kv.key())), 2e-5) << kv.key() << ", second update";
}

TEST(FusedFlashPass, TheSameInputsGiveTheSameBits) {
  const ModelConfig c = pass_config(NormKind::LayerNorm, FfnActivation::GEGLU);
  auto model = perturbed_model(c);
  const Windows w = random_windows(c, 6, 6, 5);
  FusedFlashPass pass(*model, w.batch, w.window, false, 2);
  auto run = [&] {
    pass.forward_backward(w.inputs.data(), w.targets.data(), w.mask.data(), 0.01);
    std::vector<torch::Tensor> grads;
    for (auto& p : model->parameters()) grads.push_back(p.grad().clone());
    return grads;
  };
  const auto first = run(), second = run();
  for (size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(torch::equal(first[i], second[i])) << "parameter " << i;
}

TEST(FusedFlashPass, ModelsItCannotTrainAreRefusedWithTheReason) {
  ModelConfig c = pass_config(NormKind::RMSNorm, FfnActivation::SwiGLU);
  auto model = make_model(c, 1);
  EXPECT_EQ(fused_flash_pass_refusal(*model, 0, false), "");
  EXPECT_NE(fused_flash_pass_refusal(*model, 0.1, false).find("dropout"), std::string::npos);
  EXPECT_NE(fused_flash_pass_refusal(*model, 0, true).find("own steps"), std::string::npos);
  EXPECT_EQ(fused_flash_pass_refusal(*make_model(engine::testing::flash_contact_test_config(), 1), 0, false), "");
  c.arch = Arch::NeRD;
  c.nerd.d_model = 36;
  c.nerd.n_heads = 3;
  c.nerd.window = 5;
  auto nerd = make_model(c, 1);
  EXPECT_NE(fused_flash_pass_refusal(*nerd, 0, false).find("NeRD"), std::string::npos);
  EXPECT_THROW(FusedFlashPass(*nerd, 2, 5, false, 1), std::exception);
}

}  // namespace
}  // namespace flashnerd::train
