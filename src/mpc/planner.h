// Planner: DIAL-MPC over any Backend (docs/DESIGN.md §9), with MuJoCo MPC's explicit lifecycle:
//   Planner planner(backend, task, options, pool);   // allocates for options.samples
//   planner.reset(q0, v0, seed);                       // a new trial from the measured state
//   loop: planner.optimize(); apply planner.command(); planner.set_state(q, v);
// The backend holds samples + 1 environments: 0..samples−1 roll out samples, the last one is
// the tracker, which follows the real robot. set_state steps the tracker with the command
// that was applied and then sets it to the measured state, keeping its history, so a learned
// model plans from the robot's real past frames (teacher-forced), not from a fresh history.
// Every iteration forks the tracker into every sample (state, history, sensing) and rolls
// them out together; the task scores each step in parallel. No allocation per decision.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "env/backend.h"
#include "mpc/dial.h"
#include "mpc/plan_task.h"

namespace flashnerd::mpc {

// Where planning time goes, summed over decisions (seconds).
struct PlannerTimings {
  int64_t decisions = 0;
  double total_seconds = 0;    // set_state + optimize
  double model_seconds = 0;    // the backend's dynamics (model steps, or MuJoCo)
  double sensing_seconds = 0;  // collision detection, probes, contact rows at predicted states
  int64_t rollout_steps = 0;   // sample transitions stepped
  int64_t contact_rows = 0;    // Σ contact rows the model read over those steps
  int64_t active_probes = 0;   // Σ fixed probes within threshold over those steps
  int32_t contact_capacity = 0;      // rows the planning model reads per state (0: none)
  int32_t max_contact_rows = 0;      // most rows detected at one predicted state
  int64_t contact_rows_dropped = 0;  // Σ rows detected beyond the model's capacity
  double overhead_seconds() const { return total_seconds - model_seconds - sensing_seconds; }
};

class Planner : private RolloutEvaluator {
 public:
  // backend.envs() must be at least backend_envs(options).
  Planner(env::Backend& backend, const PlanTask& task, const DialOptions& options, ThreadPool& pool);
  static int backend_envs(const DialOptions& options) { return options.samples + 1; }

  // A new trial from measured state (q, v): fresh tracker history, plan at zero, seeded stream.
  void reset(const double* q, const double* v, uint64_t seed);
  // Measured state after command() was applied for one control step; shifts the plan.
  void set_state(const double* q, const double* v);
  // One decision (DIAL's annealing iterations from the tracker's state).
  const DialReport& optimize();
  // The control to apply now: normalized (action_dim) and as backend commands (nu).
  const double* action() const { return dial_.action(); }
  const double* command() const { return command_.data(); }
  // The current plan over the horizon as backend commands into out (horizon, nu): what the
  // planner expects to apply, for diagnostics (the first row equals command()).
  void plan_commands(double* out);

  const Dial& dial() const { return dial_; }
  const PlannerTimings& timings() const { return timings_; }
  void clear_timings();

 private:
  void evaluate(int count, const double* actions, double* returns, uint8_t* diverged) override;
  // Model and sensing seconds the backend spent since `before`, and wall time since t0.
  void add_backend_time(const env::BackendTimings& before, std::chrono::steady_clock::time_point t0);

  env::Backend* backend_;
  double risk_penalty_ = 0;  // per unit of ensemble disagreement per step
  const PlanTask* task_;
  ThreadPool* pool_;
  Dial dial_;
  int tracker_, nu_, action_dim_, horizon_, terms_;
  std::vector<double> command_, applied_action_, step_commands_, term_scratch_, plan_controls_;
  bool has_applied_ = false;
  PlannerTimings timings_;
};

}  // namespace flashnerd::mpc
