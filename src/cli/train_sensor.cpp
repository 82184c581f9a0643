#include "cli/train_sensor.h"

#include "core/error.h"
#include "sim/robot_spec.h"

namespace flashnerd::cli {

MujocoStateSensor::MujocoStateSensor(const Dataset& data, const std::string& data_path) {
  FN_CHECK(data.generator.contains("spec"), data_path, " records no robot spec (an imported recording?): its "
           "probes and contacts cannot be sensed again at predicted states; train without --unroll and "
           "--input-noise, or on generated data");
  robot_ = sim::Robot::from_spec(sim::RobotSpec::from_json(data.generator.at("spec"), data_path));
  sensor_ = std::make_unique<sim::FrameSensor>(*robot_, data.seed, data.generator.value("climbing_probes", false));
}

int MujocoStateSensor::sense(int64_t trajectory, const double* q, const double* v, float* probes, int capacity,
                             float* rows, int32_t* links) {
  sim::ContactRowsOut out{rows, links, 0, 0};
  sensor_->sense(trajectory, q, v, probes, capacity, capacity > 0 ? &out : nullptr);
  return out.count;
}

}  // namespace flashnerd::cli
