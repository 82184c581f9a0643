// Small random models with odd sizes for the engine tests, and helpers.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rng.h"
#include "engine/engine.h"

namespace flashnerd::engine::testing {

// Non-trivial normalization statistics for c's input and output widths, from Rng(seed).
inline void random_normalization(ModelConfig& c, uint64_t seed) {
  c.norm = Normalization{};
  Rng rng(seed);
  for (int i = 0; i < c.input_dim; ++i) {
    c.norm.input_mean.push_back(float(rng.uniform(-0.5, 0.5)));
    c.norm.input_std.push_back(float(rng.uniform(0.5, 2.0)));
  }
  for (int i = 0; i < c.output_dim; ++i) {
    c.norm.target_mean.push_back(float(rng.uniform(-0.1, 0.1)));
    c.norm.target_std.push_back(float(rng.uniform(0.05, 0.5)));
  }
}

// Odd sizes everywhere; non-trivial normalization so the (de)normalization is exercised.
inline ModelConfig flash_test_config(NormKind norm = NormKind::RMSNorm,
                                     FfnActivation act = FfnActivation::SwiGLU) {
  ModelConfig c = synthetic_config(Arch::FlashNeRD, ModelPreset::Tiny, 7, 5);
  c.flash.d_model = 40;
  c.flash.n_layers = 3;
  c.flash.n_heads = 3;
  c.flash.head_dim = 12;
  c.flash.spans = {4, 2, 3};
  c.flash.ffn_hidden = 37;
  c.flash.readout_hidden = 23;
  c.flash.norm = norm;
  c.flash.activation = act;
  random_normalization(c, 11);
  c.validate();
  return c;
}

inline ModelConfig nerd_test_config() {
  ModelConfig c = flash_test_config();
  c.arch = Arch::NeRD;
  c.nerd.d_model = 36;
  c.nerd.n_layers = 2;
  c.nerd.n_heads = 3;
  c.nerd.window = 5;
  c.nerd.mlp_hidden = 61;
  c.nerd.head_hidden = 19;
  c.validate();
  return c;
}

// FlashNeRD with a small contact encoder (odd sizes) and non-trivial row statistics.
inline ModelConfig flash_contact_test_config() {
  ModelConfig c = flash_test_config();
  c.contact.capacity = 9;
  c.contact.slots = 3;
  c.contact.link_count = 5;
  c.contact.link_embed = 4;
  c.contact.row_hidden = 13;
  c.contact.row_width = 6;
  Rng rng(23);
  for (int i = 0; i < kContactRowDim; ++i) {
    c.norm.contact_mean.push_back(float(rng.uniform(-0.3, 0.3)));
    c.norm.contact_std.push_back(float(rng.uniform(0.3, 2.0)));
  }
  c.validate();
  return c;
}

// Contact rows of n frames at capacity K: counts in [0, K] (zero and full included), valid
// rows random, padding zero (as the detector writes it).
struct ContactFrames {
  int K = 0;
  std::vector<float> rows;     // (n, K, kContactRowDim)
  std::vector<int32_t> link;   // (n, K), -1 on padding
  std::vector<int32_t> count;  // (n)
  ContactBatch batch(size_t first = 0) const {
    return {rows.data() + first * size_t(K) * kContactRowDim, link.data() + first * size_t(K), count.data() + first};
  }
};
inline ContactFrames random_contacts(size_t n, int K, int links, uint64_t seed) {
  Rng rng(seed);
  ContactFrames f;
  f.K = K;
  f.rows.assign(n * size_t(K) * kContactRowDim, 0.f);
  f.link.assign(n * size_t(K), -1);
  f.count.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int c = i % 5 == 0 ? 0 : i % 7 == 0 ? K : int(rng.below(uint64_t(K) + 1));
    f.count[i] = c;
    for (int r = 0; r < c; ++r) {
      for (int k = 0; k < kContactRowDim; ++k) f.rows[(i * size_t(K) + size_t(r)) * kContactRowDim + size_t(k)] = float(rng.normal(0.0, 1.0));
      f.link[i * size_t(K) + size_t(r)] = int32_t(rng.below(uint64_t(links)));
    }
  }
  return f;
}

// (n, dim) values, roughly the scale of raw features.
// n floats uniform in [−scale, scale] from Rng(seed).
inline std::vector<float> random_vec(size_t n, uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = float(rng.uniform(-scale, scale));
  return v;
}

inline std::vector<float> random_inputs(size_t n, int dim, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(n * size_t(dim));
  for (auto& v : x) v = float(rng.normal(0.0, 1.5));
  return x;
}

// max |a − b| / rms(b): the error measure of the equivalence tests.
template <typename A, typename B>
double relative_error(const A& a, const B& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::fabs(double(a[i]) - double(b[i])));
    den += double(b[i]) * double(b[i]);
  }
  return num / std::sqrt(den / double(b.size()) + 1e-30);
}

// The relative_error allowed between two fp32 computations of one model (engine and libtorch).
constexpr double kFp32Tolerance = 2e-5;

}  // namespace flashnerd::engine::testing
