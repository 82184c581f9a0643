// Per-trajectory scenes: a robot whose spec randomizes its scene (a platform of random height
// and distance) gets a fresh draw for every trajectory from the first numbers of that
// trajectory's RNG stream (seed, n). The generator and every later consumer (rollouts that
// recompute probes or contacts at predicted states) rebuild the same scene from (seed, n).
#pragma once

#include <cstdint>

#include <mujoco/mujoco.h>

#include "core/rng.h"
#include "sim/robot.h"

namespace flashnerd::sim {

// True when the robot's spec randomizes the scene (then workers need their own mjModel).
bool randomizes_scene(const Robot& robot);

// Applies the scene drawn from `rng` (which must be the trajectory's stream, untouched) to
// `model`, a private copy of robot.model(). Draws nothing when the scene is not randomized.
void apply_scene(const Robot& robot, mjModel* model, Rng& rng);

// The scene of trajectory n of a dataset generated with `seed`.
void apply_trajectory_scene(const Robot& robot, mjModel* model, uint64_t seed, int64_t trajectory);

}  // namespace flashnerd::sim
