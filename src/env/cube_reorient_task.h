// In-hand cube reorientation on hand16 (paper IV-D), with IsaacGymEnvs' AllegroHand terms:
// a 30 Hz policy over 240 Hz physics (8 control steps per action), 10 s episodes. A target
// orientation counts as reached when the cube's rotation error is below the tolerance; a new
// random target is then drawn at once. A cube that leaves the palm (below its resting height
// by drop_height, or farther than drop_radius from its resting spot) ends the episode.
// Actions are joint-position targets in [-1, 1] mapped onto the joint ranges and smoothed
// (exponential moving average), sent to the hand's PD actuators: the commands of the
// free-dynamics data. Settings come from robots/tasks/cube_reorient.json (variants "paper",
// "reduced", "rotate"): the same code runs every variant.
#pragma once

#include <array>
#include <string>

#include "core/enum_names.h"
#include "env/task.h"

namespace flashnerd::env {

// How targets are drawn: uniform rotations, uniform about the vertical, or each target
// target_step further counter-clockwise about the vertical than the last (the first one
// target_step from the cube's start: in-hand rotation in one direction).
enum class CubeTargets { Any, Yaw, YawSteps };
inline constexpr EnumName<CubeTargets> kCubeTargetsNames[] = {
    {CubeTargets::Any, "any"}, {CubeTargets::Yaw, "yaw"}, {CubeTargets::YawSteps, "yaw-steps"}};

struct CubeReorientSettings {
  std::string variant = "paper";  // a key of the settings file: the task is named after it
  double policy_hz = 30, episode_seconds = 10;
  CubeTargets targets = CubeTargets::Any;
  double target_step = 0;  // rad, yaw-steps only
  double success_tolerance = 0.2;  // rad
  double action_smoothing = 0.8;   // new target = a·action target + (1 − a)·previous
  double distance_weight = -10, rotation_weight = 1, rotation_epsilon = 0.1, action_weight = -0.0002;
  double success_bonus = 250, drop_penalty = 0;
  double drop_height = 0.05, drop_radius = 0.1;  // m
  double hand_noise = 0.1, cube_position_noise = 0.005;
  // `variant` of the settings file ("paper", "reduced", ...); throws naming a missing key.
  static CubeReorientSettings load(const std::string& path, const std::string& variant);
};

class CubeReorientTask : public Task {
 public:
  CubeReorientTask(const sim::Robot& hand, CubeReorientSettings settings);
  // "cube-reorient" (the paper's protocol) or "cube-reorient-VARIANT"
  std::string name() const override { return s_.variant == "paper" ? "cube-reorient" : "cube-reorient-" + s_.variant; }
  int observation_dim() const override;
  int action_dim() const override { return nj_; }
  double action_bound() const override { return 1.0; }
  int episode_steps() const override { return episode_steps_; }
  int control_steps() const override { return control_steps_; }
  std::vector<std::pair<std::string, int>> observation_terms() const override;
  TaskDescription describe() const override;
  const CubeReorientSettings& settings() const { return s_; }

  void allocate(int envs) override;
  void reset(int env, Rng& rng, double* q, double* v) override;
  bool reset_objects(int env, Rng& rng, double* q, double* v) override;
  void command(int env, const float* action, double* u) const override;
  bool evaluate(int env, const Backend& backend, const float* action, Rng& rng, double* terms) override;
  void observe(int env, const Backend& backend, float* obs) const override;
  void io_state(StateIo& io) override;

  // Rotation angle (rad) between two unit quaternions (w, x, y, z).
  static double rotation_distance(const double a[4], const double b[4]);
  // env's current target (w, x, y, z), and the targets it reached this episode.
  const double* target(int env) const { return targets_.data() + 4 * size_t(env); }
  int reached(int env) const { return reached_[size_t(env)]; }
  void set_target(int env, const double quat[4]);
  // Whether the cube at (position) has left the palm.
  bool dropped(const double* cube_q) const;

 private:
  void draw_target(int env, Rng& rng);
  void step_target(int env, const double from[4]);  // yaw-steps: target_step beyond `from`
  void smoothed_targets(int env, const float* action, double* u) const;

  CubeReorientSettings s_;
  bool step_targets_ = false, yaw_targets_ = false;  // s_.targets, parsed once
  int nj_ = 0, episode_steps_ = 0, control_steps_ = 1;
  std::vector<double> lower_, upper_, home_q_;
  std::array<double, 7> home_cube_{};
  std::vector<double> targets_, last_u_;  // (envs, 4), (envs, nj)
  std::vector<float> last_action_;        // (envs, nj)
  std::vector<int> reached_;
};

}  // namespace flashnerd::env
