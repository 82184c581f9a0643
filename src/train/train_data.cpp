#include "train/train_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "core/fnv1a.h"
#include "core/rng.h"

namespace flashnerd::train {

namespace {

// Two-pass statistics in double over the selected rows; `count` is the number of rows over
// every rank, whose sums `sum_over_ranks` adds up (so every rank gets the global statistics).
void mean_std(const float* rows, int64_t stride, const std::vector<int64_t>& idx, int dim, double count,
              const RankSum& sum_over_ranks, std::vector<float>& mean, std::vector<float>& std) {
  std::vector<double> m(size_t(dim), 0.0), v(size_t(dim), 0.0);
  for (int64_t i : idx)
    for (int c = 0; c < dim; ++c) m[size_t(c)] += rows[i * stride + c];
  sum_over_ranks(m);
  for (auto& x : m) x /= count;
  for (int64_t i : idx)
    for (int c = 0; c < dim; ++c) {
      double e = rows[i * stride + c] - m[size_t(c)];
      v[size_t(c)] += e * e;
    }
  sum_over_ranks(v);
  mean.resize(size_t(dim));
  std.resize(size_t(dim));
  for (int c = 0; c < dim; ++c) {
    mean[size_t(c)] = float(m[size_t(c)]);
    std[size_t(c)] = float(std::sqrt(v[size_t(c)] / count + kNormEpsilon));
  }
}

}  // namespace

Normalization fit_normalization(const Dataset& d, const TransitionArrays& a, const StateCodec& codec,
                                const std::vector<int64_t>& trajectories, const RankSum& sum_over_ranks_in) {
  const RankSum sum_over_ranks = sum_over_ranks_in ? sum_over_ranks_in : [](std::vector<double>&) {};
  std::vector<int64_t> rows, contact_rows;
  for (int64_t n : trajectories)
    for (int64_t t = 0; t < a.steps; ++t)
      if (a.mask[size_t(n * a.steps + t)]) rows.push_back(n * a.steps + t);
  if (a.contact_capacity > 0)
    for (int64_t i : rows)
      for (int64_t r = a.contact_offset[size_t(i)]; r < a.contact_offset[size_t(i + 1)]; ++r) contact_rows.push_back(r);
  std::vector<double> counts{double(rows.size()), double(contact_rows.size())};
  sum_over_ranks(counts);
  const double count = counts[0];
  FN_CHECK(count > 0, "dataset of robot '", d.robot, "': every transition of the ",
           trajectories.size(), " training trajectories is masked invalid; nothing to train on "
           "(regenerate the dataset, or check its 'valid' array)");
  Normalization n;
  mean_std(a.inputs.data(), a.input_dim, rows, a.input_dim, count, sum_over_ranks, n.input_mean, n.input_std);
  mean_std(a.targets.data(), a.output_dim, rows, a.output_dim, count, sum_over_ranks, n.target_mean, n.target_std);
  // state channels of s_t, in double
  const int cd = codec.channel_dim();
  std::vector<double> ch(static_cast<size_t>(cd)), m(static_cast<size_t>(cd), 0.0), v(static_cast<size_t>(cd), 0.0);
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t r : rows) {
      const int64_t nn = r / a.steps, t = r % a.steps;
      codec.channels(d.q(nn, t), d.v(nn, t), d.a(nn, t), ch.data());
      for (int c = 0; c < cd; ++c) {
        if (pass == 0) {
          m[size_t(c)] += ch[size_t(c)];
        } else {
          double e = ch[size_t(c)] - m[size_t(c)];
          v[size_t(c)] += e * e;
        }
      }
    }
    sum_over_ranks(pass == 0 ? m : v);
    if (pass == 0)
      for (auto& x : m) x /= count;
  }
  n.channel_std.resize(size_t(cd));
  for (int c = 0; c < cd; ++c)
    n.channel_std[size_t(c)] = std::sqrt(v[size_t(c)] / count + kNormEpsilon);
  if (a.contact_capacity > 0) {
    if (counts[1] == 0) {  // a robot that never touched anything: identity statistics
      n.contact_mean.assign(kContactRowDim, 0.f);
      n.contact_std.assign(kContactRowDim, 1.f);
    } else {
      mean_std(a.contact_rows.data(), kContactRowDim, contact_rows, kContactRowDim, counts[1], sum_over_ranks,
               n.contact_mean, n.contact_std);
    }
  }
  return n;
}

void standardize_transitions(TransitionArrays& a, const Normalization& n) {
  FN_ASSERT(int(n.input_mean.size()) == a.input_dim && int(n.target_mean.size()) == a.output_dim);
  const int64_t rows = a.trajectories * a.steps;
  for (int64_t i = 0; i < rows; ++i) {
    if (!a.mask[size_t(i)]) continue;
    float* x = a.inputs.data() + i * a.input_dim;
    for (int c = 0; c < a.input_dim; ++c) x[c] = (x[c] - n.input_mean[size_t(c)]) / n.input_std[size_t(c)];
    float* y = a.targets.data() + i * a.output_dim;
    for (int c = 0; c < a.output_dim; ++c)
      y[c] = (y[c] - n.target_mean[size_t(c)]) / n.target_std[size_t(c)];
  }
  if (a.contact_capacity > 0) {
    FN_ASSERT(int(n.contact_mean.size()) == kContactRowDim && int(n.contact_std.size()) == kContactRowDim);
    for (size_t r = 0; r < a.contact_link.size(); ++r) {
      float* x = a.contact_rows.data() + r * kContactRowDim;
      for (int c = 0; c < kContactRowDim; ++c) x[c] = (x[c] - n.contact_mean[size_t(c)]) / n.contact_std[size_t(c)];
    }
  }
}

WindowIndex::WindowIndex(const TransitionArrays& a, const std::vector<int64_t>& trajectories, int length)
    : length_(length) {
  FN_ASSERT(length >= 1);
  const int64_t last = a.steps >= length ? a.steps - length : 0;
  for (int64_t n : trajectories)
    for (int64_t t = 0; t <= last; ++t)
      if (a.mask[size_t(n * a.steps + t)]) windows_.push_back({n, t});
}

std::vector<WindowRef> WindowIndex::sample(uint64_t seed, int64_t update, int batch) const {
  FN_ASSERT(!windows_.empty());
  Rng rng = Rng::stream(seed ^ 0xBA7C4ED5ull, uint64_t(update));
  std::vector<WindowRef> out(static_cast<size_t>(batch));
  for (auto& w : out) w = windows_[size_t(rng.below(windows_.size()))];
  return out;
}

std::vector<WindowRef> WindowIndex::evenly(int64_t count) const {
  std::vector<WindowRef> out;
  const int64_t n = size();
  if (n == 0 || count <= 0) return out;
  if (count >= n) return windows_;
  for (int64_t i = 0; i < count; ++i) out.push_back(windows_[size_t(i * n / count)]);
  return out;
}

void gather_windows(const TransitionArrays& a, const std::vector<WindowRef>& windows, int length,
                    WindowBatch& out) {
  out.batch = int(windows.size());
  out.length = length;
  out.input_dim = a.input_dim;
  out.output_dim = a.output_dim;
  out.inputs.assign(size_t(out.batch) * size_t(length) * size_t(a.input_dim), 0.0f);
  out.targets.assign(size_t(out.batch) * size_t(length) * size_t(a.output_dim), 0.0f);
  out.mask.assign(size_t(out.batch) * size_t(length), 0.0f);
  for (int b = 0; b < out.batch; ++b) {
    const WindowRef& w = windows[size_t(b)];
    for (int p = 0; p < length; ++p) {
      const int64_t t = w.start + p;
      if (t >= a.steps) break;
      const int64_t row = w.trajectory * a.steps + t;
      if (!a.mask[size_t(row)]) break;  // everything after a broken transition stays masked
      const size_t bp = size_t(b) * size_t(length) + size_t(p);
      std::memcpy(&out.inputs[bp * size_t(a.input_dim)], &a.inputs[size_t(row * a.input_dim)],
                  sizeof(float) * size_t(a.input_dim));
      std::memcpy(&out.targets[bp * size_t(a.output_dim)], &a.targets[size_t(row * a.output_dim)],
                  sizeof(float) * size_t(a.output_dim));
      out.mask[bp] = 1.0f;
    }
  }
  if (a.contact_capacity == 0) return;
  // trim K to the largest count of the batch: padding never changes the encoder's output
  int k = 1;
  for (int b = 0; b < out.batch; ++b)
    for (int p = 0; p < length; ++p)
      if (out.mask[size_t(b) * size_t(length) + size_t(p)] != 0.f)
        k = std::max<int>(k, int(a.contact_count(windows[size_t(b)].trajectory * a.steps + windows[size_t(b)].start + p)));
  out.contact_k = k;
  const size_t slots = size_t(out.batch) * size_t(length) * size_t(k);
  out.contact_rows.assign(slots * kContactRowDim, 0.0f);
  out.contact_link.assign(slots, 0);
  out.contact_mask.assign(slots, 0);
  for (int b = 0; b < out.batch; ++b)
    for (int p = 0; p < length; ++p) {
      const size_t bp = size_t(b) * size_t(length) + size_t(p);
      if (out.mask[bp] == 0.f) continue;
      const int64_t i = windows[size_t(b)].trajectory * a.steps + windows[size_t(b)].start + p;
      const int64_t r0 = a.contact_offset[size_t(i)], count = a.contact_count(i);
      std::copy_n(&a.contact_rows[size_t(r0 * kContactRowDim)], size_t(count) * kContactRowDim,
                  &out.contact_rows[bp * size_t(k) * kContactRowDim]);
      for (int64_t r = 0; r < count; ++r) {
        out.contact_link[bp * size_t(k) + size_t(r)] = a.contact_link[size_t(r0 + r)];
        out.contact_mask[bp * size_t(k) + size_t(r)] = 1;
      }
    }
}

std::vector<WindowRef> rollout_starts(const TransitionArrays& a,
                                      const std::vector<int64_t>& trajectories, int history,
                                      int horizon, int64_t max_count) {
  const int64_t need = history - 1 + horizon;  // transitions that must be valid
  std::vector<WindowRef> all;
  for (int64_t n : trajectories) {
    int64_t run = 0;  // valid transitions ending at t
    for (int64_t t = 0; t < a.steps; ++t) {
      run = a.mask[size_t(n * a.steps + t)] ? run + 1 : 0;
      if (run >= need) all.push_back({n, t - need + 1});
    }
  }
  if (int64_t(all.size()) <= max_count) return all;
  std::vector<WindowRef> out;
  const int64_t total = int64_t(all.size());
  for (int64_t i = 0; i < max_count; ++i) out.push_back(all[size_t(i * total / max_count)]);
  return out;
}

namespace {

// Fnv1a over arrays and strings, each preceded by its length.
struct Fnv : Fnv1a {
  template <typename T>
  void array(const std::vector<T>& v) {
    uint64_t n = v.size();
    bytes(&n, sizeof n);
    bytes(v.data(), v.size() * sizeof(T));
  }
  void text(const std::string& s) {
    uint64_t n = s.size();
    bytes(&n, sizeof n);
    bytes(s.data(), s.size());
  }
};

}  // namespace

std::string dataset_fingerprint(const Dataset& d) {
  Fnv f;
  f.text(d.robot);
  f.text(d.mjcf_hash);
  f.text(d.actuator_model);
  f.bytes(&d.timestep, sizeof d.timestep);
  int32_t dims[5] = {d.layout.nq, d.layout.nv, d.layout.nu, d.layout.floating_base ? 1 : 0, d.probe_count};
  f.bytes(dims, sizeof dims);
  f.bytes(&d.trajectories, sizeof d.trajectories);
  f.bytes(&d.steps, sizeof d.steps);
  f.array(d.qpos);
  f.array(d.qvel);
  f.array(d.ctrl);
  f.array(d.valid);
  f.array(d.probes);
  f.array(d.contact_count);
  return "fnv1a64:" + f.hex();
}

}  // namespace flashnerd::train
