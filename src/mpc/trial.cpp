#include "mpc/trial.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "core/option_error.h"
#include "core/stopwatch.h"

namespace flashnerd::mpc {

TrialResult run_trial(Planner& planner, env::Backend& world, const PlanTask& task, const double* q0,
                      const double* v0, int frames, uint64_t seed, const SuccessRule& rule,
                      const std::function<void(int)>& progress) {
  FN_CHECK_OPTION(frames >= 1, "frames", "must be >= 1 (got ", frames, ")");
  const int nq = world.nq(), nv = world.nv(), nu = world.nu();
  TrialResult r;
  r.frames = frames;
  r.term_sums.assign(task.reward_terms().size(), 0.0);
  std::vector<double> terms(r.term_sums.size(), 0.0), previous(size_t(task.action_dim()), 0.0);
  world.reset(0, q0, v0);
  planner.clear_timings();
  planner.reset(q0, v0, seed);
  r.qpos.assign(world.q(0), world.q(0) + nq);
  r.qvel.assign(world.v(0), world.v(0) + nv);
  SuccessTracker success(rule);
  const size_t plan_size = size_t(planner.dial().options().horizon) * size_t(nu);
  r.plan_commands.reserve(size_t(frames) * plan_size);
  for (int f = 0; f < frames; ++f) {
    auto t0 = std::chrono::steady_clock::now();
    if (f > 0) planner.set_state(world.q(0), world.v(0));
    const DialReport& report = planner.optimize();
    r.decision_seconds.push_back(seconds_since(t0));
    r.plan_returns.push_back(report.plan_return);
    r.plan_commands.resize(r.plan_commands.size() + plan_size);
    planner.plan_commands(r.plan_commands.data() + r.plan_commands.size() - plan_size);
    world.step(planner.command());
    r.ctrl.insert(r.ctrl.end(), planner.command(), planner.command() + nu);
    r.qpos.insert(r.qpos.end(), world.q(0), world.q(0) + nq);
    r.qvel.insert(r.qvel.end(), world.v(0), world.v(0) + nv);
    task.reward(world, 0, planner.action(), previous.data(), terms.data());
    for (size_t t = 0; t < terms.size(); ++t) r.term_sums[t] += terms[t];
    std::copy_n(planner.action(), task.action_dim(), previous.begin());
    if (world.failed(0)) {
      r.world_failed = true;
      r.frames = f + 1;
      break;
    }
    if (success.update(world.q(0)) && !r.success) {
      r.success = true;
      r.success_frame = f;
    }
    if (progress) progress(f);
  }
  r.timings = planner.timings();
  return r;
}

double median_seconds(std::vector<double> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

}  // namespace flashnerd::mpc
