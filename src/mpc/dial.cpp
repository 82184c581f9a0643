#include "mpc/dial.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/option_error.h"
#include "core/system_memory.h"

namespace flashnerd::mpc {

void validate(const DialOptions& o) {
  FN_CHECK_OPTION(o.samples >= 2, "samples", "must be >= 2 (got ", o.samples, ")");
  FN_CHECK_OPTION(o.horizon >= 1, "horizon", "must be >= 1 (got ", o.horizon, ")");
  FN_CHECK_OPTION(o.knots >= 2 && o.knots <= 64, "knots", "must be in [2, 64] (got ", o.knots, ")");
  FN_CHECK_OPTION(o.horizon >= o.knots - 1, "horizon", o.horizon, " must be at least ", option_ref("knots"), " − 1 (",
                  o.knots - 1, ")");
  FN_CHECK_OPTION(o.iterations >= 1, "iterations", "must be >= 1 (got ", o.iterations, ")");
  FN_CHECK_OPTION(o.first_iterations >= 1, "first_iterations", "must be >= 1 (got ", o.first_iterations, ")");
  FN_CHECK_OPTION(o.sigma0 > 0 && std::isfinite(o.sigma0), "sigma0", "must be > 0 (got ", o.sigma0, ")");
  FN_CHECK_OPTION(o.horizon_diffuse_factor > 0 && o.horizon_diffuse_factor <= 1, "horizon_diffuse_factor",
                  "must be in (0, 1] (got ", o.horizon_diffuse_factor, ")");
  FN_CHECK_OPTION(o.trajectory_diffuse_factor > 0 && o.trajectory_diffuse_factor <= 1, "trajectory_diffuse_factor",
                  "must be in (0, 1] (got ", o.trajectory_diffuse_factor, ")");
  FN_CHECK_OPTION(o.temperature > 0 && std::isfinite(o.temperature), "temperature", "must be > 0 (got ",
                  o.temperature, ")");
  FN_CHECK_OPTION(o.risk_penalty >= 0 && std::isfinite(o.risk_penalty), "risk_penalty", "must be >= 0 (got ",
                  o.risk_penalty, ")");
}

namespace {

// The planner's memory, checked before its first allocation: the sampled control sequences,
// the spline's weights and the plan's controls over the horizon.
void check_planner_memory(const DialOptions& o, int action_dim) {
  const double S = o.samples, H = o.horizon, K = o.knots, A = action_dim;
  MemoryPlan(str_cat("planner: ", o.samples, " samples over a horizon of ", o.horizon, " steps"))
      .add("sampled controls", sizeof(double) * S * (H + K) * A)
      .add("spline weights", sizeof(double) * H * K)
      .add("plan controls", sizeof(double) * H * A)
      .check(str_cat("lower ", option_ref("samples"), " or ", option_ref("horizon")));
}

}  // namespace

Dial::Dial(const DialOptions& options, int action_dim)
    : o_((validate(options), check_planner_memory(options, action_dim), options)),
      action_dim_(action_dim),
      spline_(options.knots, options.horizon),
      rng_(options.seed) {
  FN_CHECK(action_dim >= 1, "planner: the task has no actions");
  const size_t K = size_t(o_.knots), S = size_t(o_.samples), A = size_t(action_dim_);
  plan_.assign(K * A, 0.0);
  scratch_.assign(K * A, 0.0);
  sigma_.assign(K, 0.0);
  sample_knots_.assign(S * K * A, 0.0);
  actions_.assign(S * size_t(o_.horizon) * A, 0.0);
  returns_.assign(S, 0.0);
  weights_.assign(S, 0.0);
  diverged_.assign(S, 0);
}

void Dial::reset(uint64_t seed) {
  std::fill(plan_.begin(), plan_.end(), 0.0);
  rng_ = Rng(seed);
  first_ = true;
}

const DialReport& Dial::optimize(RolloutEvaluator& evaluator) {
  report_ = {};
  const int n = first_ ? o_.first_iterations : o_.iterations;
  first_ = false;
  for (int i = 0; i < n; ++i) iterate(evaluator, i);
  report_.iterations = n;
  return report_;
}

void Dial::iterate(RolloutEvaluator& evaluator, int iteration) {
  const int K = o_.knots, S = o_.samples, H = o_.horizon;
  const size_t plan_size = size_t(K) * size_t(action_dim_);
  for (int k = 0; k < K; ++k)
    sigma_[size_t(k)] = o_.sigma0 * std::pow(o_.horizon_diffuse_factor, K - 1 - k) *
                        std::pow(o_.trajectory_diffuse_factor, iteration);
  // samples 0..S−2 are perturbed plans; the last one is the plan itself
  for (int s = 0; s < S; ++s) {
    double* y = sample_knots_.data() + size_t(s) * plan_size;
    for (int k = 0; k < K; ++k)
      for (int a = 0; a < action_dim_; ++a) {
        const size_t i = size_t(k) * size_t(action_dim_) + size_t(a);
        const double noise = (s + 1 < S && k > 0) ? sigma_[size_t(k)] * rng_.normal() : 0.0;
        y[i] = std::clamp(plan_[i] + noise, -1.0, 1.0);
      }
    double* u = actions_.data() + size_t(s) * size_t(H) * size_t(action_dim_);
    spline_.controls(y, action_dim_, u);
    for (size_t i = 0; i < size_t(H) * size_t(action_dim_); ++i) u[i] = std::clamp(u[i], -1.0, 1.0);
  }
  std::fill(diverged_.begin(), diverged_.end(), 0);
  evaluator.evaluate(S, actions_.data(), returns_.data(), diverged_.data());

  // diverged samples take the worst finite return
  double worst = INFINITY, best = -INFINITY;
  int diverged = 0;
  for (int s = 0; s < S; ++s) {
    if (!std::isfinite(returns_[size_t(s)])) diverged_[size_t(s)] = 1;
    if (diverged_[size_t(s)]) {
      ++diverged;
      continue;
    }
    worst = std::min(worst, returns_[size_t(s)]);
    best = std::max(best, returns_[size_t(s)]);
  }
  report_.diverged += diverged;
  if (diverged == S) return;  // nothing to learn from: keep the plan
  double mean = 0, var = 0;
  for (int s = 0; s < S; ++s) {
    if (diverged_[size_t(s)]) returns_[size_t(s)] = worst;
    mean += returns_[size_t(s)];
  }
  mean /= S;
  for (int s = 0; s < S; ++s) var += (returns_[size_t(s)] - mean) * (returns_[size_t(s)] - mean);
  const double spread = std::sqrt(var / S);
  const double plan_return = returns_[size_t(S - 1)];
  report_.plan_return = plan_return;
  report_.best_return = best;
  report_.final_spread = spread;
  if (!(spread > 1e-12)) return;  // all samples equal: the plan stays
  double top = -INFINITY, total = 0;
  for (int s = 0; s < S; ++s) {
    weights_[size_t(s)] = (returns_[size_t(s)] - plan_return) / spread / o_.temperature;
    top = std::max(top, weights_[size_t(s)]);
  }
  for (int s = 0; s < S; ++s) total += weights_[size_t(s)] = std::exp(weights_[size_t(s)] - top);
  std::fill(plan_.begin(), plan_.end(), 0.0);
  for (int s = 0; s < S; ++s) {
    const double w = weights_[size_t(s)] / total;
    const double* y = sample_knots_.data() + size_t(s) * plan_size;
    for (size_t i = 0; i < plan_size; ++i) plan_[i] += w * y[i];
  }
}

}  // namespace flashnerd::mpc
