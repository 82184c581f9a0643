#include "train/unrolled_loss.h"

#include <cmath>

#include "core/error.h"
#include "core/frame_features.h"
#include "core/option_error.h"
#include "train/validation.h"

namespace flashnerd::train {

namespace {

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor doubles(const std::vector<double>& values) {
  return torch::tensor(values, torch::TensorOptions().dtype(torch::kDouble));
}

// Rows whose every coordinate is finite: (count) bool.
torch::Tensor finite_rows(const TorchState& s) {
  torch::Tensor ok = torch::isfinite(s.q).all(1) & torch::isfinite(s.v).all(1);
  if (s.a.defined()) ok = ok & torch::isfinite(s.a).all(1);
  return ok;
}

torch::Tensor rows_where(const torch::Tensor& keep, const torch::Tensor& a, const torch::Tensor& b) {
  return a.defined() ? torch::where(keep.unsqueeze(1), a, b) : a;
}

}  // namespace

WeightedLoss teacher_forced_loss(DynamicsModel& model, const WindowBatch& batch) {
  const int64_t B = batch.batch, W = batch.length;
  const auto dtype = model.parameters().front().scalar_type();
  // read only: from_blob takes a mutable pointer
  const auto x = torch::from_blob(const_cast<float*>(batch.inputs.data()), {B, W, batch.input_dim}).to(dtype);
  const auto y = torch::from_blob(const_cast<float*>(batch.targets.data()), {B, W, batch.output_dim}).to(dtype);
  const auto m = torch::from_blob(const_cast<float*>(batch.mask.data()), {B, W, 1}).to(dtype);
  const torch::Tensor prediction = predict(model, x, contact_tensors(batch, 0, B)).to(dtype);
  return {((prediction - y).pow(2) * m).sum(), m.sum()};
}

UnrolledLoss::UnrolledLoss(const Dataset& d, const ModelConfig& c, StateSensor* sensor)
    : data_(d), config_(c), sensor_(sensor), codec_(d.layout),
      input_mean_(doubles(std::vector<double>(c.norm.input_mean.begin(), c.norm.input_mean.end()))),
      input_std_(doubles(std::vector<double>(c.norm.input_std.begin(), c.norm.input_std.end()))),
      target_mean_(doubles(std::vector<double>(c.norm.target_mean.begin(), c.norm.target_mean.end()))),
      target_std_(doubles(std::vector<double>(c.norm.target_std.begin(), c.norm.target_std.end()))),
      probes_(size_t(std::max(1, c.probe_dim))) {
  FN_CHECK_OPTION(c.target == PredictionTarget::Increment, "unroll_gradient",
                  "back-propagation through the unroll needs a model that predicts increments; this one predicts ",
                  target_name(c.target));
  FN_CHECK_OPTION(!c.contact.enabled(), "unroll_gradient",
                  "back-propagation through the unroll takes fixed probes, not variable contact rows; train this "
                  "model with the unroll as data (without ", option_ref("unroll_gradient"), ")");
}

// The recorded state at `position` of the first `count` windows; a non-finite one (after the
// end of a broken trajectory, where the mask is 0) is replaced by the origin, so that no NaN
// enters the graph.
TorchState UnrolledLoss::recorded_state(const std::vector<WindowRef>& windows, int count, int64_t position) const {
  const StateLayout& L = data_.layout;
  std::vector<double> q(size_t(count) * size_t(L.nq)), v(size_t(count) * size_t(L.nv)),
      a(size_t(count) * size_t(L.na));
  for (int b = 0; b < count; ++b) {
    const int64_t n = windows[size_t(b)].trajectory, t = windows[size_t(b)].start + position;
    double* qb = &q[size_t(b) * size_t(L.nq)];
    double* vb = &v[size_t(b) * size_t(L.nv)];
    std::copy_n(data_.q(n, t), L.nq, qb);
    std::copy_n(data_.v(n, t), L.nv, vb);
    if (L.na > 0) std::copy_n(data_.a(n, t), L.na, &a[size_t(b) * size_t(L.na)]);
    bool finite = true;
    for (int i = 0; i < L.nq; ++i) finite = finite && std::isfinite(qb[i]);
    for (int i = 0; i < L.nv; ++i) finite = finite && std::isfinite(vb[i]);
    for (int i = 0; i < L.na; ++i) finite = finite && std::isfinite(a[size_t(b) * size_t(L.na) + size_t(i)]);
    if (!finite) {
      std::fill_n(qb, L.nq, 0.0);
      if (L.floating_base) qb[3] = 1.0;
      std::fill_n(vb, L.nv, 0.0);
      std::fill_n(a.data() + size_t(b) * size_t(L.na), L.na, 0.0);
    }
  }
  TorchState s{doubles(q).view({count, L.nq}), doubles(v).view({count, L.nv}), torch::Tensor()};
  if (L.na > 0) s.a = doubles(a).view({count, L.na});
  return s;
}

// The standardized input frame of state s: its features (with gradient), the
// recorded command, and the probes sensed at s (without gradient) or the recorded ones.
torch::Tensor UnrolledLoss::standardized_frame(const TorchState& s, const std::vector<WindowRef>& windows, int count,
                                               const torch::Tensor& recorded_frame) {
  const int64_t fd = codec_.feature_dim();
  const auto dtype = recorded_frame.scalar_type();
  const auto features = ((codec_.encode(s) - input_mean_.slice(0, 0, fd)) / input_std_.slice(0, 0, fd)).to(dtype);
  const int64_t nu = data_.layout.nu, pd = config_.probe_dim;
  std::vector<torch::Tensor> parts{features, recorded_frame.slice(1, fd, fd + nu)};
  if (pd > 0 && sensor_) {
    const auto q = s.q.detach().contiguous(), v = s.v.detach().contiguous();
    std::vector<float> sensed(size_t(count) * size_t(pd));
    for (int b = 0; b < count; ++b) {
      const int64_t n = windows[size_t(b)].trajectory;
      sensor_->sense(n, q.data_ptr<double>() + int64_t(b) * q.size(1), v.data_ptr<double>() + int64_t(b) * v.size(1),
                     probes_.data(), 0, nullptr, nullptr);
      for (int64_t i = 0; i < pd; ++i)
        sensed[size_t(b) * size_t(pd) + size_t(i)] =
            (probes_[size_t(i)] - config_.norm.input_mean[size_t(fd + nu + i)]) /
            config_.norm.input_std[size_t(fd + nu + i)];
    }
    parts.push_back(torch::from_blob(sensed.data(), {count, pd}).to(dtype).clone());
  } else if (pd > 0) {
    parts.push_back(recorded_frame.slice(1, fd + nu, fd + nu + pd));
  }
  return torch::cat(parts, 1);
}

WeightedLoss UnrolledLoss::operator()(DynamicsModel& model, const WindowBatch& batch,
                                      const std::vector<WindowRef>& windows, int count,
                                      const ForecastSettings& forecast, Rng& rng, UnrolledStates* states) {
  const int64_t B = batch.batch, W = batch.length, din = batch.input_dim, dout = batch.output_dim,
                k = forecast.steps;
  FN_CHECK_OPTION(k >= 1 && k < W, "unroll", k, " forecast steps need windows of more than ", k,
                  " frames (the window has ", W, "); give a smaller one or a longer ", option_ref("window"));
  FN_ASSERT(count >= 0 && count <= B && count <= int64_t(windows.size()));
  if (k == 1 || count == 0) return teacher_forced_loss(model, batch);  // one-step training's arithmetic exactly
  const auto dtype = model.parameters().front().scalar_type();
  float* inputs = const_cast<float*>(batch.inputs.data());  // read only: from_blob takes a mutable pointer
  float* recorded_targets = const_cast<float*>(batch.targets.data());
  float* mask = const_cast<float*>(batch.mask.data());
  const auto x_rec = torch::from_blob(inputs, {B, W, din}).to(dtype);
  const auto y_rec = torch::from_blob(recorded_targets, {B, W, dout}).to(dtype);
  const auto m_rec = torch::from_blob(mask, {B, W, 1}).to(dtype);
  const ContactWindow contacts = contact_tensors(batch, 0, B);
  const StateLayout& L = data_.layout;
  const int64_t p0 = W - k;  // forecast step 1's position: recorded frames 0 .. p0 before it
  const auto head_x = x_rec.slice(0, 0, count), head_y = y_rec.slice(0, 0, count);
  auto head_m = m_rec.slice(0, 0, count).clone();  // a diverged forecast is masked from there on
  const ContactWindow no_contacts = contact_tensors(batch, 0, count);
  if (states)
    *states = UnrolledStates{int(count), int(k - 1), std::vector<double>(size_t(count * (k - 1) * L.nq)),
                             std::vector<double>(size_t(count * (k - 1) * L.nv)),
                             std::vector<double>(size_t(count * (k - 1) * L.na)),
                             std::vector<uint8_t>(size_t(count * (k - 1)), 0)};
  std::vector<torch::Tensor> xs{head_x.slice(1, 0, p0 + 1)}, ys{head_y.slice(1, 0, p0 + 1)};
  TorchState s = recorded_state(windows, count, p0);
  torch::Tensor sigma;  // noise feedback: the one-step error's scale per channel
  for (int64_t i = 1; i < k; ++i) {  // step i's prediction becomes frame p0 + i
    const torch::Tensor out = predict(model, torch::cat(xs, 1), no_contacts).to(dtype);
    torch::Tensor step = out.select(1, p0 + i - 1).to(torch::kDouble);
    if (forecast.feedback == UnrollFeedback::Noise) {
      if (!sigma.defined()) {
        torch::NoGradGuard no_grad;
        const auto m = head_m.slice(1, 0, p0 + 1);
        const auto e2 = ((out.slice(1, 0, p0 + 1) - head_y.slice(1, 0, p0 + 1)).pow(2) * m).sum(std::vector<int64_t>{0, 1});
        sigma = (e2 / m.sum().clamp_min(1)).sqrt().to(torch::kDouble);
      }
      std::vector<double> noise(size_t(count * dout));
      for (double& e : noise) e = rng.normal();
      step = step + sigma * doubles(noise).view({count, dout});
    }
    TorchState next = codec_.apply(s, step * target_std_ + target_mean_);
    const torch::Tensor finite = finite_rows(next).detach();
    if (!finite.all().item<bool>()) {  // a diverged step is no training frame: mask the rest of its window
      const TorchState fallback = recorded_state(windows, count, p0 + i);
      next = {rows_where(finite, next.q, fallback.q), rows_where(finite, next.v, fallback.v),
              rows_where(finite, next.a, fallback.a)};
      head_m.index_put_({~finite, Slice(p0 + i, None)}, 0);
    }
    xs.push_back(standardized_frame(next, windows, int(count), head_x.select(1, p0 + i)).unsqueeze(1));
    const TorchState truth = recorded_state(windows, int(count), p0 + i + 1);
    ys.push_back(((codec_.increment(next, truth) - target_mean_) / target_std_).to(dtype).unsqueeze(1));
    if (states) {
      const auto q = next.q.detach().contiguous(), v = next.v.detach().contiguous();
      const auto a = L.na > 0 ? next.a.detach().contiguous() : torch::Tensor();
      for (int64_t b = 0; b < count; ++b) {
        const size_t bj = size_t(b * (k - 1) + i - 1);
        std::copy_n(q.data_ptr<double>() + b * L.nq, L.nq, &states->q[bj * size_t(L.nq)]);
        std::copy_n(v.data_ptr<double>() + b * L.nv, L.nv, &states->v[bj * size_t(L.nv)]);
        if (L.na > 0) std::copy_n(a.data_ptr<double>() + b * L.na, L.na, &states->a[bj * size_t(L.na)]);
        states->finite[bj] = finite[b].item<bool>() ? 1 : 0;
      }
    }
    s = next;
  }
  // the whole batch: the forecast windows with their fed-back frames, the others as recorded
  const auto x = torch::cat({torch::cat(xs, 1), x_rec.slice(0, count)}, 0);
  const auto y = torch::cat({torch::cat(ys, 1), y_rec.slice(0, count)}, 0);
  const auto m = torch::cat({head_m, m_rec.slice(0, count)}, 0);
  std::vector<double> w(size_t(B * W), 1.0);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 1; i <= k; ++i) w[size_t(b * W + p0 + i - 1)] = std::pow(forecast.decay, double(i - 1));
  const auto weights = doubles(w).view({B, W, 1}).to(dtype);
  const torch::Tensor prediction = predict(model, x, contacts).to(dtype);
  return {((prediction - y).pow(2) * m * weights).sum(), (m * weights).sum()};
}

}  // namespace flashnerd::train
