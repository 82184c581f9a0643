// What the simulator senses at a state of a dataset trajectory, in that trajectory's own scene:
// fixed-probe features and contact rows. Recursive rollouts (eval) and training on the
// model's own states sense predicted states through this one class. One per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/contact_rows.h"
#include "sim/contact_sensor.h"
#include "sim/robot.h"

namespace flashnerd::sim {

class FrameSensor {
 public:
  // data_seed: the dataset's generator seed (scenes are rebuilt from (seed, trajectory));
  // climbing_probes: the probe set the dataset recorded.
  FrameSensor(const Robot& robot, uint64_t data_seed, bool climbing_probes);

  int probe_count() const { return int(probes_->size()); }

  // State (q, v) of `trajectory`. probes: probe_count() × kProbeFeatureDim floats, or null for
  // none. contacts: rows up to out->rows' capacity `capacity`, or null (positions only).
  void sense(int64_t trajectory, const double* q, const double* v, float* probes, int capacity,
             ContactRowsOut* contacts);

 private:
  const Robot* robot_;
  uint64_t data_seed_;
  const std::vector<ResolvedProbe>* probes_;
  ContactSensor sensor_;
};

}  // namespace flashnerd::sim
