// Prefix-averaged rollout NRMSE (docs/DESIGN.md §6):
//   NRMSE(H) = sqrt( mean over trajectories n, steps h = 1..H, channels c of (e_nhc / σ_c)² )
// with e the StateCodec's channel error (orientation: rotation vector of the error rotation)
// and σ_c the training-state standard deviation of channel c. Diverged trajectories are
// excluded and counted. Per-group RMSEs are in physical units (m, rad, joint units).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/dataset.h"
#include "eval/rollout.h"

namespace flashnerd::eval {

struct HorizonErrors {
  int horizon = 0;
  double nrmse = 0;
  std::map<std::string, double> group_rmse;  // channel_group_name -> RMSE (physical units)
};

struct RolloutErrors {
  int64_t trajectories = 0;  // evaluated (not diverged)
  int64_t diverged = 0;
  std::vector<HorizonErrors> horizons;
  // Per-step NRMSE (not prefix-averaged), h = 1..H, for plots.
  std::vector<double> step_nrmse;
};

// channel_std: σ_c (channel_dim); horizons must each be <= result.horizon.
RolloutErrors rollout_errors(const Dataset& data, const RolloutResult& result,
                             const std::vector<double>& channel_std, const std::vector<int>& horizons);

// σ_c of the state channels over the given trajectories' valid frames (the training split).
std::vector<double> state_channel_std(const Dataset& data, const std::vector<int64_t>& trajectories);

}  // namespace flashnerd::eval
