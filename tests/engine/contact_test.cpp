// The variable-contact encoder in the engine (docs/DESIGN.md §4): streaming with contacts equals the
// double-precision reference; permutation of rows, padding content and "no contacts" behave
// as the design says; misuse throws. Tolerance as in engine_test (kTol).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "engine/reference.h"
#include "engine/test_models.h"

namespace flashnerd::engine {
namespace {

using testing::ContactFrames;
using testing::flash_contact_test_config;
using testing::random_contacts;
using testing::random_inputs;
using testing::relative_error;

constexpr double kTol = 1e-5;

// Streams B sequences of T frames, inputs (T, B, din) and contacts (T, B, K); returns (B, T, dout).
std::vector<float> stream(const Model& model, Context& ctx, int B, int T, const std::vector<float>& in,
                          const ContactFrames& contacts) {
  const int din = model.input_dim(), dout = model.output_dim();
  std::vector<float> out(size_t(B) * T * dout), y(size_t(B) * dout);
  for (int t = 0; t < T; ++t) {
    const ContactBatch cb = contacts.batch(size_t(t) * B);
    step(model, ctx, B, in.data() + size_t(t) * B * din, &cb, y.data());
    for (int b = 0; b < B; ++b)
      std::copy_n(&y[size_t(b) * dout], dout, &out[(size_t(b) * T + t) * dout]);
  }
  return out;
}

struct Case {
  int B = 7, T = 0;
  std::vector<float> inputs;
  ContactFrames contacts;
};

Case make_case(const ModelConfig& c, uint64_t seed) {
  Case k;
  k.T = 2 * c.history() + 3;
  k.inputs = random_inputs(size_t(k.T) * k.B, c.input_dim, seed);
  k.contacts = random_contacts(size_t(k.T) * k.B, c.contact.capacity, c.contact.link_count, seed + 1);
  return k;
}

std::vector<float> run(const Model& model, const Case& k, int threads, int tile_rows) {
  ThreadPool pool(threads);
  ContextOptions opt;
  opt.max_batch = k.B;
  opt.pool = &pool;
  opt.tile_rows = tile_rows;
  Context ctx(model, opt);
  return stream(model, ctx, k.B, k.T, k.inputs, k.contacts);
}

TEST(EngineContacts, StreamingMatchesReference) {
  const ModelConfig c = flash_contact_test_config();
  auto model = Model::random(c, 3);
  const Case k = make_case(c, 41);
  const int K = c.contact.capacity, din = c.input_dim, dout = c.output_dim;
  for (int tile_rows : {0, 3}) {
    auto out = run(*model, k, 2, tile_rows);
    for (int b = 0; b < k.B; ++b) {
      // sequence b: inputs (T, din), contacts (T, K)
      std::vector<float> seq(size_t(k.T) * din), rows(size_t(k.T) * K * kContactRowDim);
      std::vector<int32_t> link(size_t(k.T) * K), count(size_t(k.T));
      for (int t = 0; t < k.T; ++t) {
        const size_t f = size_t(t) * k.B + size_t(b);
        std::copy_n(&k.inputs[f * din], din, &seq[size_t(t) * din]);
        std::copy_n(&k.contacts.rows[f * K * kContactRowDim], K * kContactRowDim, &rows[size_t(t) * K * kContactRowDim]);
        std::copy_n(&k.contacts.link[f * K], K, &link[size_t(t) * K]);
        count[size_t(t)] = k.contacts.count[f];
      }
      const ContactBatch cb{rows.data(), link.data(), count.data()};
      auto ref = reference_forward(*model, seq.data(), k.T, false, &cb);
      std::vector<float> got(out.begin() + long(b) * k.T * dout, out.begin() + long(b + 1) * k.T * dout);
      EXPECT_LT(relative_error(got, ref), kTol) << "env " << b << " tile_rows " << tile_rows;
    }
  }
}

TEST(EngineContacts, ContactsChangeThePrediction) {
  // guards the tests below against a model whose contact terms do nothing
  const ModelConfig c = flash_contact_test_config();
  auto model = Model::random(c, 3);
  Case k = make_case(c, 7);
  auto with = run(*model, k, 1, 0);
  std::fill(k.contacts.count.begin(), k.contacts.count.end(), 0);
  auto without = run(*model, k, 1, 0);
  EXPECT_GT(relative_error(with, without), 1e-2);
}

TEST(EngineContacts, RowPermutationDoesNotChangeOutput) {
  const ModelConfig c = flash_contact_test_config();
  auto model = Model::random(c, 4);
  Case k = make_case(c, 9);
  auto base = run(*model, k, 2, 0);
  const int K = c.contact.capacity;
  Rng rng(5);
  for (size_t f = 0; f < k.contacts.count.size(); ++f) {  // reverse, then a random swap
    const int n = k.contacts.count[f];
    for (int r = 0; r < n / 2; ++r) {
      std::swap_ranges(&k.contacts.rows[(f * K + size_t(r)) * kContactRowDim],
                       &k.contacts.rows[(f * K + size_t(r) + 1) * kContactRowDim],
                       &k.contacts.rows[(f * K + size_t(n - 1 - r)) * kContactRowDim]);
      std::swap(k.contacts.link[f * K + size_t(r)], k.contacts.link[f * K + size_t(n - 1 - r)]);
    }
  }
  auto permuted = run(*model, k, 2, 0);
  EXPECT_LT(relative_error(permuted, base), 1e-5);
}

TEST(EngineContacts, PaddingContentNeverMatters) {
  const ModelConfig c = flash_contact_test_config();
  auto model = Model::random(c, 4);
  Case k = make_case(c, 10);
  auto base = run(*model, k, 2, 0);
  const int K = c.contact.capacity;
  for (size_t f = 0; f < k.contacts.count.size(); ++f)
    for (int r = k.contacts.count[f]; r < K; ++r) {
      for (int j = 0; j < kContactRowDim; ++j)
        k.contacts.rows[(f * K + size_t(r)) * kContactRowDim + size_t(j)] =
            j % 2 ? std::numeric_limits<float>::quiet_NaN() : 1e30f;
      k.contacts.link[f * K + size_t(r)] = 12345;
    }
  auto garbage = run(*model, k, 2, 0);
  ASSERT_EQ(garbage.size(), base.size());
  EXPECT_EQ(0, std::memcmp(garbage.data(), base.data(), base.size() * sizeof(float)));
}

TEST(EngineContacts, NoContactsContributesExactlyZero) {
  // the model with an empty contact set equals the same weights without a contact encoder
  const ModelConfig c = flash_contact_test_config();
  auto model = Model::random(c, 6);
  ModelConfig plain = c;
  plain.contact = ContactEncoderConfig{};
  plain.norm.contact_mean.clear();
  plain.norm.contact_std.clear();
  std::vector<NamedTensor> kept;
  for (const auto& spec : model_tensors(plain))
    kept.push_back({spec.name, spec.shape, model->tensor(spec.name)});
  auto without = Model::from_tensors(plain, kept);
  Case k = make_case(c, 12);
  std::fill(k.contacts.count.begin(), k.contacts.count.end(), 0);
  auto got = run(*model, k, 2, 0);
  ThreadPool pool(2);
  ContextOptions opt;
  opt.max_batch = k.B;
  opt.pool = &pool;
  Context ctx(*without, opt);
  // contacts live in the cached keys/values only: no contact rows are stored per environment
  Context with_ctx(*model, opt);
  EXPECT_EQ(with_ctx.cache_bytes_per_env(), ctx.cache_bytes_per_env());
  std::vector<float> y(size_t(k.B) * c.output_dim), expect(got.size());
  for (int t = 0; t < k.T; ++t) {
    step(*without, ctx, k.B, k.inputs.data() + size_t(t) * k.B * c.input_dim, y.data());
    for (int b = 0; b < k.B; ++b)
      std::copy_n(&y[size_t(b) * c.output_dim], c.output_dim, &expect[(size_t(b) * k.T + t) * c.output_dim]);
  }
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expect[i]) << "element " << i;
}

TEST(EngineContacts, MisuseThrowsClearErrors) {
  const ModelConfig c = flash_contact_test_config();
  auto model = Model::random(c, 6);
  ContextOptions opt;
  opt.max_batch = 2;
  Context ctx(*model, opt);
  std::vector<float> x(2 * size_t(c.input_dim), 0.f), y(2 * size_t(c.output_dim));
  ContactFrames f = random_contacts(2, c.contact.capacity, c.contact.link_count, 1);
  f.count = {2, 1};
  f.link[0] = f.link[1] = f.link[size_t(c.contact.capacity)] = 0;
  ContactBatch cb = f.batch();
  EXPECT_NO_THROW(step(*model, ctx, 2, x.data(), &cb, y.data()));
  auto message = [&](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { step(*model, ctx, 2, x.data(), y.data()); }).find("reads variable contacts"), std::string::npos);
  f.count[1] = c.contact.capacity + 1;
  EXPECT_NE(message([&] { step(*model, ctx, 2, x.data(), &cb, y.data()); }).find("capacity"), std::string::npos);
  f.count[1] = 1;
  f.link[0] = c.contact.link_count;
  EXPECT_NE(message([&] { step(*model, ctx, 2, x.data(), &cb, y.data()); }).find("names link"), std::string::npos);
  auto plain = Model::random(testing::flash_test_config(), 1);
  Context plain_ctx(*plain, opt);
  EXPECT_NE(message([&] { step(*plain, plain_ctx, 2, x.data(), &cb, y.data()); }).find("without a contact encoder"),
            std::string::npos);
}

}  // namespace
}  // namespace flashnerd::engine
