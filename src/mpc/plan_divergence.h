// Where a trial's plans part from MuJoCo. At every decision the plan's commands over its
// horizon are rolled out twice from the executed state: by the planning model, which starts
// from the executed history as the planner's tracker did, and by MuJoCo. The gap between the
// two base positions is the error the plan was built on. The model's one-step error along
// the executed trajectory (the tracker's prediction of each frame) is measured the same way.
#pragma once

#include <vector>

#include "env/backend.h"
#include "mpc/trial.h"

namespace flashnerd::mpc {

// Positions compared: a floating base's position (3), else the whole qpos of a fixed robot.
struct PlanDivergence {
  int decisions = 0, horizon = 0, dims = 0;
  std::vector<double> model_position, mujoco_position;  // (decisions, horizon, dims) after each step
  std::vector<double> gap;             // (decisions, horizon) |model − MuJoCo| position (m for a base)
  std::vector<double> one_step_error;  // (decisions) position error of the model's step from the executed frame
  // The first decision whose plan parts from MuJoCo by more than the threshold within its
  // horizon, the step at which it does, and MuJoCo's full state there; −1 when none does.
  int first_decision = -1, first_step = -1;
  std::vector<double> first_qpos;
};

// `model` is the planning backend and `mujoco` a MuJoCo backend of the same robot and scene;
// each needs at least one environment and is reset here. threshold: the gap that counts as parting.
PlanDivergence measure_plan_divergence(env::Backend& model, env::Backend& mujoco, const TrialResult& trial,
                                       int horizon, bool floating_base, double threshold);

}  // namespace flashnerd::mpc
