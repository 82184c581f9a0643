#include "cli/robot_options.h"

#include "cli/option_values.h"

namespace flashnerd::cli {

void add_robot_override_options(CLI::App& sub, sim::RobotOverrides& o) {
  sub.add_option("--control-dt", o.control_timestep, "Control timestep in seconds (multiple of the physics step)")
      ->check(positive());
  add_enum_option(sub, "--command-process", o.command_process, names_of(sim::kCommandProcessNames),
                  "How commands are drawn (default: the robot's)");
  sub.add_option("--hold-steps", o.hold_steps, "Steps a command is held (hold)")->check(at_least(1));
  // a coefficient >= 1 makes the commands diverge
  sub.add_option("--ar1-coefficient", o.ar1_coefficient, "AR(1) coefficient (ar1)")->check(in_range_below(0, 1));
  sub.add_option("--ar1-amplitude", o.ar1_amplitude, "AR(1) amplitude around the nominal command (ar1)")
      ->check(at_least(0));
  sub.add_option("--robot-body", o.robot_body,
                 "The robot's body tree(s): the top body of each, comma-separated (default: the trees the "
                 "actuators move); other trees are simulated as unrecorded objects");
  sub.add_option("--contact-capacity", o.contact_capacity, "Contact rows kept per frame (K)")->check(at_least(0));
}

}  // namespace flashnerd::cli
