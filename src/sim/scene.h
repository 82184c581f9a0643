// Per-trajectory scenes: a robot whose spec randomizes its scene (a platform of random height
// and distance) gets a fresh draw for every trajectory from the first numbers of that
// trajectory's RNG stream (seed, n). The generator and every later consumer (rollouts that
// recompute probes or contacts at predicted states) rebuild the same scene from (seed, n).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "core/rng.h"
#include "sim/robot.h"

namespace flashnerd::sim {

// True when the robot's spec randomizes the scene (then workers need their own mjModel).
bool randomizes_scene(const Robot& robot);

// The drawn platform: top surface height and near-edge distance along +x (m).
struct Platform {
  double height = 0;
  double distance = 0;
};

// Applies the scene drawn from `rng` (which must be the trajectory's stream, untouched) to
// `model`, a private copy of robot.model(), and returns it. Draws nothing (and returns a
// zero platform) when the scene is not randomized.
Platform apply_scene(const Robot& robot, mjModel* model, Rng& rng);

// Puts the spec's platform at `platform` in `model` (a private copy of robot.model()); the
// robot's spec must define a platform.
void apply_platform(const Robot& robot, mjModel* model, const Platform& platform);

// A robot geom in contact with the platform and how deep it is in (m, ≥ 0; resting contact is
// about 0).
struct PlatformOverlap {
  double depth = 0;
  std::string geom;
};
// The robot geoms touching the spec's platform at `qpos`, deepest first, one entry per geom
// (MuJoCo's collision detection on a private model copy with `platform` applied).
std::vector<PlatformOverlap> platform_contacts(const Robot& robot, const Platform& platform, const double* qpos);
// The deepest of them, or depth 0 and no geom when the robot is clear of the platform.
PlatformOverlap platform_overlap(const Robot& robot, const Platform& platform, const double* qpos);

// Height of the ground surface under world x (the platform's top past its near edge, else 0).
inline double surface_height(const Platform& platform, double x) {
  return x >= platform.distance ? platform.height : 0.0;
}

// The scene of trajectory n of a dataset generated with `seed`.
Platform apply_trajectory_scene(const Robot& robot, mjModel* model, uint64_t seed, int64_t trajectory);

// Where a climbing trajectory starts relative to the platform (paper IV-C): on the ground
// before it, across its near edge, or on top.
enum class StartKind { Ground = 0, Edge = 1, Top = 2 };
constexpr int kStartKinds = 3;
const char* start_kind_name(StartKind k);

// Moves a sampled floating-base start (base position qpos[0..2], height above the surface
// under it) to `kind`: base x relative to the edge in [−1.0, −0.55] (ground), [−0.3, 0.3]
// (edge, lifted by the platform height) or [0.55, 1.4] (top, lifted likewise).
void place_start(const Platform& platform, StartKind kind, Rng& rng, double* base_pos);

// The kind of a base position: x − distance below −0.45 is ground, above 0.45 top, else edge
// (the sampled ranges of place_start classify as their own kind).
StartKind classify_start(const Platform& platform, const double* base_pos);

}  // namespace flashnerd::sim
