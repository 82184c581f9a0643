// The shape of a robot's state as the learned model sees it: generalized coordinates q (nq),
// velocities v (nv), actuator activations a (na), commands (nu), and whether the root is a
// free joint (floating base). Activations (mjData.act of the robot's actuators with dynamics:
// integrator, filter, muscle) are state: without them the data is not Markov. na = 0 for
// robots without actuator dynamics and for files written before it existed.
// Built from an mjModel by sim/, stored in the model artifact, used by the codec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace flashnerd {

struct StateLayout {
  int nq = 0;                 // generalized coordinates (free joint: 3 position + 4 quaternion)
  int nv = 0;                 // generalized velocities (free joint: 3 linear world + 3 angular local)
  int na = 0;                 // actuator activations (JSON: written only when > 0)
  int nu = 0;                 // commands per frame
  bool floating_base = false; // q[0:7], v[0:6] belong to a free root joint
  // Per joint coordinate after the free joint (size nq - 7 or nq): 1 for an unbounded hinge,
  // whose angle is wrapped to [-π, π) in features, increments and errors.
  std::vector<uint8_t> joint_wrapped;
  std::vector<std::string> joint_names;  // per joint coordinate, for tables and plots

  // Coordinates of the free root joint in q (position, quaternion) and in v (linear, angular);
  // the joints' follow. In channels the base also takes 6 (position, rotation vector).
  int base_nq() const { return floating_base ? 7 : 0; }
  int base_nv() const { return floating_base ? 6 : 0; }
  int joint_count() const { return nq - base_nq(); }
  // Throws flashnerd::Error naming the inconsistent field.
  void validate() const;
  bool operator==(const StateLayout& o) const;
};

void to_json(nlohmann::json& j, const StateLayout& s);
void from_json(const nlohmann::json& j, StateLayout& s);

}  // namespace flashnerd
