// Configs of small random learned models shaped for a robot (its state layout, control step,
// MJCF hash and, optionally, its fixed probes), with outputs scaled down so predicted states
// stay sane over a few dozen steps. For tests that run models on robots.
#pragma once

#include <string>

#include "core/contact_row.h"
#include "core/model_config.h"
#include "core/state_codec.h"
#include "sim/robot.h"

namespace flashnerd::testing {

inline ModelConfig robot_model_config(const sim::Robot& robot, Arch arch, const std::string& target = "increment",
                                      bool probes = false) {
  ModelConfig c;
  c.arch = arch;
  c.robot = robot.name();
  c.mjcf_hash = robot.mjcf_hash();
  c.timestep = robot.control_timestep();
  c.layout = robot.layout();
  StateCodec codec(c.layout);
  c.state_dim = codec.feature_dim();
  c.probe_dim = probes ? int(robot.probes().size()) * kProbeFeatureDim : 0;
  c.input_dim = c.state_dim + c.layout.nu + c.probe_dim;
  c.target = target;
  c.output_dim = target == "free_velocity" ? c.layout.nv : codec.increment_dim();
  apply_preset("tiny", c);
  // a tiny random model's raw outputs are O(1) per step; scale them down so states stay sane
  for (int i = 0; i < c.output_dim; ++i) {
    c.norm.target_mean.push_back(0.0f);
    c.norm.target_std.push_back(1e-3f);
  }
  for (int i = 0; i < c.input_dim; ++i) {
    c.norm.input_mean.push_back(0.0f);
    c.norm.input_std.push_back(1.0f);
  }
  return c;
}

}  // namespace flashnerd::testing
