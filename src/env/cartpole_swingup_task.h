// CartPole swing-up (the DeepMind Control Suite's cartpole-swingup, on this cartpole, with its
// reward): the pole starts hanging, the policy must swing it up and hold it upright with the
// cart near the centre, in 300 control steps (5 s at 60 Hz). Per step, in [0, 1]: upright
// (1 + cos θ)/2 (θ = 0 up) times centred, small-control and small-spin factors. The episode
// ends early when the cart leaves ±2.4 m; since no step's reward is negative, leaving early
// only forfeits reward. Needs the model over the whole circle of pole angles, which is what
// makes it a test of the learned simulator.
#pragma once

#include <vector>

#include "env/cartpole_balance_task.h"

namespace flashnerd::env {

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
