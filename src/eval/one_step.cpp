#include "eval/one_step.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "eval/recorded_frames.h"

namespace flashnerd::eval {

double OneStepErrors::base_rmse_mm(const std::vector<size_t>& rows) const {
  double sum = 0;
  int64_t n = 0;
  for (size_t i = 0; i < (rows.empty() ? source.size() : rows.size()); ++i) {
    const size_t r = rows.empty() ? i : rows[i];
    sum += base_sq_sum[r];
    n += count[r];
  }
  return n ? 1000.0 * std::sqrt(sum / double(n)) : std::nan("");
}

std::vector<double> OneStepErrors::joint_rmse(const std::vector<size_t>& rows) const {
  std::vector<double> sum(size_t(joints), 0.0);
  int64_t n = 0;
  for (size_t i = 0; i < (rows.empty() ? source.size() : rows.size()); ++i) {
    const size_t r = rows.empty() ? i : rows[i];
    for (int j = 0; j < joints; ++j) sum[size_t(j)] += joint_sq_sum[r * size_t(joints) + size_t(j)];
    n += count[r];
  }
  for (double& s : sum) s = n ? std::sqrt(s / double(n)) : std::nan("");
  return sum;
}

OneStepErrors one_step_errors(StepModel& model, const Dataset& data,
                              const std::vector<int64_t>& trajectories, int batch) {
  FN_CHECK(data.layout.floating_base, "one-step base-position error needs a floating-base robot");
  const int B = std::max(1, std::min<int>(batch, int(trajectories.size())));
  RecordedFrames frames(model, data, B);
  const StateCodec& codec = frames.codec();
  const int R = model.history(), dout = model.output_dim();
  const int nq = data.layout.nq, nv = data.layout.nv;
  OneStepErrors res;
  res.source = trajectories;
  res.base_sq_sum.assign(trajectories.size(), 0.0);
  res.count.assign(trajectories.size(), 0);
  res.joints = nq - 7;
  res.joint_sq_sum.assign(trajectories.size() * size_t(res.joints), 0.0);
  std::vector<float> outputs(size_t(B) * dout);
  std::vector<double> inc(static_cast<size_t>(dout)), q1(static_cast<size_t>(nq)), v1(static_cast<size_t>(nv)),
      a1(static_cast<size_t>(data.layout.na));
  for (size_t first = 0; first < trajectories.size(); first += size_t(B)) {
    const int b = int(std::min<size_t>(size_t(B), trajectories.size() - first));
    model.begin(b);
    std::vector<uint8_t> alive(size_t(b), 1);
    for (int64_t t = 0; t < data.steps; ++t) {
      frames.load(trajectories, first, b, t, alive);
      model.step(b, frames.inputs(), frames.contacts(), outputs.data());
      if (t < R - 1) continue;
      for (int e = 0; e < b; ++e) {
        if (!alive[size_t(e)]) continue;
        const int64_t n = trajectories[first + size_t(e)];
        for (int i = 0; i < dout; ++i) inc[size_t(i)] = outputs[size_t(e) * dout + size_t(i)];
        codec.apply(data.q(n, t), data.v(n, t), data.a(n, t), inc.data(), q1.data(), v1.data(), a1.data());
        const double* truth = data.q(n, t + 1);
        double sq = 0;
        for (int i = 0; i < 3; ++i) sq += (q1[size_t(i)] - truth[i]) * (q1[size_t(i)] - truth[i]);
        if (!std::isfinite(sq)) continue;
        res.base_sq_sum[first + size_t(e)] += sq;
        double* joint_sq = res.joint_sq_sum.data() + (first + size_t(e)) * size_t(res.joints);
        for (int i = 0; i < res.joints; ++i) joint_sq[i] += (q1[size_t(7 + i)] - truth[7 + i]) * (q1[size_t(7 + i)] - truth[7 + i]);
        ++res.count[first + size_t(e)];
      }
    }
  }
  return res;
}

}  // namespace flashnerd::eval
