// The command process's one name table: every name parses to its value and back, an unknown
// name is refused with the choices, and gen's override replaces the spec's process. The base
// kind: absent means detected from the model, a loaded robot's spec names it, a wrong name or
// a base the model contradicts is refused.
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

TEST(RobotSpec, BaseIsNamedDetectedAndChecked) {
  EXPECT_EQ(RobotSpec::from_json({{"name", "x"}}, "x.json").base, RobotBase::Detect);
  EXPECT_EQ(RobotSpec::from_json({{"base", "floating"}}, "x.json").base, RobotBase::Floating);
  EXPECT_EQ(RobotSpec::from_json({{"base", "floating"}}, "x.json").to_json().at("base"), "floating");
  EXPECT_EQ(RobotSpec::from_json({{"name", "x"}}, "x.json").to_json().at("base"), "");
  try {
    RobotSpec::from_json({{"base", "hovering"}}, "x.json");
    FAIL() << "base 'hovering' was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: 'base' must be fixed or floating, got 'hovering'"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Robot::load("cartpole")->spec().base, RobotBase::Fixed);
  EXPECT_EQ(Robot::load("quadruped")->spec().base, RobotBase::Floating);
}

}  // namespace
}  // namespace flashnerd::sim
