// Normalized actions to actuator commands: command = centre + scale · action, clamped to
// the actuator's ctrlrange. The centre is the robot's nominal command (the home pose's
// joint targets for position actuators, zero force for motors).
#pragma once

#include <vector>

#include "sim/robot.h"

namespace flashnerd::mpc {

class ActionMap {
 public:
  // scale > 0: that many command units per action unit for every actuator; scale <= 0: half
  // of each actuator's ctrlrange (which must then be limited).
  ActionMap(const sim::Robot& robot, double scale);
  int size() const { return int(centre_.size()); }
  void command(const double* action, double* u) const;

 private:
  std::vector<double> centre_, scale_, lo_, hi_;
};

}  // namespace flashnerd::mpc
