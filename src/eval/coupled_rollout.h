// Coupled manipulation measurement (paper IV-D, docs/DESIGN.md §5): the same scripted hand
// commands run in (a) MuJoCo alone (the analytical reference), (b) two-way coupling with the
// learned free-dynamics model, (c) one-way coupling with the same model, and (d) two-way
// coupling with MuJoCo's own free dynamics (the oracle, which must match (a)). Reported over
// time: cube position and orientation error against (a), hand joint error against (a), the
// hand's deflection by the cube (two-way minus one-way), and steps per second of each mode.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "sim/robot.h"

namespace flashnerd::eval {

// The hand's scripted commands (coupled_rollout.cpp says what each does).
enum class HandMotion { Grasp, Push, Random };
// The one name table (grasp, push, random): couple's --motion, its reports and the choices an
// error lists.
extern const EnumName<HandMotion> kHandMotionNames[3];
HandMotion parse_hand_motion(const std::string& s);  // throws naming the choices
const char* hand_motion_name(HandMotion m);

struct CoupledOptions {
  int envs = 16;
  int steps = 240;      // 1 s at 240 Hz
  HandMotion motion = HandMotion::Random;
  uint64_t seed = 0;
  std::string object_body = "cube";
};

struct CoupledModeResult {
  std::string mode;                      // analytical | two-way | one-way | two-way oracle
  double steps_per_second = 0;           // environment steps per second (all envs)
  std::vector<double> cube_position_error;     // (steps) mean over envs, metres
  std::vector<double> cube_orientation_error;  // (steps) mean over envs, radians
  std::vector<double> hand_error;              // (steps) RMS joint angle error, radians
  std::vector<double> first_env_qpos;          // (steps, scene nq) environment 0, for renders
};

struct CoupledResult {
  std::vector<CoupledModeResult> modes;
  std::vector<double> hand_deflection;  // (steps) RMS two-way − one-way hand joints, radians
  double dt = 0;
};

// scene: robot + object (hand16); alone: the robot only (hand16_alone); model: a
// free_velocity model of that robot.
CoupledResult run_coupled_comparison(std::shared_ptr<const sim::Robot> scene,
                                     std::shared_ptr<const sim::Robot> alone,
                                     std::shared_ptr<const engine::Model> model,
                                     const CoupledOptions& options, ThreadPool& pool);

}  // namespace flashnerd::eval
