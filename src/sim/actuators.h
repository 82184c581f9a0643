// Actuators of any MJCF: what each one moves (through any transmission: joint, tendon, site,
// slider-crank, adhesion body), what kind it is, and the command range the data sampler
// draws from. The command is mjData.ctrl whatever the transmission; the learned model sees
// only that, so any transmission whose force acts on robot bodies alone is supported.
#pragma once

#include <string>
#include <vector>

#include <mujoco/mujoco.h>

namespace flashnerd::sim {

struct ActuatorInfo {
  int id = -1;                // mjModel actuator id
  std::string name;           // MJCF name, or "actuator N"
  std::string transmission;   // joint | tendon | site | slider-crank | adhesion body
  std::string kind;           // motor | position | position_pd | velocity | damper | muscle | adhesion | general
  std::string dynamics;       // none | integrator | filter | muscle | user (activation state when not none)
  double range[2] = {-1, 1};  // commands are drawn in [range[0], range[1]]
  std::string range_source;   // ctrlrange | joint 'NAME' range | tendon 'NAME' range | default
  bool clamp = false;         // AR(1) commands are clipped to range (false only for the default range)
};

// Appends the bodies a tendon's path runs through (joints' bodies, sites, wrapping geoms).
void tendon_bodies(const mjModel* m, int tendon, std::vector<int>& out);

// Moving bodies whose motion the actuator's force acts on directly, ascending and unique;
// bodies welded to the world are left out (their motion is fixed).
std::vector<int> actuator_bodies(const mjModel* m, int actuator);

// Kind, transmission, dynamics and command range of actuator `a`. Position-like actuators
// (fixed gain, bias -kp·length) without ctrlrange take their range from the driven joint or
// tendon range (scaled by the gear); an unlimited hinge uses ±unlimited_joint_range; what
// has no range at all keeps the default [-1, 1].
ActuatorInfo describe_actuator(const mjModel* m, int a, double unlimited_joint_range);

// The label of a set of actuators for the dataset's `actuator_model` attribute: their common
// kind, or "mixed (KIND, KIND...)".
std::string actuator_model_label(const std::vector<ActuatorInfo>& actuators);

// Throws flashnerd::Error when actuator `a` cannot be simulated as plain ctrl (user-defined
// dynamics, gain or bias need callbacks FlashNeRD does not install), naming the feature.
void check_actuator_supported(const mjModel* m, int a, const std::string& path);

}  // namespace flashnerd::sim
