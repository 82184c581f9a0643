// The robot spec fields a command line may override (gen, fit): control timestep, command
// process and its parameters, the robot's body trees, the contact capacity.
#pragma once

#include <CLI/CLI.hpp>

#include "sim/robot.h"

namespace flashnerd::cli {

void add_robot_override_options(CLI::App& sub, sim::RobotOverrides& o);

}  // namespace flashnerd::cli
