#include "sim/frame_sensor.h"

#include "sim/probe_features.h"

namespace flashnerd::sim {

FrameSensor::FrameSensor(const Robot& robot, uint64_t data_seed, bool climbing_probes)
    : robot_(&robot), data_seed_(data_seed), probes_(&robot.probes(climbing_probes)), sensor_(robot) {}

void FrameSensor::sense(int64_t trajectory, const double* q, const double* v, float* probes, int capacity,
                        ContactRowsOut* contacts) {
  sensor_.place(data_seed_, trajectory, q, v);
  if (contacts && capacity > 0) {
    sensor_.detect(capacity, *contacts);
  } else {
    sensor_.kinematics();
  }
  if (probes)
    build_probe_features(*robot_, sensor_.model(), sensor_.data(), *probes_, robot_->spec().probe_threshold, probes);
}

}  // namespace flashnerd::sim
