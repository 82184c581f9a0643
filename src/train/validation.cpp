#include "train/validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flashnerd::train {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

ContactWindow contact_tensors(const WindowBatch& b, int64_t b0, int64_t nb) {
  if (b.contact_k == 0) return {};
  const int64_t W = b.length, k = b.contact_k;
  auto* rows = const_cast<float*>(b.contact_rows.data()) + b0 * W * k * kContactRowDim;
  auto* link = const_cast<int64_t*>(b.contact_link.data()) + b0 * W * k;
  auto* mask = const_cast<uint8_t*>(b.contact_mask.data()) + b0 * W * k;
  return {torch::from_blob(rows, {nb, W, k, kContactRowDim}),
          torch::from_blob(link, {nb, W, k}, torch::kLong),
          torch::from_blob(mask, {nb, W, k}, torch::kUInt8).to(torch::kBool)};
}

torch::Tensor predict(DynamicsModel& model, const torch::Tensor& x, const ContactWindow& contacts) {
  return model.predict(x, contacts.rows.defined() ? &contacts : nullptr);
}

// Masked MSE of standardized increments over the fixed validation windows.
double validation_loss(DynamicsModel& model, const WindowBatch& vb) {
  if (vb.batch == 0) return kNaN;
  torch::NoGradGuard no_grad;
  const int64_t W = vb.length, din = vb.input_dim, dout = vb.output_dim;
  double sse = 0, count = 0;
  constexpr int64_t kChunk = 128;
  for (int64_t b0 = 0; b0 < vb.batch; b0 += kChunk) {
    const int64_t nb = std::min<int64_t>(kChunk, vb.batch - b0);
    auto x = torch::from_blob(const_cast<float*>(vb.inputs.data()) + b0 * W * din, {nb, W, din});
    auto y = torch::from_blob(const_cast<float*>(vb.targets.data()) + b0 * W * dout, {nb, W, dout});
    auto m = torch::from_blob(const_cast<float*>(vb.mask.data()) + b0 * W, {nb, W, 1});
    sse += ((predict(model, x, contact_tensors(vb, b0, nb)) - y).pow(2) * m).sum().item<double>();
    count += m.sum().item<double>() * double(dout);
  }
  return sse / count;
}

// Prefix-averaged NRMSE of open-loop rollouts: history − 1 recorded frames, then `horizon`
// steps decoding predicted increments with the codec and re-encoding the predicted state
// with the recorded command (and recorded probe features or contact rows, an approximation:
// both need the simulator; flashnerd eval recomputes them).
double rollout_nrmse(DynamicsModel& model, const ModelConfig& c, const Dataset& d,
                     const StateCodec& codec, const TransitionArrays& standardized,
                     const std::vector<WindowRef>& starts, int history, int horizon) {
  if (starts.empty()) return kNaN;
  torch::NoGradGuard no_grad;
  const int B = int(starts.size()), W = history, din = c.input_dim, dout = c.output_dim;
  const StateLayout& L = c.layout;
  FrameFeatures ff(codec, c.probe_dim / kProbeFeatureDim);
  std::vector<float> x(size_t(B) * size_t(W) * size_t(din));  // (B, W, din) standardized
  std::vector<double> q(size_t(B) * size_t(L.nq)), v(size_t(B) * size_t(L.nv)), a(size_t(B) * size_t(L.na));
  for (int b = 0; b < B; ++b) {
    const WindowRef& s = starts[size_t(b)];
    for (int p = 0; p < W; ++p) {
      const int64_t row = s.trajectory * standardized.steps + s.start + p;
      std::copy_n(&standardized.inputs[size_t(row * din)], din, &x[(size_t(b) * size_t(W) + size_t(p)) * size_t(din)]);
    }
    const int64_t t = s.start + W - 1;
    std::copy_n(d.q(s.trajectory, t), L.nq, &q[size_t(b) * size_t(L.nq)]);
    std::copy_n(d.v(s.trajectory, t), L.nv, &v[size_t(b) * size_t(L.nv)]);
    if (L.na > 0) std::copy_n(d.a(s.trajectory, t), L.na, &a[size_t(b) * size_t(L.na)]);
  }
  std::vector<double> inc(static_cast<size_t>(dout)), q1(static_cast<size_t>(L.nq)), v1(static_cast<size_t>(L.nv)),
      a1(static_cast<size_t>(L.na)), err(static_cast<size_t>(codec.channel_dim()));
  std::vector<float> frame(static_cast<size_t>(din));
  double sum = 0;
  int64_t count = 0;
  WindowBatch recorded;  // contact rows of the recorded frames under the current window
  std::vector<WindowRef> shifted(starts);
  for (int h = 0; h < horizon; ++h) {
    if (standardized.contact_capacity > 0) {
      for (int b = 0; b < B; ++b) shifted[size_t(b)].start = starts[size_t(b)].start + h;
      gather_windows(standardized, shifted, W, recorded);
    }
    auto y = predict(model, torch::from_blob(x.data(), {B, W, din}), contact_tensors(recorded, 0, B))
                 .select(1, W - 1)
                 .contiguous();
    const float* yp = y.data_ptr<float>();
    for (int b = 0; b < B; ++b) {
      const WindowRef& s = starts[size_t(b)];
      const int64_t t = s.start + W - 1 + h;  // current frame; predict t + 1
      for (int k = 0; k < dout; ++k)
        inc[size_t(k)] = double(yp[b * dout + k]) * c.norm.target_std[size_t(k)] + c.norm.target_mean[size_t(k)];
      double* qb = &q[size_t(b) * size_t(L.nq)];
      double* vb = &v[size_t(b) * size_t(L.nv)];
      double* ab = a.data() + size_t(b) * size_t(L.na);
      codec.apply(qb, vb, ab, inc.data(), q1.data(), v1.data(), a1.data());
      std::copy(q1.begin(), q1.end(), qb);
      std::copy(v1.begin(), v1.end(), vb);
      std::copy(a1.begin(), a1.end(), ab);
      codec.channel_error(qb, vb, ab, d.q(s.trajectory, t + 1), d.v(s.trajectory, t + 1), d.a(s.trajectory, t + 1),
                          err.data());
      for (size_t k = 0; k < err.size(); ++k) {
        double e = err[k] / c.norm.channel_std[k];
        sum += e * e;
        ++count;
      }
      if (h + 1 == horizon) continue;
      // shift the window and append the predicted frame with the recorded command
      float* xb = &x[size_t(b) * size_t(W) * size_t(din)];
      std::copy(xb + din, xb + size_t(W) * size_t(din), xb);
      ff.input(qb, vb, ab, d.u(s.trajectory, t + 1), c.probe_dim > 0 ? d.probe(s.trajectory, t + 1) : nullptr,
               frame.data());
      float* last = xb + size_t(W - 1) * size_t(din);
      for (int k = 0; k < din; ++k)
        last[k] = (frame[size_t(k)] - c.norm.input_mean[size_t(k)]) / c.norm.input_std[size_t(k)];
    }
  }
  return std::sqrt(sum / double(count));
}
}  // namespace flashnerd::train
