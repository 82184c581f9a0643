// Does an ensemble know where it is wrong? Teacher-forced on held-out trajectories (recorded
// states, commands, probes and contact rows), every member predicts each frame's increment
// from the recorded history. Per frame, from R−1 on while the trajectory is valid: the
// members' disagreement (core/ensemble_stats.h, as the learned backend reports it) and the
// one-step error of their mean prediction, sqrt(mean over state channels of (e_c / σ_c)²)
// with the StateCodec's channel error and the training-state σ_c. Their Spearman rank
// correlation says how well disagreement orders states by error.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dataset.h"
#include "eval/rollout.h"

namespace flashnerd::eval {

struct EnsembleCalibration {
  std::vector<double> disagreement;  // (frames)
  std::vector<double> error;         // (frames) of the members' mean prediction
  std::vector<double> member_error;  // (members, frames) each member's own one-step error
  double spearman = 0;               // rank correlation of disagreement and error
};

// members: the ensemble's step models (equal widths and history); target_std: the first
// member's (the disagreement's units); channel_std: σ_c.
EnsembleCalibration ensemble_calibration(const std::vector<StepModel*>& members, const float* target_std,
                                         const std::vector<double>& channel_std, const Dataset& data,
                                         const std::vector<int64_t>& trajectories, int batch);

// Spearman's rank correlation (ties get their mean rank); NaN with fewer than 2 values.
double spearman_correlation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace flashnerd::eval
