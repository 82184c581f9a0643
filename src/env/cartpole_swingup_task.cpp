#include "env/cartpole_swingup_task.h"

#include <cmath>

namespace flashnerd::env {

namespace {
constexpr double kCartLimit = 2.4;   // m
constexpr double kStartNoise = 0.1;  // rad, m and their rates around hanging at rest
}  // namespace

// The Control Suite's tolerance with bounds [0, 0]: a Gaussian that is 0.1 one margin away.
double gaussian_tolerance(double x, double margin) {
  static const double scale = std::sqrt(-2 * std::log(0.1));
  if (x == 0) return 1.0;
  const double scaled = (x < 0 ? -x : x) / margin * scale;
  return std::exp(-0.5 * scaled * scaled);
}

// ... and a quadratic that is 0 one margin away.
double quadratic_tolerance(double x, double margin) {
  if (x == 0) return 1.0;
  const double scaled = (x < 0 ? -x : x) / margin * std::sqrt(1.0);
  return scaled < 1 ? 1 - scaled * scaled : 0.0;
}

// upright · centred · small control · small spin, each factor floor + (1 − floor)·value
double swingup_reward(const double* q, const double* v, double action) {
  double r = 1.0;
  r *= 0.5 + (1 - 0.5) * std::cos(q[1]);
  r *= 0.5 + (1 - 0.5) * gaussian_tolerance(q[0], 2.0);
  r *= 0.8 + (1 - 0.8) * quadratic_tolerance(action, 1.0);
  r *= 0.5 + (1 - 0.5) * gaussian_tolerance(v[1], 5.0);
  return r;
}

CartpoleSwingupTask::CartpoleSwingupTask(const sim::Robot& robot) : CartpoleBalanceTask(robot) {
  terms_ = {{"swingup", 1.0 / robot.control_timestep(), false, true}};  // scales are per second
}

void CartpoleSwingupTask::reset(int, Rng& rng, double* q, double* v) {
  q[0] = rng.uniform(-kStartNoise, kStartNoise);
  q[1] = M_PI + rng.uniform(-kStartNoise, kStartNoise);
  v[0] = rng.uniform(-kStartNoise, kStartNoise);
  v[1] = rng.uniform(-kStartNoise, kStartNoise);
}

bool CartpoleSwingupTask::evaluate(int env, const Backend& b, const float* action, Rng&, double* terms) {
  const double* q = b.q(env);
  terms[0] = swingup_reward(q, b.v(env), double(action[0]));
  return std::fabs(q[0]) > kCartLimit;
}

TaskDescription CartpoleSwingupTask::describe() const {
  TaskDescription d = CartpoleBalanceTask::describe();
  d.summary = "Swing the pole of the cartpole up from hanging and hold it upright with the cart near the centre "
              "(the DeepMind Control Suite's cartpole-swingup, with its reward): the policy needs the model over the whole circle of "
              "pole angles.";
  d.reward = {{"swingup", "the Control Suite's swing-up reward, in [0, 1] per step: (1 + cos θ)/2 · (1 + tol(x, 2 m))/2 · "
                          "(4 + tolq(a, 1))/5 · (1 + tol(θ̇, 5 rad/s))/2, tol a Gaussian that is 0.1 one margin away, tolq "
                          "1 − (a/1)² clipped at 0, a the action before the clamp to ±1"}};
  d.termination = str_cat("|x| > ", kCartLimit, " m (the pole may be at any angle)");
  d.reset = str_cat("hanging at rest: θ = π, and x, θ, ẋ and θ̇ each uniform in ±", kStartNoise, " around it");
  return d;
}

}  // namespace flashnerd::env
