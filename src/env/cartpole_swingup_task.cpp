#include "env/cartpole_swingup_task.h"

#include <cmath>

namespace flashnerd::env {

namespace {
constexpr double kCartLimit = 2.4;   // m
constexpr double kStartNoise = 0.1;  // rad, m and their rates around hanging at rest
}  // namespace

std::vector<RewardTerm> cartpole_swingup_terms(double per_step) {
  return {{"upright", per_step, false, true}, {"centred", -0.1 * per_step}, {"spin", -0.01 * per_step},
          {"effort", -0.01 * per_step}};
}

void cartpole_swingup_values(const double* q, const double* v, double action, double* values) {
  values[0] = std::cos(q[1]);
  values[1] = q[0] * q[0];
  values[2] = v[1] * v[1];
  values[3] = action * action;
}

CartpoleSwingupTask::CartpoleSwingupTask(const sim::Robot& robot) : CartpoleBalanceTask(robot) {
  terms_ = cartpole_swingup_terms(1.0 / robot.control_timestep());  // scales are per second
}

void CartpoleSwingupTask::reset(int, Rng& rng, double* q, double* v) {
  q[0] = rng.uniform(-kStartNoise, kStartNoise);
  q[1] = M_PI + rng.uniform(-kStartNoise, kStartNoise);
  v[0] = rng.uniform(-kStartNoise, kStartNoise);
  v[1] = rng.uniform(-kStartNoise, kStartNoise);
}

bool CartpoleSwingupTask::evaluate(int env, const Backend& b, const float* action, Rng&, double* terms) {
  const double* q = b.q(env);
  cartpole_swingup_values(q, b.v(env), double(action[0]), terms);
  return std::fabs(q[0]) > kCartLimit;
}

TaskDescription CartpoleSwingupTask::describe() const {
  TaskDescription d = CartpoleBalanceTask::describe();
  d.summary = "Swing the pole of the cartpole up from hanging and hold it upright with the cart near the centre "
              "(the DeepMind Control Suite's cartpole-swingup): the policy needs the model over the whole circle of "
              "pole angles.";
  d.reward = {{"upright", "cos θ: 1 upright, −1 hanging"},
              {"centred", "x², the cart's squared distance from the centre (m²)"},
              {"spin", "θ̇², the pole's squared angular velocity ((rad/s)²)"},
              {"effort", "a², the squared action as the policy gives it, before the clamp to ±1: an action beyond the bound costs more and pushes no harder"}};
  d.termination = str_cat("|x| > ", kCartLimit, " m (the pole may be at any angle)");
  d.reset = str_cat("hanging at rest: θ = π, and x, θ, ẋ and θ̇ each uniform in ±", kStartNoise, " around it");
  return d;
}

}  // namespace flashnerd::env
