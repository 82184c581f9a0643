#include "core/frame_features.h"

#include <algorithm>

#include "core/error.h"
#include "core/rng.h"

namespace flashnerd {

FrameFeatures::FrameFeatures(const StateCodec& codec, int probe_count)
    : codec_(&codec), probe_dim_(probe_count * kProbeFeatureDim) {}

void FrameFeatures::input(const double* q, const double* v, const double* a, const double* u,
                          const float* probes, float* out) const {
  double f[512];
  const int fd = codec_->feature_dim();
  FN_ASSERT(fd <= 512);
  codec_->encode(q, v, a, f);
  for (int i = 0; i < fd; ++i) out[i] = float(f[i]);
  const int nu = codec_->layout().nu;
  for (int i = 0; i < nu; ++i) out[fd + i] = float(u[i]);
  for (int i = 0; i < probe_dim_; ++i) out[fd + nu + i] = probes[i];
}

void FrameFeatures::target(const double* q0, const double* v0, const double* a0, const double* q1,
                           const double* v1, const double* a1, float* out) const {
  double inc[512];
  const int od = codec_->increment_dim();
  FN_ASSERT(od <= 512);
  codec_->increment(q0, v0, a0, q1, v1, a1, inc);
  for (int i = 0; i < od; ++i) out[i] = float(inc[i]);
}

TransitionArrays build_transitions(const Dataset& d, const StateCodec& codec, bool use_probes,
                                  bool free_velocity, bool use_contacts) {
  FN_CHECK(codec.layout() == d.layout, "dataset of robot '", d.robot,
           "' has a state layout that does not match the model's");
  FN_CHECK(!use_probes || d.probe_count > 0, "the model uses fixed probes but dataset of robot '",
           d.robot, "' has none recorded; regenerate it with probes");
  FN_CHECK(!free_velocity || !d.free_dv.empty(), "a free-velocity model needs free-dynamics targets, but "
           "dataset of robot '", d.robot, "' has none; regenerate it recording free-dynamics targets");
  FrameFeatures ff(codec, use_probes ? d.probe_count : 0);
  TransitionArrays a;
  a.trajectories = d.trajectories;
  a.steps = d.steps;
  a.input_dim = ff.input_dim();
  a.output_dim = free_velocity ? d.layout.nv : ff.output_dim();
  a.inputs.resize(size_t(d.trajectories * d.steps * a.input_dim));
  a.targets.resize(size_t(d.trajectories * d.steps * a.output_dim));
  a.mask.resize(size_t(d.trajectories * d.steps));
  for (int64_t n = 0; n < d.trajectories; ++n) {
    for (int64_t t = 0; t < d.steps; ++t) {
      int64_t i = n * d.steps + t;
      const bool ok = d.is_valid(n, t);
      a.mask[size_t(i)] = ok ? 1 : 0;
      float* x = a.inputs.data() + i * a.input_dim;
      float* y = a.targets.data() + i * a.output_dim;
      if (!ok) {  // keep NaNs of a blown-up state out of the arrays entirely
        std::fill(x, x + a.input_dim, 0.0f);
        std::fill(y, y + a.output_dim, 0.0f);
        continue;
      }
      ff.input(d.q(n, t), d.v(n, t), d.a(n, t), d.u(n, t), use_probes ? d.probe(n, t) : nullptr, x);
      if (free_velocity) {
        for (int k = 0; k < a.output_dim; ++k) y[k] = float(d.free_dv[size_t(i * a.output_dim + k)]);
      } else {
        ff.target(d.q(n, t), d.v(n, t), d.a(n, t), d.q(n, t + 1), d.v(n, t + 1), d.a(n, t + 1), y);
      }
    }
  }
  if (use_contacts) {
    FN_CHECK(d.contact_capacity > 0, "dataset of robot '", d.robot, "' has no contact rows recorded; "
             "regenerate it with contact rows recorded, or train without variable contacts");
    a.contact_capacity = d.contact_capacity;
    const int K = d.contact_capacity;
    a.contact_offset.assign(size_t(d.trajectories * d.steps + 1), 0);
    for (int pass = 0; pass < 2; ++pass) {  // count, then fill
      int64_t r = 0;
      for (int64_t n = 0; n < d.trajectories; ++n)
        for (int64_t t = 0; t < d.steps; ++t) {
          const int64_t i = n * d.steps + t, f = n * d.frames() + t;
          a.contact_offset[size_t(i)] = r;
          const int count = a.mask[size_t(i)] ? d.contact_count[size_t(f)] : 0;
          if (pass == 1) {
            std::copy_n(&d.contact_rows[size_t(f * K * kContactRowDim)], size_t(count) * kContactRowDim,
                        &a.contact_rows[size_t(r * kContactRowDim)]);
            std::copy_n(&d.contact_link[size_t(f * K)], size_t(count), &a.contact_link[size_t(r)]);
          }
          r += count;
        }
      a.contact_offset.back() = r;
      if (pass == 0) {
        a.contact_rows.resize(size_t(r) * kContactRowDim);
        a.contact_link.resize(size_t(r));
      }
    }
  }
  return a;
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> split_trajectories(int64_t n,
                                                                         double valid_fraction,
                                                                         uint64_t seed) {
  std::vector<int64_t> train, valid;
  for (int64_t i = 0; i < n; ++i) {
    Rng r = Rng::stream(seed ^ 0x5EED5B1177ull, uint64_t(i));
    (r.uniform() < valid_fraction ? valid : train).push_back(i);
  }
  // Always keep at least one trajectory on each side when possible.
  if (valid.empty() && n > 1 && valid_fraction > 0) {
    valid.push_back(train.back());
    train.pop_back();
  }
  return {train, valid};
}

}  // namespace flashnerd
