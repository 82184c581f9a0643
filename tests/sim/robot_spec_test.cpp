// The command process's one name table: every name parses to its value and back, an unknown
// name is refused with the choices, and gen's override replaces the spec's process.
#include "sim/robot_spec.h"

#include <gtest/gtest.h>

#include "sim/robot.h"
#include "testing/enum_names_checks.h"

namespace flashnerd::sim {
namespace {

TEST(RobotSpec, CommandProcessNamesRoundTrip) {
  flashnerd::testing::expect_enum_names(kCommandProcessNames, parse_command_process, command_process_name,
                                        "brownian", "unknown command process 'brownian': expected uniform, hold or ar1");
}

TEST(RobotSpec, CommandProcessOverrideReplacesTheSpecs) {
  RobotOverrides o;
  const CommandProcess spec = Robot::load("cartpole", o)->spec().command.process;
  o.command_process = spec == CommandProcess::AR1 ? CommandProcess::Hold : CommandProcess::AR1;
  EXPECT_EQ(Robot::load("cartpole", o)->spec().command.process, *o.command_process);
}

}  // namespace
}  // namespace flashnerd::sim
