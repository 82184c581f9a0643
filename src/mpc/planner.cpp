#include "mpc/planner.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "core/stopwatch.h"

namespace flashnerd::mpc {

Planner::Planner(env::Backend& backend, const PlanTask& task, const DialOptions& options, ThreadPool& pool)
    : backend_(&backend), task_(&task), pool_(&pool), dial_(options, task.action_dim()) {
  FN_CHECK(backend.envs() >= backend_envs(options), "planner: the ", backend.kind(), " backend holds ",
           backend.envs(), " environments; ", options.samples, " samples need ", backend_envs(options));
  tracker_ = options.samples;
  nu_ = backend.nu();
  action_dim_ = task.action_dim();
  horizon_ = options.horizon;
  risk_penalty_ = options.risk_penalty;
  terms_ = int(task.reward_terms().size());
  command_.assign(size_t(nu_), 0.0);
  applied_action_.assign(size_t(action_dim_), 0.0);
  step_commands_.assign(size_t(options.samples) * size_t(nu_), 0.0);
  term_scratch_.assign(size_t(pool.size()) * size_t(std::max(1, terms_)), 0.0);
  plan_controls_.assign(size_t(horizon_) * size_t(action_dim_), 0.0);
  clear_timings();
}

void Planner::clear_timings() {
  timings_ = {};
  timings_.contact_capacity = backend_->contact_capacity();
}

void Planner::reset(const double* q, const double* v, uint64_t seed) {
  backend_->reset(tracker_, q, v);
  dial_.reset(seed);
  std::fill(applied_action_.begin(), applied_action_.end(), 0.0);
  task_->command(applied_action_.data(), command_.data());
  has_applied_ = false;
}

void Planner::set_state(const double* q, const double* v) {
  auto t0 = std::chrono::steady_clock::now();
  const env::BackendTimings before = backend_->timings();
  if (has_applied_) {
    // the tracker's history gains the frame of the applied command; its predicted state is
    // then replaced by the measured one
    backend_->copy_env(tracker_, 0);
    backend_->step_first(command_.data(), 1);
    backend_->set_state(0, q, v);
    backend_->copy_env(0, tracker_);
    dial_.shift();
  } else {
    backend_->set_state(tracker_, q, v);
  }
  add_backend_time(before, t0);
}

void Planner::add_backend_time(const env::BackendTimings& before, std::chrono::steady_clock::time_point t0) {
  const env::BackendTimings& after = backend_->timings();
  timings_.model_seconds += after.dynamics_seconds - before.dynamics_seconds;
  timings_.sensing_seconds += after.sensing_seconds - before.sensing_seconds;
  timings_.total_seconds += seconds_since(t0);
}

const DialReport& Planner::optimize() {
  auto t0 = std::chrono::steady_clock::now();
  const env::BackendTimings before = backend_->timings();
  const DialReport& report = dial_.optimize(*this);
  std::copy_n(dial_.action(), action_dim_, applied_action_.begin());
  task_->command(applied_action_.data(), command_.data());
  has_applied_ = true;
  const env::BackendTimings& after = backend_->timings();
  timings_.rollout_steps += after.env_steps - before.env_steps;
  timings_.contact_rows += after.contact_rows - before.contact_rows;
  timings_.active_probes += after.active_probes - before.active_probes;
  timings_.max_contact_rows = std::max(timings_.max_contact_rows, after.max_contact_rows);
  timings_.contact_rows_dropped += after.contact_rows_dropped - before.contact_rows_dropped;
  add_backend_time(before, t0);
  ++timings_.decisions;
  return report;
}

void Planner::plan_commands(double* out) {
  dial_.plan_controls(plan_controls_.data());
  for (int h = 0; h < horizon_; ++h)
    task_->command(plan_controls_.data() + size_t(h) * size_t(action_dim_), out + size_t(h) * size_t(nu_));
}

void Planner::evaluate(int count, const double* actions, double* returns, uint8_t* diverged) {
  for (int i = 0; i < count; ++i) backend_->copy_env(tracker_, i);
  std::fill_n(returns, count, 0.0);
  const size_t stride = size_t(horizon_) * size_t(action_dim_);
  for (int h = 0; h < horizon_; ++h) {
    pool_->parallel_for(count, [&](int64_t i0, int64_t i1, int) {
      for (int64_t i = i0; i < i1; ++i)
        task_->command(actions + size_t(i) * stride + size_t(h) * size_t(action_dim_),
                       step_commands_.data() + size_t(i) * size_t(nu_));
    });
    backend_->step_first(step_commands_.data(), count);
    pool_->parallel_for(count, [&](int64_t i0, int64_t i1, int worker) {
      double* terms = term_scratch_.data() + size_t(worker) * size_t(std::max(1, terms_));
      for (int64_t i = i0; i < i1; ++i) {
        if (diverged[i]) continue;
        if (backend_->failed(int(i))) {
          diverged[i] = 1;
          continue;
        }
        const double* a = actions + size_t(i) * stride + size_t(h) * size_t(action_dim_);
        const double* previous = h > 0 ? a - action_dim_ : applied_action_.data();
        returns[i] += task_->reward(*backend_, int(i), a, previous, terms);
        if (risk_penalty_ > 0) returns[i] -= risk_penalty_ * backend_->disagreement(int(i));
      }
    });
  }
  for (int i = 0; i < count; ++i) returns[i] /= horizon_;
}

}  // namespace flashnerd::mpc
