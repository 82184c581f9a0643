// The compute backends behind one Context (ContextOptions::backend, engine/compute_backend.h):
// the reference backend, which re-encodes each history's last frames with the double
// reference at every step, steps what the CPU backend streams (FlashNeRD with and without
// contacts, NeRD) through histories longer than its window; copied, reset, saved and loaded
// histories behave alike on both; an unknown backend is refused naming those there are.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "engine/test_models.h"

namespace flashnerd::engine {
namespace {

using testing::ContactFrames;
using testing::random_contacts;
using testing::random_inputs;
using testing::relative_error;

constexpr double kTol = 1e-5;  // fp32 CPU kernels against double arithmetic, as engine_test

ContextOptions options(const std::string& backend, int batch) {
  ContextOptions o;
  o.max_batch = batch;
  o.backend = backend;
  o.gemm = GemmBackend::RowInvariant;  // the CPU's rows step alike wherever they sit
  return o;
}

// T frames of B environments (inputs (T, B, din)) on `backend`; returns (T, B, dout).
std::vector<float> stream(const Model& model, const std::string& backend, int B, int T, const std::vector<float>& in,
                          const ContactFrames* contacts) {
  Context ctx(model, options(backend, B));
  const size_t din = size_t(model.input_dim()), dout = size_t(model.output_dim());
  std::vector<float> out(size_t(T) * size_t(B) * dout);
  for (int t = 0; t < T; ++t) {
    const ContactBatch cb = contacts ? contacts->batch(size_t(t) * size_t(B)) : ContactBatch{};
    step(model, ctx, B, in.data() + size_t(t) * size_t(B) * din, contacts ? &cb : nullptr,
         out.data() + size_t(t) * size_t(B) * dout);
  }
  EXPECT_EQ(ctx.diverged_count(B), 0) << backend;
  return out;
}

void expect_reference_steps_like_cpu(const ModelConfig& config) {
  auto model = Model::random(config, 5);
  const int B = 3, T = 3 * config.history() + 4;
  const auto in = random_inputs(size_t(T) * B, config.input_dim, 17);
  ContactFrames contacts;
  if (config.contact.enabled())
    contacts = random_contacts(size_t(T) * B, config.contact.capacity, config.contact.link_count, 3);
  const ContactFrames* c = config.contact.enabled() ? &contacts : nullptr;
  EXPECT_LT(relative_error(stream(*model, "cpu", B, T, in, c), stream(*model, "reference", B, T, in, c)), kTol)
      << arch_name(config.arch);
}

TEST(ComputeBackend, ReferenceStepsWhatTheCpuStreams) {
  expect_reference_steps_like_cpu(testing::flash_test_config());
  expect_reference_steps_like_cpu(testing::nerd_test_config());
  expect_reference_steps_like_cpu(testing::flash_contact_test_config());
}

// One step of B environments; returns (B, dout).
std::vector<float> step_once(const Model& model, Context& ctx, int B, const float* in) {
  std::vector<float> y(size_t(B) * size_t(model.output_dim()));
  step(model, ctx, B, in, y.data());
  return y;
}

std::vector<float> row(const std::vector<float>& y, int env, int dout) {
  return {y.begin() + std::ptrdiff_t(env) * dout, y.begin() + std::ptrdiff_t(env + 1) * dout};
}

TEST(ComputeBackend, HistoriesAreCopiedResetSavedAndLoadedAlikeOnEveryBackend) {
  for (const ModelConfig& config : {testing::flash_test_config(), testing::nerd_test_config()}) {
    auto model = Model::random(config, 7);
    const int B = 3, T = 2 * config.history() + 1, din = config.input_dim, dout = config.output_dim;
    const auto in = random_inputs(size_t(T + 1) * B, din, 29);
    for (const std::string backend : {"cpu", "reference"}) {
      SCOPED_TRACE(backend + " " + arch_name(config.arch));
      Context ctx(*model, options(backend, B));
      for (int t = 0; t < T; ++t) step_once(*model, ctx, B, in.data() + size_t(t) * B * din);
      const std::string saved = ctx.save_history();
      Context restored(*model, options(backend, B));
      restored.load_history(saved);
      EXPECT_EQ(restored.frames(1), T);
      copy_env(ctx, 0, 2);
      reset_env(ctx, 1);
      EXPECT_EQ(ctx.frames(1), 0);
      // the same next frame for every environment
      std::vector<float> next(size_t(B) * din);
      for (int e = 0; e < B; ++e) std::copy_n(in.data() + size_t(T) * B * din, din, next.data() + size_t(e) * din);
      const auto y = step_once(*model, ctx, B, next.data());
      EXPECT_EQ(row(y, 2, dout), row(y, 0, dout)) << "a copied history steps like its source";
      Context fresh(*model, options(backend, 1));
      EXPECT_EQ(row(y, 1, dout), step_once(*model, fresh, 1, next.data())) << "a reset history starts anew";
      const auto y_restored = step_once(*model, restored, B, next.data());
      EXPECT_EQ(row(y_restored, 0, dout), row(y, 0, dout)) << "a loaded history continues as saved";
    }
  }
}

TEST(ComputeBackend, AnUnknownBackendIsRefusedNamingThoseThereAre) {
  auto model = Model::random(testing::flash_test_config(), 5);
  try {
    Context ctx(*model, options("gpu", 4));
    FAIL() << "an unknown backend was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'gpu'"), std::string::npos) << what;
    EXPECT_NE(what.find("cpu, reference"), std::string::npos) << what;
  }
  Context reference(*model, options("reference", 4));
  EXPECT_EQ(reference.kernel_summary().rfind("reference:", 0), 0u) << reference.kernel_summary();
  EXPECT_EQ(reference.threads(), 1);
}

TEST(ComputeBackend, ContextsOfTwoBackendsDoNotShareHistories) {
  auto model = Model::random(testing::flash_test_config(), 5);
  Context cpu(*model, options("cpu", 2)), reference(*model, options("reference", 2));
  EXPECT_THROW(copy_env(cpu, 0, reference, 1), Error);
}

}  // namespace
}  // namespace flashnerd::engine
