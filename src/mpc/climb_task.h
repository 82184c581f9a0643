// Climbing onto a platform (paper IV-C) for the ANYmal-like quadruped_platform: reward terms
// for walking toward and over the platform's near edge, keeping the base at standing height
// above the surface under it, upright and heading straight, putting feet on top, and smooth
// actions; a fall (base low over its surface or tipped over) costs every step. Actions are
// joint-position targets around the home pose (ActionMap). The paper's success criterion
// is here too: a frame climbs when the base is 0.12 m past the edge, 0.45 m above the
// platform's top and upright (body-up z ≥ 0.85); a trial succeeds after 8 such frames in a row.
#pragma once

#include "mpc/plan_task.h"
#include "sim/scene.h"

namespace flashnerd::mpc {

struct ClimbOptions {
  double action_scale = 0.8;     // rad of joint target per action unit
  double target_past_edge = 0.5; // m: where the base should go, past the near edge
  double stand_height = 0.55;    // m: base height above the surface under it
  double fall_height = 0.3;      // m above the surface: below this the robot has fallen
  double fall_up_z = 0.5;        // body-up z below this: tipped over
  // success (the paper's criterion)
  double success_past_edge = 0.12;
  double success_above_top = 0.45;
  double success_up_z = 0.85;
  int success_frames = 8;
};

class ClimbTask : public PlanTask {
 public:
  ClimbTask(const sim::Robot& robot, const ClimbOptions& options = {});
  double reward(const env::Backend& backend, int env, const double* action, const double* previous_action,
                double* terms) const override;

  void set_platform(const sim::Platform& platform) { platform_ = platform; }
  const sim::Platform& platform() const { return platform_; }
  const ClimbOptions& options() const { return o_; }
  // Whether robot state q (floating base first) meets the success criterion in one frame.
  bool climbed(const double* q) const;

 private:
  ClimbOptions o_;
  int feet_;
  sim::Platform platform_{0.17, 0.6};
};

// Body-up vector's world z of a floating base with quaternion (w, x, y, z).
inline double up_z(const double* quat) { return 1.0 - 2.0 * (quat[1] * quat[1] + quat[2] * quat[2]); }

}  // namespace flashnerd::mpc
