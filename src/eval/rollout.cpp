#include "eval/rollout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "core/error.h"
#include "core/frame_features.h"
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

namespace {

}  // namespace

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

RolloutResult run_rollouts(StepModel& model, const Dataset& data,
                           const std::vector<int64_t>& trajectories, const RolloutOptions& o,
                           ThreadPool& pool) {
  const StateCodec codec(data.layout);
  const int probe_count = model.probe_dim() / kProbeFeatureDim;
  const int K = model.contact_capacity();
  FN_CHECK(probe_count == 0 || data.probe_count == probe_count, "the model reads ", probe_count,
           " fixed probes but the dataset records ", data.probe_count);
  FN_CHECK((probe_count == 0 && K == 0) || o.robot != nullptr,
           "the model reads fixed probes or contacts: rollouts need the robot's MuJoCo model");
  const FrameFeatures features(codec, probe_count);
  FN_CHECK(features.input_dim() == model.input_dim(), "model input width ", model.input_dim(),
           " does not match the dataset's frame features (", features.input_dim(), ")");
  FN_CHECK(features.output_dim() == model.output_dim(), "model output width ", model.output_dim(),
           " does not match the dataset's increments (", features.output_dim(), ")");
  const int R = model.history(), H = o.horizon;
  FN_CHECK(H >= 1, "horizon must be >= 1");
  FN_CHECK(int64_t(R) + H - 1 <= data.steps, "horizon ", H, " with ", R,
           " frames of priming needs trajectories of at least ", R + H - 1,
           " steps; the dataset has ", data.steps, "; generate longer held-out trajectories (--steps)");

  const int nq = data.layout.nq, nv = data.layout.nv, na = data.layout.na;
  const int din = model.input_dim(), dout = model.output_dim();
  RolloutResult res;
  res.trajectories = int64_t(trajectories.size());
  res.horizon = H;
  res.start_frame = R;
  res.source = trajectories;
  res.qpos.assign(size_t(res.trajectories * H * nq), 0.0);
  res.qvel.assign(size_t(res.trajectories * H * nv), 0.0);
  res.act.assign(size_t(res.trajectories * H * na), 0.0);
  res.diverged_at.assign(size_t(res.trajectories), -1);

  const bool senses = probe_count > 0 || K > 0;
  std::vector<std::unique_ptr<sim::FrameSensor>> sensors;  // one per thread
  if (senses)
    for (int i = 0; i < pool.size(); ++i)
      sensors.push_back(std::make_unique<sim::FrameSensor>(*o.robot, data.seed, o.climbing_probes));

  const int B = std::max(1, std::min<int>(o.batch, int(res.trajectories)));
  std::vector<float> inputs(size_t(B) * din), outputs(size_t(B) * dout);
  std::vector<double> q(size_t(B) * nq), v(size_t(B) * nv), q_next(size_t(B) * nq), v_next(size_t(B) * nv);
  std::vector<double> a(size_t(B) * na), a_next(size_t(B) * na);  // activations (na = 0: empty)
  std::vector<double> increments(size_t(B) * dout);  // outputs in double for the codec
  std::vector<float> probe_buf(size_t(B) * size_t(std::max(1, probe_count * kProbeFeatureDim)));
  std::vector<float> contact_rows(size_t(B) * size_t(std::max(1, K)) * kContactRowDim);
  std::vector<int32_t> contact_link(size_t(B) * size_t(std::max(1, K)));
  std::vector<int32_t> contact_count(static_cast<size_t>(B)), contact_overflow(static_cast<size_t>(B));
  std::vector<uint8_t> contact_full(static_cast<size_t>(B));
  const engine::ContactBatch contacts{contact_rows.data(), contact_link.data(), contact_count.data()};
  const engine::ContactBatch* frame_contacts = K > 0 ? &contacts : nullptr;
  int64_t rows_total = 0, rows_steps = 0;
  res.contact_rows_min = std::numeric_limits<int64_t>::max();

  // Probes and contact rows of environment e (trajectory `row`) at state (qs, vs).
  auto sense = [&](int64_t e, int64_t row, const double* qs, const double* vs, int wi) {
    sim::ContactRowsOut out{contact_rows.data() + size_t(e) * K * kContactRowDim,
                            contact_link.data() + size_t(e) * K, 0, 0};
    sensors[size_t(wi)]->sense(res.source[size_t(row)], qs, vs,
                               probe_count ? probe_buf.data() + size_t(e) * probe_count * kProbeFeatureDim : nullptr,
                               K, K > 0 ? &out : nullptr);
    if (K > 0) {
      contact_count[size_t(e)] = out.count;
      contact_overflow[size_t(e)] = out.overflow;
      contact_full[size_t(e)] = out.buffer_full;
    }
  };

  for (int64_t first = 0; first < res.trajectories; first += B) {
    const int b = int(std::min<int64_t>(B, res.trajectories - first));
    model.begin(b);
    // prime with ground-truth frames 0 .. R-2; frame R-1 is the first input of the loop
    for (int t = 0; t < R - 1; ++t) {
      if (K > 0)
        pool.parallel_for(b, [&](int64_t e0, int64_t e1, int wi) {
          for (int64_t e = e0; e < e1; ++e) {
            const int64_t n = trajectories[size_t(first + e)];
            sense(e, first + e, data.q(n, t), data.v(n, t), wi);
          }
        });
      for (int e = 0; e < b; ++e) {
        int64_t n = trajectories[size_t(first + e)];
        features.input(data.q(n, t), data.v(n, t), data.a(n, t), data.u(n, t),
                       probe_count ? data.probe(n, t) : nullptr, inputs.data() + size_t(e) * din);
      }
      model.step(b, inputs.data(), frame_contacts, outputs.data());
    }
    for (int e = 0; e < b; ++e) {
      int64_t n = trajectories[size_t(first + e)];
      std::memcpy(q.data() + size_t(e) * nq, data.q(n, R - 1), sizeof(double) * size_t(nq));
      std::memcpy(v.data() + size_t(e) * nv, data.v(n, R - 1), sizeof(double) * size_t(nv));
      if (na > 0) std::memcpy(a.data() + size_t(e) * na, data.a(n, R - 1), sizeof(double) * size_t(na));
    }
    if (senses)  // the first loop frame is recorded: sensing reproduces the recording there
      pool.parallel_for(b, [&](int64_t e0, int64_t e1, int wi) {
        for (int64_t e = e0; e < e1; ++e) sense(e, first + e, q.data() + size_t(e) * nq, v.data() + size_t(e) * nv, wi);
      });
    for (int h = 0; h < H; ++h) {
      const int t = R - 1 + h;  // frame whose state is the input
      for (int e = 0; e < b; ++e) {
        int64_t n = trajectories[size_t(first + e)];
        features.input(q.data() + size_t(e) * nq, v.data() + size_t(e) * nv, a.data() + size_t(e) * na, data.u(n, t),
                       probe_count ? probe_buf.data() + size_t(e) * probe_count * kProbeFeatureDim : nullptr,
                       inputs.data() + size_t(e) * din);
      }
      auto t0 = std::chrono::steady_clock::now();
      model.step(b, inputs.data(), frame_contacts, outputs.data());
      res.model_seconds += seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      pool.parallel_for(b, [&](int64_t e0, int64_t e1, int wi) {
        for (int64_t e = e0; e < e1; ++e) {
          const int64_t row = first + e;
          double* inc = increments.data() + size_t(e) * dout;
          for (int i = 0; i < dout; ++i) inc[i] = outputs[size_t(e) * dout + size_t(i)];
          double* qn = q_next.data() + size_t(e) * nq;
          double* vn = v_next.data() + size_t(e) * nv;
          double* an = a_next.data() + size_t(e) * na;
          // a diverged row keeps its last finite state from here on; it is flagged once
          const bool frozen = res.diverged_at[size_t(row)] >= 0;
          if (!codec.advance_finite(q.data() + size_t(e) * nq, v.data() + size_t(e) * nv, a.data() + size_t(e) * na,
                                    inc, qn, vn, an, frozen) && !frozen)
            res.diverged_at[size_t(row)] = h;
          std::memcpy(res.qpos.data() + size_t((row * H + h) * nq), qn, sizeof(double) * size_t(nq));
          std::memcpy(res.qvel.data() + size_t((row * H + h) * nv), vn, sizeof(double) * size_t(nv));
          std::copy_n(an, na, res.act.data() + size_t((row * H + h) * na));
          if (senses) sense(e, row, qn, vn, wi);  // collision geometry at the predicted state
        }
      });
      if (senses) res.sensing_seconds += seconds_since(t0);
      if (K > 0 && h + 1 < H) {  // rows that feed the next predicted step
        for (int e = 0; e < b; ++e) {
          res.contact_rows_min = std::min<int64_t>(res.contact_rows_min, contact_count[size_t(e)]);
          res.contact_rows_max = std::max<int64_t>(res.contact_rows_max, contact_count[size_t(e)]);
          rows_total += contact_count[size_t(e)];
          res.contact_overflow += contact_overflow[size_t(e)];
          res.contact_buffer_full += contact_full[size_t(e)];
        }
        rows_steps += b;
      }
      std::swap(q, q_next);
      std::swap(v, v_next);
      std::swap(a, a_next);
    }
  }
  if (rows_steps == 0) res.contact_rows_min = 0;
  res.contact_rows_mean = rows_steps ? double(rows_total) / double(rows_steps) : 0.0;
  return res;
}

}  // namespace flashnerd::eval
