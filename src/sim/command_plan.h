// Start states and commands for the generator to replay instead of drawing them (gen
// --policy: the commands a policy sent in MuJoCo). Trajectory n starts at the robot state
// (qpos[n], qvel[n]) and receives ctrl[n][0..T-1]; the generator records what MuJoCo does
// with them: states, probes, contact rows, exactly as for random commands.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace flashnerd::sim {

struct CommandPlan {
  int64_t trajectories = 0;   // N
  int steps = 0;              // T control steps per trajectory
  std::vector<double> qpos;   // (N, nq) the robot's start states
  std::vector<double> qvel;   // (N, nv)
  std::vector<double> ctrl;   // (N, T, nu)
  nlohmann::json source = nlohmann::json::object();  // provenance, kept in the dataset's generator block
};

}  // namespace flashnerd::sim
