// CartPole balance (Barto, Sutton & Anderson 1983; Gym's CartPole-v1 limits): keep the pole
// within 0.4 rad of upright and the cart within 2.4 m for 200 control steps (3.3 s at 60 Hz),
// reward 1 per step alive. The action in [-1, 1] scales the cart force to the actuator's
// ctrlrange. Small and fast: the CI-sized PPO test learns it in seconds.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "env/task.h"

namespace flashnerd::env {

class CartpoleBalanceTask : public Task {
 public:
  explicit CartpoleBalanceTask(const sim::Robot& robot);
  std::string name() const override { return "cartpole-balance"; }
  int observation_dim() const override { return 5; }
  int action_dim() const override { return 1; }
  double action_bound() const override { return 1.0; }
  int episode_steps() const override { return 200; }
  std::vector<std::pair<std::string, int>> observation_terms() const override;
  TaskDescription describe() const override;

  void allocate(int) override {}
  void reset(int env, Rng& rng, double* q, double* v) override;
  void command(int env, const float* action, double* u) const override;
  bool evaluate(int env, const Backend& backend, const float* action, Rng& rng, double* terms) override;
  void observe(int env, const Backend& backend, float* obs) const override;
  void io_state(StateIo&) override {}

 private:
  double force_limit_;
};

}  // namespace flashnerd::env
