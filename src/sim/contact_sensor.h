// Sensing at arbitrary states of a dataset's trajectories (rollouts, benchmarks, the
// generator's margin detection): a private copy of the robot's model with the spec's contact
// margin applied and the trajectory's own scene (rebuilt from (seed, n) only when the
// trajectory changes), its own mjData and contact scratch. One per thread.
#pragma once

#include <cstdint>

#include <mujoco/mujoco.h>

#include "sim/contact_rows.h"
#include "sim/robot_world_collider.h"
#include "sim/robot.h"
#include "sim/scene.h"

namespace flashnerd::sim {

class ContactSensor {
 public:
  explicit ContactSensor(const Robot& robot);
  ~ContactSensor();
  ContactSensor(const ContactSensor&) = delete;
  ContactSensor& operator=(const ContactSensor&) = delete;

  // State (q, v) of trajectory n of a dataset generated with `seed`, in that trajectory's scene.
  void place(uint64_t seed, int64_t trajectory, const double* q, const double* v);
  // State (q, v) in the sensor's current scene (the model's own, or set_platform's).
  void set_state(const double* q, const double* v) { robot_->set_state(data_, q, v); }
  // A fixed platform for every later set_state (planning on one terrain).
  void set_platform(const Platform& platform);
  // Contact rows at the placed state (sim::detect_contact_rows, through the robot-vs-scene
  // collider where it applies).
  void detect(int capacity, ContactRowsOut& out);
  // mj_collision for every later detect (the reference the collider is measured against).
  void use_reference_detection(bool reference) { reference_ = reference; }
  bool fast_detection() const { return !reference_ && collider_.applies(); }
  // Positions only (mj_kinematics), for probe features.
  void kinematics();

  const mjModel* model() const { return model_; }
  const mjData* data() const { return data_; }

 private:
  const Robot* robot_;
  mjModel* model_;
  mjData* data_;
  ContactScratch scratch_;
  RobotWorldCollider collider_;
  bool reference_ = false;
  bool has_scene_ = false;
  uint64_t scene_seed_ = 0;
  int64_t scene_trajectory_ = -1;
};

}  // namespace flashnerd::sim
