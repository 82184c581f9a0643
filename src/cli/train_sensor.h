// MuJoCo's detector behind the trainer's StateSensor: probes and contact rows at the states
// that training on the model's own predictions (--unroll) or on perturbed states
// (--input-noise) reaches, in each dataset trajectory's own scene.
#pragma once

#include <memory>
#include <string>

#include "core/dataset.h"
#include "sim/frame_sensor.h"
#include "sim/robot.h"
#include "train/state_sensor.h"

namespace flashnerd::cli {

class MujocoStateSensor : public train::StateSensor {
 public:
  // data_path names the dataset in errors (its generator record holds the robot spec).
  MujocoStateSensor(const Dataset& data, const std::string& data_path);

  int sense(int64_t trajectory, const double* q, const double* v, float* probes, int capacity, float* rows,
            int32_t* links) override;

 private:
  std::shared_ptr<const sim::Robot> robot_;
  std::unique_ptr<sim::FrameSensor> sensor_;
};

}  // namespace flashnerd::cli
