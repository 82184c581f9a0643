// One closed-loop trial: the planner decides every control step from the measured state,
// and the world (a MuJoCo backend of one environment, the "real" robot) executes the command.
// Only the planner's backend differs between methods; the world is always MuJoCo. Records
// the executed states, commands, per-decision planning time and the task's reward terms,
// and applies a success rule (a per-frame condition held for a number of frames in a row).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "env/backend.h"
#include "mpc/planner.h"

namespace flashnerd::mpc {

struct SuccessRule {
  std::function<bool(const double* q)> frame_ok;  // empty: no success rule
  int frames_in_a_row = 1;
};

// Applies a SuccessRule frame by frame: update() with each executed state returns true from
// the frame at which the condition has held frames_in_a_row frames in a row.
class SuccessTracker {
 public:
  explicit SuccessTracker(const SuccessRule& rule) : rule_(&rule) {}
  bool update(const double* q) {
    if (!rule_->frame_ok) return false;
    in_a_row_ = rule_->frame_ok(q) ? in_a_row_ + 1 : 0;
    return in_a_row_ >= rule_->frames_in_a_row;
  }

 private:
  const SuccessRule* rule_;
  int in_a_row_ = 0;
};

struct TrialResult {
  int frames = 0;
  bool success = false;
  int success_frame = -1;               // frame at which the rule was first met
  bool world_failed = false;            // MuJoCo itself went unstable
  std::vector<double> qpos, qvel;       // (frames + 1, nq / nv): executed, first = start
  std::vector<double> ctrl;             // (frames, nu)
  std::vector<double> decision_seconds; // (frames)
  std::vector<double> plan_returns;     // (frames) the plan's predicted return at each decision
  std::vector<double> plan_commands;    // (frames, horizon, nu) each decision's plan as commands
  std::vector<double> term_sums;        // executed reward terms (task order), summed over frames
  PlannerTimings timings;
};

// progress(frame) is called after each frame (for progress lines); may be empty.
TrialResult run_trial(Planner& planner, env::Backend& world, const PlanTask& task, const double* q0,
                      const double* v0, int frames, uint64_t seed, const SuccessRule& rule,
                      const std::function<void(int)>& progress = {});

// Median of per-decision seconds (the paper's "median planning time per decision").
double median_seconds(std::vector<double> seconds);

}  // namespace flashnerd::mpc
