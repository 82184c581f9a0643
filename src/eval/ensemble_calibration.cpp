#include "eval/ensemble_calibration.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/ensemble_stats.h"
#include "core/error.h"
#include "eval/recorded_frames.h"

namespace flashnerd::eval {

namespace {

std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = 0.5 * double(i + j);  // ties share their mean rank
    i = j + 1;
  }
  return r;
}

// sqrt(mean over channels of (e_c / σ_c)²) of a predicted state against the truth.
double normalized_error(const StateCodec& codec, const double* q, const double* v, const double* a, const Dataset& d,
                        int64_t n, int64_t t, const std::vector<double>& channel_std, std::vector<double>& err) {
  codec.channel_error(q, v, a, d.q(n, t), d.v(n, t), d.a(n, t), err.data());
  double sq = 0;
  for (size_t c = 0; c < err.size(); ++c) sq += (err[c] / channel_std[c]) * (err[c] / channel_std[c]);
  return std::sqrt(sq / double(err.size()));
}

}  // namespace

double spearman_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  FN_ASSERT(x.size() == y.size());
  if (x.size() < 2) return std::nan("");
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / double(rx.size());
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / double(ry.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : std::nan("");
}

EnsembleCalibration ensemble_calibration(const std::vector<StepModel*>& members, const float* target_std,
                                         const std::vector<double>& channel_std, const Dataset& data,
                                         const std::vector<int64_t>& trajectories, int batch) {
  FN_CHECK(!members.empty(), "calibration needs at least one member");
  StepModel& first = *members[0];
  const int B = std::max(1, std::min<int>(batch, int(trajectories.size())));
  RecordedFrames frames(first, data, B);
  const StateCodec& codec = frames.codec();
  FN_CHECK(int(channel_std.size()) == codec.channel_dim(), "channel stds: ", channel_std.size(), " for ",
           codec.channel_dim(), " channels");
  const int M = int(members.size()), R = first.history(), dout = first.output_dim();
  const StateLayout& L = data.layout;
  EnsembleCalibration res;
  std::vector<std::vector<double>> member_error(static_cast<size_t>(M));
  std::vector<float> outputs(size_t(M) * size_t(B) * size_t(dout));
  std::vector<double> inc(static_cast<size_t>(dout)), q1(size_t(L.nq)), v1(size_t(L.nv)), a1(size_t(L.na)),
      err(size_t(codec.channel_dim()));
  const size_t stride = size_t(B) * size_t(dout);
  for (size_t first_row = 0; first_row < trajectories.size(); first_row += size_t(B)) {
    const int b = int(std::min<size_t>(size_t(B), trajectories.size() - first_row));
    for (StepModel* m : members) m->begin(b);
    std::vector<uint8_t> alive(size_t(b), 1);
    for (int64_t t = 0; t < data.steps; ++t) {
      frames.load(trajectories, first_row, b, t, alive);
      for (int m = 0; m < M; ++m)
        members[size_t(m)]->step(b, frames.inputs(), frames.contacts(), outputs.data() + size_t(m) * stride);
      if (t < R - 1) continue;
      for (int e = 0; e < b; ++e) {
        if (!alive[size_t(e)]) continue;
        const int64_t n = trajectories[first_row + size_t(e)];
        const float* out = outputs.data() + size_t(e) * size_t(dout);
        for (int m = 0; m < M; ++m) {  // each member alone
          for (int i = 0; i < dout; ++i) inc[size_t(i)] = out[size_t(m) * stride + size_t(i)];
          codec.apply(data.q(n, t), data.v(n, t), data.a(n, t), inc.data(), q1.data(), v1.data(), a1.data());
          member_error[size_t(m)].push_back(
              normalized_error(codec, q1.data(), v1.data(), a1.data(), data, n, t + 1, channel_std, err));
        }
        for (int i = 0; i < dout; ++i) {  // the members' mean
          double sum = 0;
          for (int m = 0; m < M; ++m) sum += out[size_t(m) * stride + size_t(i)];
          inc[size_t(i)] = sum / M;
        }
        codec.apply(data.q(n, t), data.v(n, t), data.a(n, t), inc.data(), q1.data(), v1.data(), a1.data());
        res.error.push_back(normalized_error(codec, q1.data(), v1.data(), a1.data(), data, n, t + 1, channel_std, err));
        res.disagreement.push_back(ensemble_disagreement(out, stride, M, dout, target_std));
      }
    }
  }
  for (const auto& me : member_error) res.member_error.insert(res.member_error.end(), me.begin(), me.end());
  res.spearman = spearman_correlation(res.disagreement, res.error);
  return res;
}

}  // namespace flashnerd::eval
