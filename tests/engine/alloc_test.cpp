// No heap allocation inside a step (CONTRIBUTING.md, rule 2): this test binary interposes malloc and
// friends (testing/alloc_counter.h) and counts calls from all threads while stepping.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "core/thread_pool.h"
#include "engine/cpu/cpu_features.h"
#include "engine/engine.h"
#include "engine/test_models.h"
#include "testing/alloc_counter.h"

namespace flashnerd::engine {
namespace {

long allocations_over_steps(const ModelConfig& config, GemmBackend gemm, int B, int tile_rows,
                            Precision precision = Precision::FP32, int64_t parallel_min_macs = 0) {
  auto model = Model::random(config, 3, ModelOptions{precision});
  ThreadPool pool(2);
  ContextOptions opt;
  opt.max_batch = B;
  opt.pool = &pool;
  opt.gemm = gemm;
  opt.tile_rows = tile_rows;
  opt.parallel_min_macs = parallel_min_macs;
  Context ctx(*model, opt);
  auto in = testing::random_inputs(size_t(B), config.input_dim, 5);
  // a variable-contact model steps with detected rows (counts 0..K) of every environment
  const auto contacts = testing::random_contacts(size_t(B), std::max(1, config.contact.capacity),
                                                 std::max(1, config.contact.link_count), 6);
  const ContactBatch rows = contacts.batch();
  const ContactBatch* cb = config.contact.enabled() ? &rows : nullptr;
  std::vector<float> out(size_t(B) * config.output_dim);
  // warm-up: first calls may set up OpenBLAS's per-thread buffers
  for (int t = 0; t < 3; ++t) step(*model, ctx, B, in.data(), cb, out.data());
  g_allocations = 0;
  g_counting = true;
  for (int t = 0; t < 50; ++t) {
    step(*model, ctx, B, in.data(), cb, out.data());
    step(*model, ctx, B / 2 + 1, in.data(), cb, out.data());  // other tilings
    if (!cb) step_normalized(*model, ctx, 1, in.data(), out.data());
    if (t % 7 == 0) reset_env(ctx, t % B);
  }
  g_counting = false;
  return g_allocations.load();
}

TEST(Allocation, CountingHookSeesAllocations) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  g_allocations = 0;
  g_counting = true;
  auto* v = new std::vector<float>(100);
  g_counting = false;
  delete v;
  EXPECT_GE(g_allocations.load(), 1);
}

TEST(Allocation, NoHeapAllocationInFlashStep) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  // tile rows 32 exercise OpenBLAS (rows > 16), the rest the own small kernel
  EXPECT_EQ(allocations_over_steps(testing::flash_test_config(), GemmBackend::Auto, 70, 32), 0);
  EXPECT_EQ(allocations_over_steps(testing::flash_test_config(NormKind::LayerNorm, FfnActivation::GEGLU),
                                   GemmBackend::OpenBLAS, 9, 0),
            0);
}

TEST(Allocation, NoHeapAllocationInFlashStepWithContacts) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  EXPECT_EQ(allocations_over_steps(testing::flash_contact_test_config(), GemmBackend::Auto, 70, 32), 0);
  EXPECT_EQ(allocations_over_steps(testing::flash_contact_test_config(), GemmBackend::Auto, 5, 0), 0);
}

TEST(Allocation, NoHeapAllocationInNerdStep) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  EXPECT_EQ(allocations_over_steps(testing::nerd_test_config(), GemmBackend::Auto, 40, 0), 0);
}

}  // namespace
}  // namespace flashnerd::engine

namespace flashnerd::engine {
namespace {

// bf16 products and column-split small batches (every GEMM over both threads) allocate
// nothing either.
TEST(Allocation, NoHeapAllocationInBf16AndSplitSteps) {
  if (!FLASHNERD_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  EXPECT_EQ(allocations_over_steps(testing::flash_test_config(), GemmBackend::Auto, 3, 0, Precision::FP32, 1), 0);
  EXPECT_EQ(allocations_over_steps(testing::nerd_test_config(), GemmBackend::Auto, 3, 0, Precision::FP32, 1), 0);
  if (!cpu_features().native_bf16())
    GTEST_SKIP() << "bf16 path skipped: this CPU (" << cpu_features().model << ") has no native bf16";
  for (const ModelConfig& config : {testing::flash_test_config(), testing::nerd_test_config()}) {
    EXPECT_EQ(allocations_over_steps(config, GemmBackend::Auto, 70, 32, Precision::BF16), 0);
    EXPECT_EQ(allocations_over_steps(config, GemmBackend::Auto, 3, 0, Precision::BF16, 1), 0);
  }
}

}  // namespace
}  // namespace flashnerd::engine
