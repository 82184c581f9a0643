// Swing-up for the cartpole (the classic sampling-MPC check): pole upright (cos of the hinge
// angle, 0 = up), cart near the centre, little spin and little force. Actions are forces in
// units of half the actuator's range.
#pragma once

#include "mpc/action_map.h"
#include "mpc/plan_task.h"

namespace flashnerd::mpc {

class CartpoleSwingupTask : public PlanTask {
 public:
  explicit CartpoleSwingupTask(const sim::Robot& robot);
  std::string name() const override { return "swingup"; }
  int action_dim() const override { return actions_.size(); }
  const std::vector<env::RewardTerm>& reward_terms() const override { return terms_; }
  void command(const double* action, double* u) const override { actions_.command(action, u); }
  double reward(const env::Backend& backend, int env, const double* action, const double* previous_action,
                double* terms) const override;

 private:
  ActionMap actions_;
  std::vector<env::RewardTerm> terms_;
};

}  // namespace flashnerd::mpc
