#include "eval/metrics.h"

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/state_codec.h"

namespace flashnerd::eval {

RolloutErrors rollout_errors(const Dataset& data, const RolloutResult& r,
                             const std::vector<double>& channel_std, const std::vector<int>& horizons) {
  const StateCodec codec(data.layout);
  const int C = codec.channel_dim(), H = r.horizon, nq = data.layout.nq, nv = data.layout.nv, na = data.layout.na;
  FN_CHECK(int(channel_std.size()) == C, "channel stds: ", channel_std.size(), " values for ", C, " channels");
  for (int h : horizons)
    FN_CHECK(h >= 1 && h <= H, "horizon ", h, " is outside the rollouts' 1..", H);
  // per step: sum of squared normalized errors, and per group sums of squared raw errors
  std::vector<double> step_sq(size_t(H), 0.0);
  std::map<std::string, std::vector<double>> group_sq;
  std::map<std::string, int> group_channels;
  for (int c = 0; c < C; ++c) {
    std::string g = channel_group_name(codec.channel_group(c));
    group_sq[g].assign(size_t(H), 0.0);
    group_channels[g] += 1;
  }
  RolloutErrors out;
  std::vector<double> err(static_cast<size_t>(C));
  for (int64_t i = 0; i < r.trajectories; ++i) {
    if (r.diverged_at[size_t(i)] >= 0) {
      ++out.diverged;
      continue;
    }
    ++out.trajectories;
    const int64_t n = r.source[size_t(i)];
    for (int h = 0; h < H; ++h) {
      const int t = r.start_frame + h;
      codec.channel_error(r.qpos.data() + size_t((i * H + h) * nq), r.qvel.data() + size_t((i * H + h) * nv),
                          na > 0 ? r.act.data() + size_t((i * H + h) * na) : nullptr, data.q(n, t), data.v(n, t),
                          data.a(n, t), err.data());
      for (int c = 0; c < C; ++c) {
        double z = err[size_t(c)] / channel_std[size_t(c)];
        step_sq[size_t(h)] += z * z;
        group_sq[channel_group_name(codec.channel_group(c))][size_t(h)] += err[size_t(c)] * err[size_t(c)];
      }
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double denom_traj = double(out.trajectories);
  for (int h = 0; h < H; ++h)
    out.step_nrmse.push_back(out.trajectories ? std::sqrt(step_sq[size_t(h)] / (denom_traj * C)) : inf);
  for (int hz : horizons) {
    HorizonErrors he;
    he.horizon = hz;
    double s = 0;
    for (int h = 0; h < hz; ++h) s += step_sq[size_t(h)];
    he.nrmse = out.trajectories ? std::sqrt(s / (denom_traj * hz * C)) : inf;
    for (const auto& kv : group_sq) {
      double gs = 0;
      for (int h = 0; h < hz; ++h) gs += kv.second[size_t(h)];
      he.group_rmse[kv.first] =
          out.trajectories ? std::sqrt(gs / (denom_traj * hz * group_channels[kv.first])) : inf;
    }
    out.horizons.push_back(he);
  }
  return out;
}

std::vector<double> state_channel_std(const Dataset& data, const std::vector<int64_t>& trajectories) {
  const StateCodec codec(data.layout);
  const int C = codec.channel_dim();
  std::vector<double> sum(size_t(C), 0.0), sq(size_t(C), 0.0), ch(static_cast<size_t>(C));
  int64_t count = 0;
  for (int64_t n : trajectories) {
    for (int64_t t = 0; t < data.steps; ++t) {
      if (!data.is_valid(n, t)) continue;
      codec.channels(data.q(n, t), data.v(n, t), data.a(n, t), ch.data());
      for (int c = 0; c < C; ++c) {
        sum[size_t(c)] += ch[size_t(c)];
        sq[size_t(c)] += ch[size_t(c)] * ch[size_t(c)];
      }
      ++count;
    }
  }
  FN_CHECK(count > 1, "no valid frames to compute state standard deviations from");
  std::vector<double> std_dev(static_cast<size_t>(C));
  for (int c = 0; c < C; ++c) {
    double mean = sum[size_t(c)] / double(count);
    double var = std::max(0.0, sq[size_t(c)] / double(count) - mean * mean);
    std_dev[size_t(c)] = std::sqrt(var + 1e-5);
  }
  return std_dev;
}

}  // namespace flashnerd::eval
