// Teacher-forced one-step error (paper IV-C logs the one-step base-position increment RMSE):
// the model reads recorded frames only — recorded states, commands, probe features and
// contact rows — and each prediction is decoded against the recorded state it started from.
// Counted from frame R−1 on (a full history) while every transition since frame 0 is valid.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dataset.h"
#include "eval/rollout.h"

namespace flashnerd::eval {

struct OneStepErrors {
  std::vector<int64_t> source;       // (N) trajectory index in the dataset
  std::vector<double> base_sq_sum;   // (N) Σ |p̂_{t+1} − p_{t+1}|² of the base position (m²)
  std::vector<int64_t> count;        // (N) predictions counted
  int joints = 0;                    // hinge and slide coordinates after the free joint (nq − 7)
  std::vector<double> joint_sq_sum;  // (N, joints) Σ (q̂ − q)² of each joint coordinate
  // RMSE (mm) over the given rows of source (all rows when empty).
  double base_rmse_mm(const std::vector<size_t>& rows = {}) const;
  // RMSE of each joint coordinate (rad or m) over the given rows (all when empty).
  std::vector<double> joint_rmse(const std::vector<size_t>& rows = {}) const;
};

// Needs a floating base; a contact model needs the dataset's rows at its capacity.
OneStepErrors one_step_errors(StepModel& model, const Dataset& data,
                              const std::vector<int64_t>& trajectories, int batch);

}  // namespace flashnerd::eval
