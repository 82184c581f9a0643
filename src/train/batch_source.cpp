#include "train/batch_source.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/contact_row.h"
#include "core/error.h"
#include "core/frame_features.h"
#include "core/option_error.h"
#include "core/rng.h"
#include "core/stopwatch.h"
#include "train/validation.h"

namespace flashnerd::train {

namespace {

// Pads every frame's contact rows of `b` from b.contact_k to k slots (k > contact_k).
void widen_contacts(WindowBatch& b, int k) {
  const int old_k = b.contact_k;
  const size_t frames = size_t(b.batch) * size_t(b.length);
  std::vector<float> rows(frames * size_t(k) * kContactRowDim, 0.f);
  std::vector<int64_t> link(frames * size_t(k), 0);
  std::vector<uint8_t> mask(frames * size_t(k), 0);
  for (size_t f = 0; f < frames; ++f) {
    std::copy_n(&b.contact_rows[f * size_t(old_k) * kContactRowDim], size_t(old_k) * kContactRowDim,
                &rows[f * size_t(k) * kContactRowDim]);
    std::copy_n(&b.contact_link[f * size_t(old_k)], old_k, &link[f * size_t(k)]);
    std::copy_n(&b.contact_mask[f * size_t(old_k)], old_k, &mask[f * size_t(k)]);
  }
  b.contact_rows.swap(rows);
  b.contact_link.swap(link);
  b.contact_mask.swap(mask);
  b.contact_k = k;
}

}  // namespace

// Writes frame p of window b from a state other than the recorded one: its standardized input
// (recorded command; probes and contact rows sensed at the state, or the recorded ones without
// a sensor) and its standardized target, the increment to the recorded next state.
class FrameRewriter {
 public:
  FrameRewriter(const Dataset& d, const ModelConfig& c, StateSensor* sensor)
      : data_(d), config_(c), codec_(d.layout), features_(codec_, c.probe_dim / kProbeFeatureDim), sensor_(sensor),
        input_(size_t(c.input_dim)), target_(size_t(c.output_dim)), probes_(size_t(std::max(1, c.probe_dim))),
        rows_(size_t(std::max(1, c.contact.capacity)) * kContactRowDim),
        links_(size_t(std::max(1, c.contact.capacity))) {
    FN_CHECK(c.target == PredictionTarget::Increment, "training on the model's own states (unrolled or noisy "
             "inputs) needs a model that predicts increments; this one predicts ", target_name(c.target));
    FN_CHECK(features_.input_dim() == c.input_dim, "model input width ", c.input_dim,
             " does not match the dataset's frame features (", features_.input_dim(), ")");
  }

  const StateCodec& codec() const { return codec_; }

  void rewrite(WindowBatch& batch, int b, int p, const WindowRef& w, const double* q, const double* v,
               const double* a) {
    const int64_t n = w.trajectory, t = w.start + p;
    const Normalization& norm = config_.norm;
    const float* probes = config_.probe_dim > 0 ? data_.probe(n, t) : nullptr;
    int rows = -1;  // -1: keep the recorded contact rows
    if (sensor_ && (config_.probe_dim > 0 || batch.contact_k > 0)) {
      rows = sensor_->sense(n, q, v, config_.probe_dim > 0 ? probes_.data() : nullptr,
                            batch.contact_k > 0 ? config_.contact.capacity : 0, rows_.data(), links_.data());
      if (config_.probe_dim > 0) probes = probes_.data();
    }
    features_.input(q, v, a, data_.u(n, t), probes, input_.data());
    const size_t bp = size_t(b) * size_t(batch.length) + size_t(p);
    float* x = &batch.inputs[bp * size_t(batch.input_dim)];
    for (int i = 0; i < batch.input_dim; ++i)
      x[i] = (input_[size_t(i)] - norm.input_mean[size_t(i)]) / norm.input_std[size_t(i)];
    features_.target(q, v, a, data_.q(n, t + 1), data_.v(n, t + 1), data_.a(n, t + 1), target_.data());
    float* y = &batch.targets[bp * size_t(batch.output_dim)];
    for (int i = 0; i < batch.output_dim; ++i)
      y[i] = (target_[size_t(i)] - norm.target_mean[size_t(i)]) / norm.target_std[size_t(i)];
    if (batch.contact_k > 0 && rows >= 0) write_contacts(batch, bp, rows);
  }

 private:
  void write_contacts(WindowBatch& batch, size_t bp, int count) {
    if (count > batch.contact_k) widen_contacts(batch, count);
    const size_t k = size_t(batch.contact_k);
    float* out = &batch.contact_rows[bp * k * kContactRowDim];
    std::fill_n(out, k * kContactRowDim, 0.f);
    std::fill_n(&batch.contact_link[bp * k], k, 0);
    std::fill_n(&batch.contact_mask[bp * k], k, 0);
    const Normalization& norm = config_.norm;
    for (int r = 0; r < count; ++r) {
      for (int c = 0; c < kContactRowDim; ++c)
        out[size_t(r) * kContactRowDim + size_t(c)] =
            (rows_[size_t(r) * kContactRowDim + size_t(c)] - norm.contact_mean[size_t(c)]) / norm.contact_std[size_t(c)];
      batch.contact_link[bp * k + size_t(r)] = links_[size_t(r)];
      batch.contact_mask[bp * k + size_t(r)] = 1;
    }
  }

  const Dataset& data_;
  const ModelConfig& config_;
  StateCodec codec_;
  FrameFeatures features_;
  StateSensor* sensor_;
  std::vector<float> input_, target_, probes_, rows_;
  std::vector<int32_t> links_;
};

bool all_finite(const double* x, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

namespace {

// Every valid frame of windows [first, first + count) perturbed by σ increment stds.
void perturb_windows(FrameRewriter& rewriter, const Dataset& d, const ModelConfig& c,
                     const std::vector<WindowRef>& windows, int first, int count, double sigma, Rng& rng,
                     WindowBatch& batch) {
  const StateLayout& L = d.layout;
  const StateCodec& codec = rewriter.codec();
  std::vector<double> inc(size_t(c.output_dim)), q(size_t(L.nq)), v(size_t(L.nv)), a(size_t(L.na));
  for (int b = first; b < first + count; ++b) {
    const WindowRef& w = windows[size_t(b)];
    for (int p = 0; p < batch.length; ++p) {
      if (batch.mask[size_t(b) * size_t(batch.length) + size_t(p)] == 0.f) break;
      const int64_t t = w.start + p;
      for (int i = 0; i < c.output_dim; ++i) inc[size_t(i)] = sigma * c.norm.target_std[size_t(i)] * rng.normal();
      codec.apply(d.q(w.trajectory, t), d.v(w.trajectory, t), d.a(w.trajectory, t), inc.data(), q.data(), v.data(),
                  a.data());
      rewriter.rewrite(batch, b, p, w, q.data(), v.data(), a.data());
    }
  }
}

}  // namespace

int unroll_steps_at(const OwnStateOptions& o, int64_t update) {
  if (o.unroll <= 0 || o.unroll_ramp <= 0 || update >= o.unroll_ramp) return o.unroll;
  return 1 + int(int64_t(o.unroll - 1) * update / o.unroll_ramp);
}

void unroll_windows(DynamicsModel& model, const Dataset& d, const ModelConfig& c, const std::vector<WindowRef>& windows,
                    int count, int k, StateSensor* sensor, WindowBatch& batch, UnrolledStates* states) {
  FrameRewriter rewriter(d, c, sensor);
  unroll_windows(rewriter, model, d, c, windows, count, k, batch, states);
}

void unroll_windows(FrameRewriter& rewriter, DynamicsModel& model, const Dataset& d, const ModelConfig& c,
                    const std::vector<WindowRef>& windows, int count, int k, WindowBatch& batch,
                    UnrolledStates* states) {
  FN_CHECK_OPTION(k >= 1 && k < batch.length, "unroll", k, " needs windows of more than ", k,
                  " frames (the window has ", batch.length, "); give a smaller one or a longer ", option_ref("window"));
  FN_ASSERT(count <= batch.batch && count <= int(windows.size()));
  if (count == 0) return;
  const StateCodec& codec = rewriter.codec();
  const StateLayout& L = d.layout;
  const int W = batch.length, p0 = W - k, dout = c.output_dim;
  std::vector<double> q(size_t(count) * size_t(L.nq)), v(size_t(count) * size_t(L.nv)), a(size_t(count) * size_t(L.na));
  std::vector<double> q1(size_t(L.nq)), v1(size_t(L.nv)), a1(size_t(L.na));
  std::vector<double> inc(static_cast<size_t>(dout));
  std::vector<uint8_t> live(size_t(count), 1);
  for (int b = 0; b < count; ++b) {  // the last recorded frame before the predicted ones
    const WindowRef& w = windows[size_t(b)];
    const int64_t t = w.start + p0 - 1;
    std::copy_n(d.q(w.trajectory, t), L.nq, &q[size_t(b) * size_t(L.nq)]);
    std::copy_n(d.v(w.trajectory, t), L.nv, &v[size_t(b) * size_t(L.nv)]);
    std::copy_n(d.a(w.trajectory, t), L.na, a.data() + size_t(b) * size_t(L.na));
  }
  if (states) {
    *states = UnrolledStates{count, k, std::vector<double>(size_t(count) * size_t(k) * size_t(L.nq)),
                             std::vector<double>(size_t(count) * size_t(k) * size_t(L.nv)),
                             std::vector<double>(size_t(count) * size_t(k) * size_t(L.na)),
                             std::vector<uint8_t>(size_t(count) * size_t(k), 0)};
  }
  torch::NoGradGuard no_grad;
  const bool training = model.is_training();
  model.eval();  // predictions without dropout
  for (int j = 0; j < k; ++j) {
    const int p = p0 - 1 + j;  // this position's output predicts frame p + 1
    auto x = torch::from_blob(batch.inputs.data(), {count, W, batch.input_dim});
    const torch::Tensor y = predict(model, x, contact_tensors(batch, 0, count)).select(1, p).contiguous();
    const float* yp = y.data_ptr<float>();
    for (int b = 0; b < count; ++b) {
      float* mask = &batch.mask[size_t(b) * size_t(W)];
      if (!live[size_t(b)] || mask[p + 1] == 0.f) continue;
      for (int i = 0; i < dout; ++i)
        inc[size_t(i)] = double(yp[size_t(b) * size_t(dout) + size_t(i)]) * c.norm.target_std[size_t(i)] +
                         c.norm.target_mean[size_t(i)];
      double* qb = &q[size_t(b) * size_t(L.nq)];
      double* vb = &v[size_t(b) * size_t(L.nv)];
      double* ab = a.data() + size_t(b) * size_t(L.na);
      codec.apply(qb, vb, ab, inc.data(), q1.data(), v1.data(), a1.data());
      if (!all_finite(q1.data(), L.nq) || !all_finite(v1.data(), L.nv) || !all_finite(a1.data(), L.na)) {
        live[size_t(b)] = 0;  // a diverged prediction is not a training frame: mask the rest
        std::fill(mask + p + 1, mask + W, 0.f);
        continue;
      }
      std::copy(q1.begin(), q1.end(), qb);
      std::copy(v1.begin(), v1.end(), vb);
      std::copy(a1.begin(), a1.end(), ab);
      rewriter.rewrite(batch, b, p + 1, windows[size_t(b)], qb, vb, ab);
      if (states) {
        const size_t bj = size_t(b) * size_t(k) + size_t(j);
        std::copy_n(qb, L.nq, &states->q[bj * size_t(L.nq)]);
        std::copy_n(vb, L.nv, &states->v[bj * size_t(L.nv)]);
        std::copy_n(ab, L.na, states->a.data() + bj * size_t(L.na));
        states->finite[bj] = 1;
      }
    }
  }
  if (training) model.train();
}

BatchSource::BatchSource(const Dataset& d, const ModelConfig& c, const TransitionArrays& standardized,
                         const WindowIndex& index, int window, const OwnStateOptions& own, uint64_t seed, int rank,
                         int world, int global_batch, StateSensor* sensor)
    : data_(d), config_(c), standardized_(standardized), index_(index), window_(window), own_(own), seed_(seed),
      rank_(rank), world_(world), global_batch_(global_batch), sensor_(sensor),
      slice_(size_t(global_batch / world)) {
  FN_CHECK_OPTION(own.unroll >= 0 && own.unroll < window, "unroll", own.unroll, " must be in [0, ", window,
                  ") for training windows of ", window, " frames; give a longer ", option_ref("window"));
  FN_CHECK_OPTION(own.unroll_ramp >= 0, "unroll_ramp", "must be >= 0, got ", own.unroll_ramp);
  FN_CHECK_OPTION(own.input_noise >= 0 && std::isfinite(own.input_noise), "input_noise", "must be >= 0, got ",
                  own.input_noise);
  FN_CHECK_OPTION(own.unroll_fraction >= 0 && own.unroll_fraction <= 1 && own.noise_fraction >= 0 &&
                      own.noise_fraction <= 1 &&
                      (own.unroll == 0 || own.input_noise == 0 || own.unroll_fraction + own.noise_fraction <= 1 + 1e-12),
                  "unroll_fraction", "and ", option_ref("noise_fraction"),
                  " must be in [0, 1] and, both in use, add up to at most 1, got ", own.unroll_fraction, " and ",
                  own.noise_fraction);
  FN_CHECK_OPTION(!own.unroll_gradient || own.unroll >= 1, "unroll_gradient", "back-propagates through an unroll: give ",
                  option_ref("unroll"), " K >= 1 forecast steps");
  FN_CHECK_OPTION(own.unroll_decay > 0 && own.unroll_decay <= 1, "unroll_decay", "must be in (0, 1], got ",
                  own.unroll_decay);
  // made once; refuses a model that cannot take own states before update 1
  if (own.any()) rewriter_ = std::make_unique<FrameRewriter>(d, c, sensor);
}

BatchSource::~BatchSource() = default;

int BatchSource::unrolled_count() const {
  return own_.unroll > 0 ? int(std::ceil(own_.unroll_fraction * double(slice_.size()))) : 0;
}

void BatchSource::next(DynamicsModel& model, int64_t update, WindowBatch& out) {
  const int64_t B = int64_t(slice_.size());
  const std::vector<WindowRef> global = index_.sample(seed_, update, global_batch_);
  std::copy_n(global.begin() + B * rank_, B, slice_.begin());
  gather_windows(standardized_, slice_, window_, out);
  if (!own_.any()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const int unrolled = unrolled_count();
  if (unrolled > 0 && !own_.unroll_gradient)
    unroll_windows(*rewriter_, model, data_, config_, slice_, unrolled, unroll_steps_at(own_, update), out);
  if (own_.input_noise > 0) {
    const int noisy = std::min<int>(int(B) - unrolled, int(std::ceil(own_.noise_fraction * double(B))));
    Rng rng = Rng::stream(seed_ ^ 0x9015E5EEDull, uint64_t(update) * uint64_t(world_) + uint64_t(rank_));
    perturb_windows(*rewriter_, data_, config_, slice_, unrolled, noisy, own_.input_noise, rng, out);
  }
  own_seconds_ += seconds_since(t0);
}

}  // namespace flashnerd::train
