// Configs of small random learned models shaped for a robot (env::random_robot_model_config
// with the tiny preset), optionally predicting free velocities (coupling) instead of increments.
#pragma once

#include <string>

#include "env/factory.h"

namespace flashnerd::testing {

inline ModelConfig robot_model_config(const sim::Robot& robot, Arch arch,
                                      PredictionTarget target = PredictionTarget::Increment, bool probes = false) {
  ModelConfig c = env::random_robot_model_config(robot, arch, ModelPreset::Tiny, probes);
  if (target == PredictionTarget::FreeVelocity) {
    c.target = target;
    c.output_dim = c.layout.nv;
    c.norm.target_mean.assign(size_t(c.output_dim), 0.0f);
    c.norm.target_std.assign(size_t(c.output_dim), 1e-3f);
  }
  return c;
}

// A random FlashNeRD reading the detector's contact rows (the robot's contact capacity).
inline ModelConfig contact_model_config(const sim::Robot& robot) {
  ModelConfig c = env::random_robot_model_config(robot, Arch::FlashNeRD, ModelPreset::Tiny, false);
  c.contact.capacity = robot.spec().contact_capacity;
  c.contact.slots = 4;
  c.contact.link_count = robot.link_count();
  c.contact.link_embed = 4;
  c.contact.row_hidden = 16;
  c.contact.row_width = 8;
  c.norm.contact_mean.assign(kContactRowDim, 0.0f);
  c.norm.contact_std.assign(kContactRowDim, 1.0f);
  c.validate();
  return c;
}

}  // namespace flashnerd::testing
