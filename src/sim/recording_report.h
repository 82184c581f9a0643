// What a dataset records of a model, and what it leaves out: the robot's bodies, DoFs,
// actuators, activation states and equality constraints against the whole MJCF, with one
// warning for each part that is simulated but not recorded (free objects, other body trees,
// uncommanded actuators, couplings of the robot to unrecorded bodies) and one note for each
// command range not taken from a ctrlrange. `flashnerd gen` prints it before generating.
#pragma once

#include <string>
#include <vector>

#include "sim/robot.h"

namespace flashnerd::sim {

struct RecordingReport {
  // recorded (the robot) / in the whole model; bodies exclude the world
  int bodies = 0, bodies_total = 0;
  int nq = 0, nq_total = 0;
  int nv = 0, nv_total = 0;
  int actuators = 0, actuators_total = 0;
  int activations = 0, activations_total = 0;  // actuator activation states (mjModel na)
  int activations_recorded = 0;                 // those in the recorded state (dataset `act`)
  int equalities = 0, equalities_total = 0;     // equality constraints among robot bodies only
  std::vector<std::string> notes;     // how command ranges were chosen when not from ctrlrange
  std::vector<std::string> warnings;  // one per part of the model left out of the data
};

RecordingReport describe_recording(const Robot& robot);

}  // namespace flashnerd::sim
