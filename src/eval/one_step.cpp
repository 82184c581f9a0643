#include "eval/one_step.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/frame_features.h"

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

OneStepErrors one_step_errors(StepModel& model, const Dataset& data,
                              const std::vector<int64_t>& trajectories, int batch) {
  FN_CHECK(data.layout.floating_base, "one-step base-position error needs a floating-base robot");
  const int K = model.contact_capacity();
  FN_CHECK(K == 0 || data.contact_capacity == K, "the model reads ", K, " contact rows per frame but the dataset "
           "records ", data.contact_capacity, "; regenerate it with --contact-capacity ", K);
  const StateCodec codec(data.layout);
  const int probe_count = model.probe_dim() / kProbeFeatureDim;
  FN_CHECK(probe_count == 0 || data.probe_count == probe_count, "the model reads ", probe_count,
           " fixed probes but the dataset records ", data.probe_count);
  const FrameFeatures features(codec, probe_count);
  const int R = model.history(), din = model.input_dim(), dout = model.output_dim();
  const int nq = data.layout.nq, nv = data.layout.nv;
  OneStepErrors res;
  res.source = trajectories;
  res.base_sq_sum.assign(trajectories.size(), 0.0);
  res.count.assign(trajectories.size(), 0);
  const int B = std::max(1, std::min<int>(batch, int(trajectories.size())));
  std::vector<float> inputs(size_t(B) * din), outputs(size_t(B) * dout);
  std::vector<int32_t> counts(static_cast<size_t>(B));
  std::vector<float> rows(size_t(B) * std::max(1, K) * kContactRowDim);
  std::vector<int32_t> links(size_t(B) * std::max(1, K));
  const engine::ContactBatch contacts{rows.data(), links.data(), counts.data()};
  std::vector<double> inc(static_cast<size_t>(dout)), q1(static_cast<size_t>(nq)), v1(static_cast<size_t>(nv)),
      a1(static_cast<size_t>(data.layout.na));
  for (size_t first = 0; first < trajectories.size(); first += size_t(B)) {
    const int b = int(std::min<size_t>(size_t(B), trajectories.size() - first));
    model.begin(b);
    std::vector<uint8_t> alive(size_t(b), 1);
    for (int64_t t = 0; t < data.steps; ++t) {
      for (int e = 0; e < b; ++e) {
        const int64_t n = trajectories[first + size_t(e)];
        alive[size_t(e)] &= data.is_valid(n, t);
        features.input(data.q(n, t), data.v(n, t), data.a(n, t), data.u(n, t), probe_count ? data.probe(n, t) : nullptr,
                       inputs.data() + size_t(e) * din);
        if (K > 0) {
          const int64_t f = n * data.frames() + t;
          counts[size_t(e)] = data.contact_count[size_t(f)];
          std::copy_n(&data.contact_rows[size_t(f * K * kContactRowDim)], size_t(K) * kContactRowDim,
                      &rows[size_t(e) * K * kContactRowDim]);
          std::copy_n(&data.contact_link[size_t(f * K)], size_t(K), &links[size_t(e) * K]);
        }
      }
      model.step(b, inputs.data(), K > 0 ? &contacts : nullptr, outputs.data());
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
        ++res.count[first + size_t(e)];
      }
    }
  }
  return res;
}

}  // namespace flashnerd::eval
