#include "env/cartpole_balance_task.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace flashnerd::env {

namespace {
constexpr double kPoleLimit = 0.4;  // rad from upright
constexpr double kCartLimit = 2.4;  // m
constexpr double kStartNoise = 0.05;
}  // namespace

CartpoleBalanceTask::CartpoleBalanceTask(const sim::Robot& robot) {
  terms_ = {{"alive", 1.0 / robot.control_timestep(), false, true}};  // 1 per step
  const StateLayout& s = robot.layout();
  FN_CHECK(!s.floating_base && s.nq == 2 && s.nv == 2 && s.nu == 1, "task cartpole-balance needs the cartpole ",
           "(a slider, a hinge and one force); robot '", robot.name(), "' has nq ", s.nq, ", nu ", s.nu);
  const mjModel* m = robot.model();
  force_limit_ = m->actuator_ctrllimited[0] ? m->actuator_ctrlrange[1] : 1.0;
}

std::vector<std::pair<std::string, int>> CartpoleBalanceTask::observation_terms() const {
  return {{"cart_position", 1}, {"pole_sin", 1}, {"pole_cos", 1}, {"cart_velocity", 1}, {"pole_velocity", 1}};
}

void CartpoleBalanceTask::reset(int, Rng& rng, double* q, double* v) {
  for (int i = 0; i < 2; ++i) {
    q[i] = rng.uniform(-kStartNoise, kStartNoise);
    v[i] = rng.uniform(-kStartNoise, kStartNoise);
  }
}

void CartpoleBalanceTask::command(int, const float* action, double* u) const {
  u[0] = force_limit_ * std::clamp(double(action[0]), -1.0, 1.0);
}

bool CartpoleBalanceTask::evaluate(int env, const Backend& b, const float*, Rng&, double* terms) {
  terms[0] = 1.0;
  const double* q = b.q(env);
  const double pole = std::remainder(q[1], 2 * M_PI);
  return std::fabs(pole) > kPoleLimit || std::fabs(q[0]) > kCartLimit;
}

void CartpoleBalanceTask::observe(int env, const Backend& b, float* obs) const {
  const double* q = b.q(env);
  const double* v = b.v(env);
  obs[0] = float(q[0]);
  obs[1] = float(std::sin(q[1]));
  obs[2] = float(std::cos(q[1]));
  obs[3] = float(v[0]);
  obs[4] = float(v[1]);
}

TaskDescription CartpoleBalanceTask::describe() const {
  TaskDescription d;
  d.summary = str_cat("Balance the pole of the cartpole: keep it within ", kPoleLimit, " rad of upright and the cart within ",
                      kCartLimit, " m of the rail's centre (the limits of Gym's CartPole-v1).");
  d.observation = {{"cart_position", "cart position x on the rail (m), 0 at the centre"},
                   {"pole_sin", "sin θ, θ the pole angle (rad), 0 upright"},
                   {"pole_cos", "cos θ: 1 upright, −1 hanging"},
                   {"cart_velocity", "cart velocity ẋ (m/s)"},
                   {"pole_velocity", "pole angular velocity θ̇ (rad/s)"}};
  d.action = str_cat("the cart force as a fraction of the actuator's limit: a ∈ [−1, 1] (clamped) pushes with a · ",
                     force_limit_, " N");
  d.reward = {{"alive", "1 while the episode runs"}};
  d.termination = str_cat("|θ| > ", kPoleLimit, " rad (θ wrapped to (−π, π]) or |x| > ", kCartLimit, " m");
  d.reset = str_cat("upright at rest, x, θ, ẋ and θ̇ each uniform in ±", kStartNoise);
  return d;
}

}  // namespace flashnerd::env
