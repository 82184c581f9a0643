// Swing-up for the cartpole (the classic sampling-MPC check), a shaped sum per step: upright
// cos θ (θ = 0 up), minus 0.1·x² (centred), 0.01·θ̇² (spin) and 0.01·a² (effort). A planner
// sums it over a short horizon, where a sum of smooth terms ranks samples better than the RL
// task's product of tolerances. Actions are forces in units of half the actuator's range.
#pragma once

#include "sim/robot.h"
#include "mpc/plan_task.h"

namespace flashnerd::mpc {

class CartpoleSwingupTask : public PlanTask {
 public:
  explicit CartpoleSwingupTask(const sim::Robot& robot);
  double reward(const env::Backend& backend, int env, const double* action, const double* previous_action,
                double* terms) const override;
};

}  // namespace flashnerd::mpc
