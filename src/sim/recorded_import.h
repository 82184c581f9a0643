// Recorded robot trajectories into the dataset schema `train` and `finetune` read, without
// MuJoCo in the loop of the recording: provenance from the robot, probe features and contact
// rows computed by MuJoCo's detector at the recorded states (as eval does).
//
// import_recorded_log maps a log's columns onto the robot's state layout by name:
//   time                          seconds, strictly increasing
//   q/<joint>, v/<joint>          every joint coordinate (layout.joint_names)
//   u/<actuator>                  every commanded actuator (MJCF names)
//   base/x y z qw qx qy qz        floating base pose (world), quaternion w x y z
//   base/vx vy vz wx wy wz        floating base velocity: linear world, angular body frame
//   a/<actuator>                  activations, for actuators with dynamics (layout.na)
// resamples it to the control step (core/log_resample.h), cuts each gap-free segment into
// trajectories of `steps` transitions (the last one padded and masked) and marks transitions
// with missing (NaN) values invalid. Columns of the q/, v/, u/, a/ or base/ families that
// name nothing of the robot are refused (a mislabelled log); other columns are listed as ignored.
#pragma once

#include <string>
#include <vector>

#include "core/dataset.h"
#include "core/log_resample.h"
#include "core/recorded_log.h"
#include "sim/robot.h"

namespace flashnerd::sim {

// The log columns import expects for `robot`, per channel in layout order (q includes the
// base pose, v the base velocity).
struct LogColumns {
  std::vector<std::string> q, v, u, a;
};
LogColumns log_columns(const Robot& robot);

// Provenance and layout of `robot`, arrays allocated for n x steps, probes (its probe set)
// and contact rows (its contact capacity) when asked.
Dataset recorded_dataset(const Robot& robot, int64_t n, int64_t steps, bool probes, bool contacts,
                         const nlohmann::json& source);
// Probe features and contact rows of every frame, at the recorded states.
void sense_recorded_states(const Robot& robot, Dataset& d);

struct ImportOptions {
  int steps = 100;             // transitions per trajectory
  bool probes = true;
  bool contacts = false;
  double max_jitter = 0.5;     // core/log_resample.h
  double gap_factor = 3.0;
  // Plausibility: a transition is masked when a joint leaves its range, a command its
  // ctrlrange (both by more than `range_margin` of the range's width) or a velocity exceeds
  // `max_velocity` (rad/s or m/s): a sensor glitch must not become training data. A
  // coordinate without a range (an unlimited joint, the base position, a command without a
  // ctrlrange) is implausible beyond ±max_unbounded (rad, m or the command's unit).
  double range_margin = 0.1;
  double max_velocity = 100.0;
  double max_unbounded = 1e4;
};

struct ImportReport {
  int64_t rows = 0;
  double duration = 0;         // s, first to last timestamp
  double median_step = 0;      // s
  int64_t segments = 0, gaps = 0;
  int64_t valid_transitions = 0, invalid_transitions = 0;
  int64_t implausible_transitions = 0;  // masked by the plausibility bounds (among the invalid)
  std::string first_implausible;        // its column and value, for the summary
  std::vector<std::string> ignored_columns;
};

Dataset import_recorded_log(const Robot& robot, const RecordedLog& log, const std::string& origin,
                            const ImportOptions& o, ImportReport* report);

}  // namespace flashnerd::sim
