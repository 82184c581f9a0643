#include "eval/rollout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "core/error.h"
#include "core/frame_features.h"
#include "core/rng.h"
#include "core/rotation.h"
#include "core/stopwatch.h"
#include "sim/frame_sensor.h"

namespace flashnerd::eval {

std::vector<int64_t> eligible_trajectories(const Dataset& data, int history, int horizon) {
  std::vector<int64_t> out;
  const int64_t needed = int64_t(history) + horizon - 1;  // transitions 0 .. R+H-2
  if (needed > data.steps) return out;
  for (int64_t n = 0; n < data.trajectories; ++n) {
    bool ok = true;
    for (int64_t t = 0; t < needed && ok; ++t) ok = data.is_valid(n, t);
    if (ok) out.push_back(n);
  }
  return out;
}

std::vector<double> state_component_std(const Dataset& data, const std::vector<int64_t>& trajectories) {
  const int nq = data.layout.nq, nv = data.layout.nv, na = data.layout.na, D = nq + nv + na;
  std::vector<double> sum(size_t(D), 0.0), sq(size_t(D), 0.0);
  int64_t count = 0;
  for (int64_t n : trajectories)
    for (int64_t t = 0; t < data.steps; ++t) {
      if (!data.is_valid(n, t)) continue;
      for (int d = 0; d < D; ++d) {
        const double x = d < nq ? data.q(n, t)[d] : d < nq + nv ? data.v(n, t)[d - nq] : data.a(n, t)[d - nq - nv];
        sum[size_t(d)] += x;
        sq[size_t(d)] += x * x;
      }
      ++count;
    }
  FN_CHECK(count > 1, "no valid frames to compute state standard deviations from");
  std::vector<double> std_dev(size_t(D), 0.0);
  for (int d = 0; d < D; ++d) {
    const double mean = sum[size_t(d)] / double(count);
    std_dev[size_t(d)] = std::sqrt(std::max(0.0, sq[size_t(d)] / double(count) - mean * mean));
  }
  return std_dev;
}

RolloutResult select_rollouts(const RolloutResult& r, const std::vector<size_t>& rows, int nq, int nv, int na) {
  RolloutResult s;
  s.trajectories = int64_t(rows.size());
  s.horizon = r.horizon;
  s.start_frame = r.start_frame;
  const size_t H = size_t(r.horizon);
  for (size_t row : rows) {
    FN_CHECK(row < r.source.size(), "select_rollouts: row ", row, " of ", r.source.size());
    s.source.push_back(r.source[row]);
    s.diverged_at.push_back(r.diverged_at[row]);
    s.qpos.insert(s.qpos.end(), r.qpos.begin() + long(row * H * size_t(nq)), r.qpos.begin() + long((row + 1) * H * size_t(nq)));
    s.qvel.insert(s.qvel.end(), r.qvel.begin() + long(row * H * size_t(nv)), r.qvel.begin() + long((row + 1) * H * size_t(nv)));
    s.act.insert(s.act.end(), r.act.begin() + long(row * H * size_t(na)), r.act.begin() + long((row + 1) * H * size_t(na)));
  }
  return s;
}

namespace {

// The checks a model and a dataset must pass before any rollout.
void check_rollout_inputs(const StepModel& model, const Dataset& data, const FrameFeatures& features,
                          const RolloutOptions& o) {
  const int probe_count = model.probe_dim() / kProbeFeatureDim;
  const int K = model.contact_capacity();
  FN_CHECK(probe_count == 0 || data.probe_count == probe_count, "the model reads ", probe_count,
           " fixed probes but the dataset records ", data.probe_count);
  FN_CHECK((probe_count == 0 && K == 0) || o.robot != nullptr,
           "the model reads fixed probes or contacts: rollouts need the robot's MuJoCo model");
  FN_CHECK(features.input_dim() == model.input_dim(), "model input width ", model.input_dim(),
           " does not match the dataset's frame features (", features.input_dim(), ")");
  FN_CHECK(features.output_dim() == model.output_dim(), "model output width ", model.output_dim(),
           " does not match the dataset's increments (", features.output_dim(), ")");
  const int R = model.history(), H = o.horizon;
  FN_CHECK(H >= 1, "horizon must be >= 1");
  FN_CHECK(std::isfinite(o.input_noise) && o.input_noise >= 0, "input noise must be a finite number >= 0, got ",
           o.input_noise);
  FN_CHECK(int64_t(R) + H - 1 <= data.steps, "horizon ", H, " with ", R,
           " frames of priming needs trajectories of at least ", R + H - 1,
           " steps; the dataset has ", data.steps, "; generate longer held-out trajectories (more steps each) or judge shorter horizons");
}

// One batch of up to B rollouts at a time: the buffers, the sensing, and the three phases
// (prime with recorded frames, start from the last recorded state, predict H steps).
class RolloutBatches {
 public:
  RolloutBatches(StepModel& model, const Dataset& data, const std::vector<int64_t>& trajectories,
                 const RolloutOptions& o, ThreadPool& pool, RolloutResult& res)
      : model_(model), data_(data), trajectories_(trajectories), pool_(pool), res_(res), codec_(data.layout),
        probe_count_(model.probe_dim() / kProbeFeatureDim), K_(model.contact_capacity()),
        features_(codec_, probe_count_), nq_(data.layout.nq), nv_(data.layout.nv), na_(data.layout.na),
        din_(model.input_dim()), dout_(model.output_dim()), input_noise_(o.input_noise), noise_seed_(o.noise_seed) {
    check_rollout_inputs(model, data, features_, o);
    const bool senses = probe_count_ > 0 || K_ > 0;
    if (senses)  // one sensor per thread
      for (int i = 0; i < pool.size(); ++i)
        sensors_.push_back(std::make_unique<sim::FrameSensor>(*o.robot, data.seed, o.climbing_probes));
    B_ = std::max(1, std::min<int>(o.batch, int(res.trajectories)));
    const size_t B = size_t(B_), K = size_t(std::max(1, K_));
    inputs_.assign(B * size_t(din_), 0.f);
    outputs_.assign(B * size_t(dout_), 0.f);
    q_.assign(B * size_t(nq_), 0.0), v_.assign(B * size_t(nv_), 0.0);
    q_next_.assign(B * size_t(nq_), 0.0), v_next_.assign(B * size_t(nv_), 0.0);
    a_.assign(B * size_t(na_), 0.0), a_next_.assign(B * size_t(na_), 0.0);  // activations (na = 0: empty)
    increments_.assign(B * size_t(dout_), 0.0);  // outputs in double for the codec
    probe_buf_.assign(B * size_t(std::max(1, probe_count_ * kProbeFeatureDim)), 0.f);
    contact_rows_.assign(B * K * kContactRowDim, 0.f);
    contact_link_.assign(B * K, 0);
    contact_count_.assign(B, 0), contact_overflow_.assign(B, 0), contact_full_.assign(B, 0);
    contacts_ = {contact_rows_.data(), contact_link_.data(), contact_count_.data()};
    res.contact_rows_min = std::numeric_limits<int64_t>::max();
    if (input_noise_ > 0) {
      noise_std_ = state_component_std(data, trajectories);
      for (double& s : noise_std_) s *= input_noise_;
      noise_rng_.resize(B);
    }
  }

  int batch() const { return B_; }

  // Rows first .. first + b − 1: primed, started, then H predicted steps.
  void run(int64_t first, int b) {
    model_.begin(b);
    if (input_noise_ > 0)  // each trajectory its own stream, whatever batch it lands in
      for (int e = 0; e < b; ++e) noise_rng_[size_t(e)] = Rng::stream(noise_seed_, uint64_t(res_.source[size_t(first + e)]));
    prime(first, b);
    start(first, b);
    for (int h = 0; h < res_.horizon; ++h) {
      predict(first, b, h);
      if (K_ > 0 && h + 1 < res_.horizon) tally_contacts(b);  // rows that feed the next predicted step
      std::swap(q_, q_next_);
      std::swap(v_, v_next_);
      std::swap(a_, a_next_);
    }
  }

  void finish() {
    if (rows_steps_ == 0) res_.contact_rows_min = 0;
    res_.contact_rows_mean = rows_steps_ ? double(rows_total_) / double(rows_steps_) : 0.0;
  }

 private:
  bool senses() const { return probe_count_ > 0 || K_ > 0; }
  const engine::ContactBatch* frame_contacts() const { return K_ > 0 ? &contacts_ : nullptr; }
  int64_t trajectory(int64_t first, int64_t e) const { return trajectories_[size_t(first + e)]; }

  // Probes and contact rows of environment e (trajectory `row`) at state (qs, vs).
  void sense(int64_t e, int64_t row, const double* qs, const double* vs, int wi) {
    sim::ContactRowsOut out{contact_rows_.data() + size_t(e) * K_ * kContactRowDim,
                            contact_link_.data() + size_t(e) * K_, 0, 0};
    sensors_[size_t(wi)]->sense(res_.source[size_t(row)], qs, vs,
                                probe_count_ ? probe_buf_.data() + size_t(e) * probe_count_ * kProbeFeatureDim : nullptr,
                                K_, K_ > 0 ? &out : nullptr);
    if (K_ > 0) {
      contact_count_[size_t(e)] = out.count;
      contact_overflow_[size_t(e)] = out.overflow;
      contact_full_[size_t(e)] = out.buffer_full;
    }
  }

  // ground-truth frames 0 .. R-2; frame R-1 is the first input of the predicted steps
  void prime(int64_t first, int b) {
    for (int t = 0; t < model_.history() - 1; ++t) {
      if (K_ > 0)
        pool_.parallel_for(b, [&](int64_t e0, int64_t e1, int wi) {
          for (int64_t e = e0; e < e1; ++e) {
            const int64_t n = trajectory(first, e);
            sense(e, first + e, data_.q(n, t), data_.v(n, t), wi);
          }
        });
      for (int e = 0; e < b; ++e) {
        const int64_t n = trajectory(first, e);
        features_.input(data_.q(n, t), data_.v(n, t), data_.a(n, t), data_.u(n, t),
                        probe_count_ ? data_.probe(n, t) : nullptr, inputs_.data() + size_t(e) * din_);
      }
      model_.step(b, inputs_.data(), frame_contacts(), outputs_.data());
    }
  }

  // the recorded state of frame R-1, sensed: sensing reproduces the recording there
  void start(int64_t first, int b) {
    const int R = model_.history();
    for (int e = 0; e < b; ++e) {
      const int64_t n = trajectory(first, e);
      std::memcpy(q_.data() + size_t(e) * nq_, data_.q(n, R - 1), sizeof(double) * size_t(nq_));
      std::memcpy(v_.data() + size_t(e) * nv_, data_.v(n, R - 1), sizeof(double) * size_t(nv_));
      if (na_ > 0) std::memcpy(a_.data() + size_t(e) * na_, data_.a(n, R - 1), sizeof(double) * size_t(na_));
    }
    if (senses())
      pool_.parallel_for(b, [&](int64_t e0, int64_t e1, int wi) {
        for (int64_t e = e0; e < e1; ++e)
          sense(e, first + e, q_.data() + size_t(e) * nq_, v_.data() + size_t(e) * nv_, wi);
      });
  }

  // Adds input noise to environment e's predicted state, which the next step reads; the
  // quaternion of a floating base is renormalized (the codec integrates unit quaternions).
  void add_input_noise(int64_t e, double* q, double* v, double* a) {
    Rng& rng = noise_rng_[size_t(e)];
    const double* sd = noise_std_.data();
    for (int i = 0; i < nq_; ++i) q[i] += sd[i] * rng.normal();
    for (int i = 0; i < nv_; ++i) v[i] += sd[nq_ + i] * rng.normal();
    for (int i = 0; i < na_; ++i) a[i] += sd[nq_ + nv_ + i] * rng.normal();
    if (data_.layout.floating_base) rot::quat_normalize(q + 3);
  }

  // predicted step h from the current states with the recorded commands of frame R-1+h
  void predict(int64_t first, int b, int h) {
    const int t = model_.history() - 1 + h, H = res_.horizon;
    for (int e = 0; e < b; ++e)
      features_.input(q_.data() + size_t(e) * nq_, v_.data() + size_t(e) * nv_, a_.data() + size_t(e) * na_,
                      data_.u(trajectory(first, e), t),
                      probe_count_ ? probe_buf_.data() + size_t(e) * probe_count_ * kProbeFeatureDim : nullptr,
                      inputs_.data() + size_t(e) * din_);
    auto t0 = std::chrono::steady_clock::now();
    model_.step(b, inputs_.data(), frame_contacts(), outputs_.data());
    res_.model_seconds += seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    pool_.parallel_for(b, [&](int64_t e0, int64_t e1, int wi) {
      for (int64_t e = e0; e < e1; ++e) {
        const int64_t row = first + e;
        double* inc = increments_.data() + size_t(e) * dout_;
        for (int i = 0; i < dout_; ++i) inc[i] = outputs_[size_t(e) * dout_ + size_t(i)];
        double* qn = q_next_.data() + size_t(e) * nq_;
        double* vn = v_next_.data() + size_t(e) * nv_;
        double* an = a_next_.data() + size_t(e) * na_;
        // a diverged row keeps its last finite state from here on; it is flagged once
        const bool frozen = res_.diverged_at[size_t(row)] >= 0;
        if (!codec_.advance_finite(q_.data() + size_t(e) * nq_, v_.data() + size_t(e) * nv_,
                                   a_.data() + size_t(e) * na_, inc, qn, vn, an, frozen) &&
            !frozen)
          res_.diverged_at[size_t(row)] = h;
        std::memcpy(res_.qpos.data() + size_t((row * H + h) * nq_), qn, sizeof(double) * size_t(nq_));
        std::memcpy(res_.qvel.data() + size_t((row * H + h) * nv_), vn, sizeof(double) * size_t(nv_));
        std::copy_n(an, na_, res_.act.data() + size_t((row * H + h) * na_));
        // noise on what is fed back, after the prediction is reported; a diverged row stays frozen
        if (input_noise_ > 0 && res_.diverged_at[size_t(row)] < 0) add_input_noise(e, qn, vn, an);
        if (senses()) sense(e, row, qn, vn, wi);  // collision geometry at the state fed back
      }
    });
    if (senses()) res_.sensing_seconds += seconds_since(t0);
  }

  void tally_contacts(int b) {
    for (int e = 0; e < b; ++e) {
      res_.contact_rows_min = std::min<int64_t>(res_.contact_rows_min, contact_count_[size_t(e)]);
      res_.contact_rows_max = std::max<int64_t>(res_.contact_rows_max, contact_count_[size_t(e)]);
      rows_total_ += contact_count_[size_t(e)];
      res_.contact_overflow += contact_overflow_[size_t(e)];
      res_.contact_buffer_full += contact_full_[size_t(e)];
    }
    rows_steps_ += b;
  }

  StepModel& model_;
  const Dataset& data_;
  const std::vector<int64_t>& trajectories_;
  ThreadPool& pool_;
  RolloutResult& res_;
  const StateCodec codec_;
  const int probe_count_, K_;
  const FrameFeatures features_;
  const int nq_, nv_, na_, din_, dout_;
  const double input_noise_;
  const uint64_t noise_seed_;
  int B_ = 1;
  std::vector<std::unique_ptr<sim::FrameSensor>> sensors_;
  std::vector<float> inputs_, outputs_;                    // (B, din), (B, dout)
  std::vector<double> q_, v_, q_next_, v_next_, a_, a_next_;  // (B, nq), (B, nv), (B, na)
  std::vector<double> increments_;                         // (B, dout)
  std::vector<float> probe_buf_;                           // (B, probes · kProbeFeatureDim)
  std::vector<float> contact_rows_;                        // (B, K, kContactRowDim)
  std::vector<int32_t> contact_link_, contact_count_, contact_overflow_;  // (B, K), (B), (B)
  std::vector<uint8_t> contact_full_;                      // (B)
  engine::ContactBatch contacts_;
  std::vector<double> noise_std_;                          // (nq + nv + na) input_noise · component std
  std::vector<Rng> noise_rng_;                             // (B) the stream of each row's trajectory
  int64_t rows_total_ = 0, rows_steps_ = 0;
};

}  // namespace

RolloutResult run_rollouts(StepModel& model, const Dataset& data, const std::vector<int64_t>& trajectories,
                           const RolloutOptions& o, ThreadPool& pool) {
  RolloutResult res;
  res.trajectories = int64_t(trajectories.size());
  res.horizon = o.horizon;
  res.start_frame = model.history();
  res.source = trajectories;
  RolloutBatches batches(model, data, trajectories, o, pool, res);  // checks the inputs first
  const int64_t H = o.horizon;
  res.qpos.assign(size_t(res.trajectories * H * data.layout.nq), 0.0);
  res.qvel.assign(size_t(res.trajectories * H * data.layout.nv), 0.0);
  res.act.assign(size_t(res.trajectories * H * data.layout.na), 0.0);
  res.diverged_at.assign(size_t(res.trajectories), -1);
  for (int64_t first = 0; first < res.trajectories; first += batches.batch())
    batches.run(first, int(std::min<int64_t>(batches.batch(), res.trajectories - first)));
  batches.finish();
  return res;
}

}  // namespace flashnerd::eval
