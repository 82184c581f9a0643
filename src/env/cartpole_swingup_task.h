// CartPole swing-up (the DeepMind Control Suite's cartpole-swingup, on this cartpole): the pole
// starts hanging, the policy must swing it up and hold it upright with the cart near the
// centre, in 300 control steps (5 s at 60 Hz). Per step: upright cos(θ) (θ = 0 up), minus
// 0.1·x² (centred), 0.01·θ̇² (spin) and 0.01·a² (effort), the terms of the swing-up planning
// task. The episode ends early when the cart leaves ±2.4 m. Needs the model over the whole
// circle of pole angles, which is what makes it a test of the learned simulator.
#pragma once

#include <vector>

#include "env/cartpole_balance_task.h"

namespace flashnerd::env {

// The swing-up reward, this task's and the swing-up planning task's: its terms (upright,
// centred, spin, effort) weighted per_step · (1, −0.1, −0.01, −0.01), and their unscaled
// values after a step to (q, v) under the action.
std::vector<RewardTerm> cartpole_swingup_terms(double per_step);
void cartpole_swingup_values(const double* q, const double* v, double action, double* values);

class CartpoleSwingupTask : public CartpoleBalanceTask {
 public:
  explicit CartpoleSwingupTask(const sim::Robot& robot);
  std::string name() const override { return "cartpole-swingup"; }
  int episode_steps() const override { return 300; }
  TaskDescription describe() const override;

  void reset(int env, Rng& rng, double* q, double* v) override;
  bool evaluate(int env, const Backend& backend, const float* action, Rng& rng, double* terms) override;
};

}  // namespace flashnerd::env
