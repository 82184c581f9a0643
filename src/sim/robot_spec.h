// RobotSpec: what a robot's MJCF does not say — control timestep, actuator model, command
// process, state sampling ranges, fixed probes, contact capacity. Read from the JSON file
// beside a built-in robot's MJCF (robots/NAME.json, docs/ROBOTS.md); for any other MJCF the
// defaults below apply and the command line overrides them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/enum_names.h"

namespace flashnerd::sim {

// How a trajectory's commands are drawn (sim/samplers.h): uniform in the ctrlrange at every
// step, held for hold_steps, or an AR(1) process around the nominal command.
enum class CommandProcess { Uniform, Hold, AR1 };
// The one name table (uniform, hold, ar1): the spec file's "process", gen's --command-process
// and the choices an error lists.
extern const EnumName<CommandProcess> kCommandProcessNames[3];
CommandProcess parse_command_process(const std::string& s);  // throws naming the choices
const char* command_process_name(CommandProcess p);

// How the robot meets the world: a fixed base, or a floating one (a free root joint). Detect:
// the spec does not say; the model decides (a loaded Robot's spec always says).
enum class RobotBase { Detect, Fixed, Floating };
// The one name table of the spec file's "base" (fixed, floating; absent or "" for Detect).
extern const EnumName<RobotBase> kRobotBaseNames[2];

struct ProbeSpec {
  std::string body;
  std::array<double, 3> pos{0, 0, 0};  // in the body frame
  double radius = 0;                   // subtracted from the signed distance
};

struct PlatformSpec {
  std::string geom;                         // box geom whose size/position is randomized
  std::array<double, 2> height{0.15, 0.193};  // top surface height (m)
  std::array<double, 2> distance{0.3, 1.0};   // near edge along +x from the origin (m)
};

struct CommandSpec {
  CommandProcess process = CommandProcess::Uniform;
  int hold_steps = 1;
  double ar1_coefficient = 0.9;
  double ar1_amplitude = 0.6;  // actuator units (rad for position targets)
  std::string nominal;         // keyframe name, or empty: middle of ctrlrange
  std::vector<double> nominal_values;  // or explicit values, one per actuator
};

struct StateSpec {
  std::string nominal;            // keyframe name; empty = qpos0
  double nominal_fraction = 0.0;  // share of states perturbed around the nominal pose
  double nominal_perturbation = 0.3;
  double unlimited_joint_range = 3.141592653589793;
  double qvel_uniform = 2.0;
  double qvel_gaussian_std = 1.0;
  double qvel_uniform_fraction = 0.5;
  std::array<double, 2> base_height{0.5, 1.0};
  double base_xy = 0.0;
  double base_tilt = 0.4;
  double base_linear_velocity_std = 0.5;
  double base_angular_velocity_std = 1.0;
  // Initial states whose robot penetrates geometry deeper than this (m) are fixed: a
  // floating base is lifted, a fixed base is resampled. Negative: accept every state.
  double max_initial_penetration = -1;
};

struct RobotSpec {
  std::string name;
  std::string stands_for;
  std::string mjcf;                // file name relative to the spec, or an absolute path
  RobotBase base = RobotBase::Detect;
  double control_timestep = 0;     // 0 = the MJCF's physics timestep (one substep)
  std::string actuator_model;      // motor | position_pd | ...; empty: from the actuators (sim/actuators.h)
  // Tops of the robot's body trees, comma-separated (gen --robot-body); empty: the body trees
  // the actuators move.
  std::string robot_root_body;
  CommandSpec command;
  StateSpec state;
  int trajectory_steps = 100;
  std::vector<ProbeSpec> probes;
  std::vector<ProbeSpec> climbing_probes;
  double probe_threshold = 0.1;
  int contact_capacity = 64;
  // Contact rows include pairs closer than this (m; positive gaps), like a detector with a
  // contact margin: a model sees a foot about to land, as fixed probes within their threshold
  // do. Detection only: the simulated physics keeps the MJCF's own margins.
  double contact_margin = 0;
  std::optional<PlatformSpec> platform;
  std::string free_dynamics_mjcf;  // robot without objects, for free-dynamics targets
  // How pictures look at the robot (degrees; default: from the side, 15° above). A hand
  // holding a cube is seen from above, where the cube's turn shows.
  struct CameraSpec {
    double azimuth = 90, elevation = -15;
  };
  std::optional<CameraSpec> camera;

  // Reads a spec file; relative mjcf paths are resolved against its directory.
  static RobotSpec load(const std::string& json_path);
  static RobotSpec from_json(const nlohmann::json& j, const std::string& origin);
  nlohmann::json to_json() const;
};

// Directory of the built-in robots: the FLASHNERD_ROBOTS env var, else share/flashnerd/robots
// in the nearest ancestor of the executable (or Python module): the build tree's copy, made by
// every build, or an installed prefix's; else the configured install prefix's. Never the source
// tree a binary was compiled from. Specs record a built-in robot's files as
// "$FLASHNERD_ROBOTS/NAME.xml".
std::string robots_directory();
// Names of the built-in robots (spec files in robots_directory()).
std::vector<std::string> builtin_robot_names();

}  // namespace flashnerd::sim
