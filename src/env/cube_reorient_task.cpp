#include "env/cube_reorient_task.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_file.h"
#include "core/rotation.h"

namespace flashnerd::env {

using rot::quat_conj;
using rot::quat_mul;
using rot::quat_normalize;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A uniformly random rotation (Shoemake), or one about the vertical axis.
void random_rotation(Rng& rng, bool yaw_only, double q[4]) {
  if (yaw_only) {
    const double yaw = rng.uniform(-kPi, kPi);
    q[0] = std::cos(yaw / 2);
    q[1] = q[2] = 0;
    q[3] = std::sin(yaw / 2);
    return;
  }
  const double u1 = rng.uniform(), u2 = rng.uniform(0, 2 * kPi), u3 = rng.uniform(0, 2 * kPi);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  q[0] = b * std::cos(u3);
  q[1] = a * std::sin(u2);
  q[2] = a * std::cos(u2);
  q[3] = b * std::sin(u3);
}

}  // namespace

CubeReorientSettings CubeReorientSettings::load(const std::string& path, const std::string& variant) {
  const nlohmann::json all = read_json_file(path, "cube-reorient settings");
  if (!all.contains(variant) || !all[variant].is_object() || variant == "about") {
    std::string known;
    for (const auto& [key, value] : all.items())
      if (value.is_object()) known += (known.empty() ? "" : ", ") + key;
    throw Error(str_cat("cube-reorient settings '", path, "' have no variant '", variant, "'; variants: ", known));
  }
  const nlohmann::json& j = all[variant];
  CubeReorientSettings s;
  s.variant = variant;
  auto number = [&](const char* key, double& out) {
    FN_CHECK(j.contains(key) && j[key].is_number(), "cube-reorient settings '", path, "' (", variant,
             "): \"", key, "\" must be a number");
    out = j[key].get<double>();
  };
  number("policy_hz", s.policy_hz);
  number("episode_seconds", s.episode_seconds);
  number("success_tolerance", s.success_tolerance);
  number("action_smoothing", s.action_smoothing);
  number("distance_weight", s.distance_weight);
  number("rotation_weight", s.rotation_weight);
  number("rotation_epsilon", s.rotation_epsilon);
  number("action_weight", s.action_weight);
  number("success_bonus", s.success_bonus);
  number("drop_penalty", s.drop_penalty);
  number("drop_height", s.drop_height);
  number("drop_radius", s.drop_radius);
  number("hand_noise", s.hand_noise);
  number("cube_position_noise", s.cube_position_noise);
  const auto* targets =
      j.contains("targets") && j["targets"].is_string() ? find_enum(kCubeTargetsNames, j["targets"].get<std::string>())
                                                        : nullptr;
  FN_CHECK(targets, "cube-reorient settings '", path, "' (", variant, "): \"targets\" must be ",
           enum_choices(kCubeTargetsNames), ", got ", j.contains("targets") ? j["targets"].dump() : "nothing");
  s.targets = targets->value;
  if (s.targets == CubeTargets::YawSteps) {
    number("target_step", s.target_step);
    FN_CHECK(s.target_step > s.success_tolerance && s.target_step < kPi, "cube-reorient settings '", path, "' (",
             variant, "): target_step must lie between the tolerance and pi, got ", s.target_step);
  }
  FN_CHECK(s.policy_hz > 0 && s.episode_seconds > 0 && s.success_tolerance > 0 && s.action_smoothing > 0 &&
               s.action_smoothing <= 1 && s.rotation_epsilon > 0,
           "cube-reorient settings '", path, "' (", variant, "): rates, tolerance and epsilon must be positive, "
           "smoothing in (0, 1]");
  return s;
}

CubeReorientTask::CubeReorientTask(const sim::Robot& hand, CubeReorientSettings settings)
    : s_(std::move(settings)), step_targets_(s_.targets == CubeTargets::YawSteps),
      yaw_targets_(s_.targets == CubeTargets::Yaw) {
  const mjModel* m = hand.model();
  nj_ = hand.layout().nu;
  FN_CHECK(hand.layout().nq == nj_ && !hand.floating_base(), "cube-reorient: robot '", hand.name(),
           "' must be a fixed-base hand with one actuator per joint");
  FN_CHECK(m->nq == hand.layout().nq + 7, "cube-reorient: robot '", hand.name(),
           "' must carry one free object (the cube) after the hand; use hand16");
  const double steps = 1.0 / (s_.policy_hz * hand.control_timestep());
  control_steps_ = std::max(1, int(std::lround(steps)));
  FN_CHECK(std::fabs(steps - control_steps_) < 1e-6, "cube-reorient: policy_hz ", s_.policy_hz,
           " is not a whole number of the robot's ", 1.0 / hand.control_timestep(), " Hz control steps");
  episode_steps_ = int(std::lround(s_.episode_seconds * s_.policy_hz));
  for (int i = 0; i < nj_; ++i) {  // position targets span the actuators' control ranges
    lower_.push_back(m->actuator_ctrlrange[2 * i]);
    upper_.push_back(m->actuator_ctrlrange[2 * i + 1]);
  }
  home_q_ = hand.nominal_qpos();
  const int key = mj_name2id(m, mjOBJ_KEY, "home");
  const double* q0 = key >= 0 ? m->key_qpos + size_t(key) * size_t(m->nq) : m->qpos0;
  std::copy_n(q0 + nj_, 7, home_cube_.begin());
  // IsaacGymEnvs' per-step weights, as rates (the reward of an action is scale · value · dt)
  const double per_step = 1.0 / (hand.control_timestep() * control_steps_);
  // {name, scale per second, added after the clip, objective}
  terms_ = {{"distance", s_.distance_weight * per_step, false, true},
            {"rotation", s_.rotation_weight * per_step, false, true},
            {"action", s_.action_weight * per_step},
            {"success", s_.success_bonus * per_step, false, true},
            {"drop", s_.drop_penalty * per_step, true}};
}

int CubeReorientTask::observation_dim() const { return 3 * nj_ + 3 + 4 + 3 + 3 + 4 + 4; }

std::vector<std::pair<std::string, int>> CubeReorientTask::observation_terms() const {
  return {{"hand_joints", nj_},     {"hand_velocities", nj_}, {"cube_position", 3}, {"cube_quat", 4},
          {"cube_linear_velocity", 3}, {"cube_angular_velocity", 3}, {"target_quat", 4},
          {"cube_to_target_quat", 4}, {"last_action", nj_}};
}

void CubeReorientTask::allocate(int envs) {
  targets_.assign(size_t(envs) * 4, 0.0);
  last_u_.assign(size_t(envs) * size_t(nj_), 0.0);
  last_action_.assign(size_t(envs) * size_t(nj_), 0.0f);
  reached_.assign(size_t(envs), 0);
}

double CubeReorientTask::rotation_distance(const double a[4], const double b[4]) {
  double conj[4], diff[4];
  quat_conj(b, conj);
  quat_mul(a, conj, diff);
  const double s = std::sqrt(diff[1] * diff[1] + diff[2] * diff[2] + diff[3] * diff[3]);
  return 2 * std::asin(std::min(1.0, s));
}

bool CubeReorientTask::dropped(const double* cube_q) const {
  const double dx = cube_q[0] - home_cube_[0], dy = cube_q[1] - home_cube_[1], dz = cube_q[2] - home_cube_[2];
  return dz < -s_.drop_height || std::sqrt(dx * dx + dy * dy) > s_.drop_radius;
}

void CubeReorientTask::set_target(int env, const double quat[4]) { std::copy_n(quat, 4, targets_.begin() + 4 * env); }

void CubeReorientTask::draw_target(int env, Rng& rng) {
  random_rotation(rng, yaw_targets_, targets_.data() + 4 * size_t(env));
}

void CubeReorientTask::step_target(int env, const double from[4]) {
  // about the world's vertical: the step multiplies from the left
  const double step[4] = {std::cos(s_.target_step / 2), 0, 0, std::sin(s_.target_step / 2)};
  double next[4];
  quat_mul(step, from, next);
  quat_normalize(next);
  set_target(env, next);
}

void CubeReorientTask::reset(int env, Rng& rng, double* q, double* v) {
  for (int i = 0; i < nj_; ++i) {
    q[i] = std::clamp(home_q_[size_t(i)] + rng.uniform(-s_.hand_noise, s_.hand_noise), lower_[size_t(i)],
                      upper_[size_t(i)]);
    v[i] = 0;
    last_u_[size_t(env) * size_t(nj_) + size_t(i)] = q[i];  // the hand holds its start pose
  }
  std::fill_n(last_action_.begin() + long(env) * nj_, nj_, 0.0f);
  reached_[size_t(env)] = 0;
  draw_target(env, rng);
}

bool CubeReorientTask::reset_objects(int env, Rng& rng, double* q, double* v) {
  // resting on the palm as in the home keyframe, a random yaw, a few millimetres of noise
  q[0] = home_cube_[0] + rng.uniform(-s_.cube_position_noise, s_.cube_position_noise);
  q[1] = home_cube_[1] + rng.uniform(-s_.cube_position_noise, s_.cube_position_noise);
  q[2] = home_cube_[2];
  const double yaw = rng.uniform(-kPi, kPi);
  q[3] = std::cos(yaw / 2);
  q[4] = q[5] = 0;
  q[6] = std::sin(yaw / 2);
  std::fill_n(v, 6, 0.0);
  if (step_targets_) step_target(env, q + 3);  // the first target: one step from the start
  return true;
}

void CubeReorientTask::smoothed_targets(int env, const float* action, double* u) const {
  const double* last = last_u_.data() + size_t(env) * size_t(nj_);
  const double a = s_.action_smoothing;
  for (int i = 0; i < nj_; ++i) {
    const double x = std::clamp(double(action[i]), -1.0, 1.0);
    const double lo = lower_[size_t(i)], hi = upper_[size_t(i)];
    const double target = lo == -hi ? hi * x : 0.5 * (lo + hi) + 0.5 * (hi - lo) * x;
    u[i] = a * target + (1 - a) * last[i];
  }
}

void CubeReorientTask::command(int env, const float* action, double* u) const { smoothed_targets(env, action, u); }

bool CubeReorientTask::evaluate(int env, const Backend& b, const float* action, Rng& rng, double* terms) {
  smoothed_targets(env, action, last_u_.data() + size_t(env) * size_t(nj_));  // what command() sent
  for (int i = 0; i < nj_; ++i)  // the action as the hand took it: clamped to the bound
    last_action_[size_t(env) * size_t(nj_) + size_t(i)] = std::clamp(action[i], -1.0f, 1.0f);
  const double* cube = b.object_q(env);
  const double dx = cube[0] - home_cube_[0], dy = cube[1] - home_cube_[1], dz = cube[2] - home_cube_[2];
  double quat[4] = {cube[3], cube[4], cube[5], cube[6]};
  quat_normalize(quat);
  const double error = rotation_distance(quat, target(env));
  double action_sq = 0;
  for (int i = 0; i < nj_; ++i) action_sq += double(action[i]) * action[i];
  const bool success = error < s_.success_tolerance;
  const bool drop = dropped(cube);
  terms[0] = std::sqrt(dx * dx + dy * dy + dz * dz);
  terms[1] = 1.0 / (error + s_.rotation_epsilon);
  terms[2] = action_sq;
  terms[3] = success ? 1.0 : 0.0;
  terms[4] = drop ? 1.0 : 0.0;
  if (success) {  // reached: count it and set the next target at once
    ++reached_[size_t(env)];
    if (step_targets_)
      step_target(env, target(env));  // reads `from` whole before writing the target
    else
      draw_target(env, rng);
  }
  return drop;
}

void CubeReorientTask::observe(int env, const Backend& b, float* obs) const {
  const double* q = b.q(env);
  const double* v = b.v(env);
  const double* cube = b.object_q(env);
  const double* cube_v = b.object_v(env);
  float* o = obs;
  for (int i = 0; i < nj_; ++i)  // joints scaled to [-1, 1] over their ranges
    *o++ = float(2 * (q[i] - lower_[size_t(i)]) / (upper_[size_t(i)] - lower_[size_t(i)]) - 1);
  for (int i = 0; i < nj_; ++i) *o++ = float(0.2 * v[i]);
  for (int i = 0; i < 3; ++i) *o++ = float(cube[i] - home_cube_[size_t(i)]);
  double quat[4] = {cube[3], cube[4], cube[5], cube[6]};
  quat_normalize(quat);
  for (double x : quat) *o++ = float(x);
  for (int i = 0; i < 3; ++i) *o++ = float(cube_v[i]);
  for (int i = 3; i < 6; ++i) *o++ = float(0.2 * cube_v[i]);
  const double* t = target(env);
  for (int i = 0; i < 4; ++i) *o++ = float(t[i]);
  double conj[4], diff[4];
  quat_conj(t, conj);
  quat_mul(quat, conj, diff);
  for (double x : diff) *o++ = float(x);
  for (int i = 0; i < nj_; ++i) *o++ = last_action_[size_t(env) * size_t(nj_) + size_t(i)];
}

void CubeReorientTask::io_state(StateIo& io) {
  io.io(targets_);
  io.io(last_u_);
  io.io(last_action_);
  io.io(reached_);
}

TaskDescription CubeReorientTask::describe() const {
  TaskDescription d;
  const std::string targets = s_.targets == CubeTargets::Any   ? "uniformly random orientations"
                              : s_.targets == CubeTargets::Yaw ? "random rotations about the vertical"
                                                    : str_cat("each ", s_.target_step,
                                                              " rad further counter-clockwise about the vertical");
  d.summary = str_cat("Turn a cube in the hand to a target orientation (IsaacGymEnvs' AllegroHand terms; settings \"",
                      s_.variant, "\" of robots/tasks/cube_reorient.json): a ", s_.policy_hz, " Hz policy, ",
                      control_steps_, " control steps per action. Targets are ", targets, "; one is reached when the "
                      "rotation error is below ", s_.success_tolerance, " rad, and the next is set at once.");
  d.observation = {{"hand_joints", "joint angles scaled to [−1, 1] over their ranges"},
                   {"hand_velocities", "joint velocities (rad/s) × 0.2"},
                   {"cube_position", "cube position minus its resting spot on the palm (m)"},
                   {"cube_quat", "cube orientation, unit quaternion (w, x, y, z)"},
                   {"cube_linear_velocity", "cube linear velocity (m/s)"},
                   {"cube_angular_velocity", "cube angular velocity (rad/s) × 0.2"},
                   {"target_quat", "target orientation (w, x, y, z)"},
                   {"cube_to_target_quat", "cube ⊗ target⁻¹: the rotation left to do"},
                   {"last_action", "the previous action"}};
  d.action = str_cat("one joint-position target per actuator: a ∈ [−1, 1] (clamped) maps linearly onto the actuator's "
                     "control range, smoothed as ", s_.action_smoothing, " · new + ", 1 - s_.action_smoothing,
                     " · previous, held over the ", control_steps_, " control steps");
  d.reward = {{"distance", "the cube's distance from its resting spot (m)"},
              {"rotation", str_cat("1 / (rotation error + ", s_.rotation_epsilon, "), error in rad")},
              {"action", "Σ a², the squared action"},
              {"success", "1 when the target is reached"},
              {"drop", "1 when the cube is dropped; added after the negative-reward clip"}};
  d.termination = str_cat("the cube is dropped: more than ", s_.drop_height, " m below its resting height, or more than ",
                          s_.drop_radius, " m from its resting spot horizontally");
  d.reset = str_cat("the hand at its home pose, each joint ± ", s_.hand_noise, " rad (within range), at rest; the cube "
                    "resting on the palm at a random yaw, ± ", s_.cube_position_noise, " m; a new target");
  return d;
}

}  // namespace flashnerd::env
