#include "sim/contact_sensor.h"

#include <cstring>

#include "sim/scene.h"

namespace flashnerd::sim {

ContactSensor::ContactSensor(const Robot& robot)
    : robot_(&robot),
      model_(robot.copy_model()),
      data_(mj_makeData(model_)),
      collider_(robot, model_) {  // its pairs follow affinities and bodies; margins are read at each call
  apply_contact_margin(robot, model_);  // detection only: probes ignore geom margins
}

ContactSensor::~ContactSensor() {
  mj_deleteData(data_);
  mj_deleteModel(model_);
}

void ContactSensor::place(uint64_t seed, int64_t trajectory, const double* q, const double* v) {
  if (randomizes_scene(*robot_) && !(has_scene_ && seed == scene_seed_ && trajectory == scene_trajectory_)) {
    apply_trajectory_scene(*robot_, model_, seed, trajectory);
    has_scene_ = true;
    scene_seed_ = seed;
    scene_trajectory_ = trajectory;
  }
  robot_->set_state(data_, q, v);
}

void ContactSensor::set_platform(const Platform& platform) {
  apply_platform(*robot_, model_, platform);
  has_scene_ = false;  // place() rebuilds a trajectory's scene again when asked for one
}

void ContactSensor::detect(int capacity, ContactRowsOut& out) {
  detect_contact_rows(*robot_, model_, data_, capacity, scratch_, out, reference_ ? nullptr : &collider_);
}

void ContactSensor::kinematics() { mj_kinematics(model_, data_); }

}  // namespace flashnerd::sim
