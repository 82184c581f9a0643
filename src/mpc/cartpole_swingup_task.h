// Swing-up for the cartpole (the classic sampling-MPC check): pole upright (cos of the hinge
// angle, 0 = up), cart near the centre, little spin and little force, per step with the
// weights of the swing-up RL task (env::cartpole_swingup_terms). Actions are forces in units
// of half the actuator's range.
#pragma once

#include "env/cartpole_swingup_task.h"
#include "mpc/plan_task.h"

namespace flashnerd::mpc {

class CartpoleSwingupTask : public PlanTask {
 public:
  explicit CartpoleSwingupTask(const sim::Robot& robot);
  double reward(const env::Backend& backend, int env, const double* action, const double* previous_action,
                double* terms) const override;
};

}  // namespace flashnerd::mpc
