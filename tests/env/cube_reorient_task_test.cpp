// Cube reorientation on hand16 with scripted cube states: a reached target is counted and
// replaced at once (drawn at random, or one step further about the vertical for 'rotate'), a
// dropped cube ends the episode, the settings file holds every variant, and a VecEnv runs the
// 30 Hz policy over 240 Hz control steps.
#include "env/cube_reorient_task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/rotation.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/vec_env.h"
#include "sim/robot_spec.h"

namespace flashnerd::env {
namespace {

const std::string kSettings = sim::robots_directory() + "/tasks/cube_reorient.json";

struct Fixture {
  std::shared_ptr<const sim::Robot> hand = sim::Robot::load("hand16");
  ThreadPool pool{1};
  MujocoBackend backend{hand, 1, pool};
  CubeReorientTask task;
  Rng rng{3};
  std::vector<double> q = std::vector<double>(16), v = std::vector<double>(16), cube = std::vector<double>(7),
                      cube_v = std::vector<double>(6, 0.0);
  std::vector<float> action = std::vector<float>(16, 0.0f);
  std::vector<double> terms = std::vector<double>(5);

  explicit Fixture(const std::string& variant = "reduced")
      : task(*hand, CubeReorientSettings::load(kSettings, variant)) {
    task.allocate(1);
    task.reset(0, rng, q.data(), v.data());
    backend.reset(0, q.data(), v.data());
    EXPECT_TRUE(task.reset_objects(0, rng, cube.data(), cube_v.data()));
    backend.set_objects(0, cube.data(), cube_v.data());
  }
  // The cube at `pos` with orientation `quat`, then one evaluation.
  bool place_and_evaluate(const double pos[3], const double quat[4]) {
    double c[7] = {pos[0], pos[1], pos[2], quat[0], quat[1], quat[2], quat[3]};
    backend.set_objects(0, c, cube_v.data());
    return task.evaluate(0, backend, action.data(), rng, terms.data());
  }
};

TEST(CubeReorientTask, SettingsFileHoldsBothVariants) {
  const auto paper = CubeReorientSettings::load(kSettings, "paper");
  const auto reduced = CubeReorientSettings::load(kSettings, "reduced");
  EXPECT_EQ(paper.targets, CubeTargets::Any);
  EXPECT_EQ(reduced.targets, CubeTargets::Yaw);
  EXPECT_DOUBLE_EQ(paper.success_tolerance, 0.2);
  EXPECT_GT(reduced.success_tolerance, paper.success_tolerance);
  EXPECT_EQ(paper.policy_hz, reduced.policy_hz);
  EXPECT_EQ(paper.success_bonus, reduced.success_bonus);
  EXPECT_THROW(CubeReorientSettings::load(kSettings, "easy"), Error);
  EXPECT_THROW(CubeReorientSettings::load(kSettings, "about"), Error);
  EXPECT_THROW(CubeReorientSettings::load("/nonexistent.json", "paper"), Error);
  // 'rotate' differs from 'reduced' only in how targets follow each other
  const auto rotate = CubeReorientSettings::load(kSettings, "rotate");
  EXPECT_EQ(rotate.targets, CubeTargets::YawSteps);
  EXPECT_GT(rotate.target_step, rotate.success_tolerance);
  EXPECT_EQ(rotate.success_tolerance, reduced.success_tolerance);
  EXPECT_EQ(rotate.episode_seconds, reduced.episode_seconds);
  EXPECT_EQ(rotate.rotation_weight, reduced.rotation_weight);
  EXPECT_EQ(rotate.distance_weight, reduced.distance_weight);
  EXPECT_EQ(rotate.action_smoothing, reduced.action_smoothing);
}

// A settings file with one variant whose targets are yaw-steps and `extra` appended.
std::string write_steps_settings(const std::string& extra) {
  const auto path = std::filesystem::temp_directory_path() / "fn_cube_steps_settings.json";
  std::ofstream(path) << R"({"v": {"policy_hz": 30, "episode_seconds": 10, "targets": "yaw-steps",
    "success_tolerance": 0.4, "action_smoothing": 0.8, "distance_weight": -10, "rotation_weight": 1,
    "rotation_epsilon": 0.1, "action_weight": -0.0002, "success_bonus": 250, "drop_penalty": 0,
    "drop_height": 0.05, "drop_radius": 0.1, "hand_noise": 0.1, "cube_position_noise": 0.005)"
                      << extra << "}}";
  return path.string();
}

TEST(CubeReorientTask, StepTargetsNeedAStepBetweenTheToleranceAndPi) {
  EXPECT_THROW(CubeReorientSettings::load(write_steps_settings(""), "v"), Error) << "no target_step";
  EXPECT_THROW(CubeReorientSettings::load(write_steps_settings(R"(, "target_step": 0.3)"), "v"), Error);
  EXPECT_THROW(CubeReorientSettings::load(write_steps_settings(R"(, "target_step": 3.2)"), "v"), Error);
  EXPECT_DOUBLE_EQ(CubeReorientSettings::load(write_steps_settings(R"(, "target_step": 1)"), "v").target_step, 1.0);
}

// The rotation taking `from` to `to`, as the yaw angle of a rotation about the vertical
// (the test fails if it has any other component).
double yaw_between(const double from[4], const double to[4]) {
  double conj[4], diff[4];
  rot::quat_conj(from, conj);
  rot::quat_mul(to, conj, diff);
  EXPECT_NEAR(std::hypot(diff[1], diff[2]), 0.0, 1e-12);
  return 2 * std::atan2(diff[3], diff[0]);
}

TEST(CubeReorientTask, RotateTargetsStepCounterClockwiseFromTheStart) {
  Fixture f("rotate");
  const double step = f.task.settings().target_step;
  const double* home = f.cube.data();
  const double start[4] = {f.cube[3], f.cube[4], f.cube[5], f.cube[6]};
  const std::vector<double> first(f.task.target(0), f.task.target(0) + 4);
  EXPECT_NEAR(yaw_between(start, first.data()), step, 1e-12) << "the first target: one step from the start";
  // turned the other way by a step: twice the step from the target, not reached
  double back[4], minus[4] = {std::cos(-step / 2), 0, 0, std::sin(-step / 2)};
  rot::quat_mul(minus, start, back);
  EXPECT_FALSE(f.place_and_evaluate(home, back));
  EXPECT_EQ(f.task.reached(0), 0);
  // at the target: counted, and the next one is a further step counter-clockwise
  EXPECT_FALSE(f.place_and_evaluate(home, first.data()));
  EXPECT_EQ(f.task.reached(0), 1);
  EXPECT_NEAR(yaw_between(first.data(), f.task.target(0)), step, 1e-12);
  const std::vector<double> second(f.task.target(0), f.task.target(0) + 4);
  EXPECT_FALSE(f.place_and_evaluate(home, second.data()));
  EXPECT_EQ(f.task.reached(0), 2);
  EXPECT_NEAR(yaw_between(second.data(), f.task.target(0)), step, 1e-12);
}

TEST(CubeReorientTask, AReachedTargetIsCountedAndReplaced) {
  Fixture f;
  EXPECT_EQ(f.task.control_steps(), 8);  // 30 Hz over 240 Hz
  EXPECT_EQ(f.task.episode_steps(), 300);
  const double* home = f.cube.data();
  const std::vector<double> target(f.task.target(0), f.task.target(0) + 4);
  EXPECT_NEAR(std::hypot(target[1], target[2]), 0.0, 1e-12) << "reduced targets turn about the vertical only";
  // 1 rad away from the target about the vertical: not reached
  const double half = 0.5;
  double off[4], about_z[4] = {std::cos(half), 0, 0, std::sin(half)};
  rot::quat_mul(about_z, target.data(), off);
  EXPECT_FALSE(f.place_and_evaluate(home, off));
  EXPECT_EQ(f.terms[3], 0.0);
  EXPECT_NEAR(1.0 / f.terms[1] - 0.1, 1.0, 1e-9) << "the rotation term reads the 1 rad error";
  EXPECT_EQ(f.task.reached(0), 0);
  // exactly at the target: counted, and a new target drawn at once
  EXPECT_FALSE(f.place_and_evaluate(home, target.data()));
  EXPECT_EQ(f.terms[3], 1.0);
  EXPECT_EQ(f.task.reached(0), 1);
  EXPECT_GT(CubeReorientTask::rotation_distance(f.task.target(0), target.data()), 1e-6);
}

TEST(CubeReorientTask, ADroppedCubeEndsTheEpisode) {
  Fixture f;
  const double quat[4] = {1, 0, 0, 0};
  const double resting[3] = {f.cube[0], f.cube[1], f.cube[2]};
  EXPECT_FALSE(f.place_and_evaluate(resting, quat));
  EXPECT_EQ(f.terms[4], 0.0);
  const double fallen[3] = {f.cube[0], f.cube[1], f.cube[2] - 0.06};
  EXPECT_TRUE(f.place_and_evaluate(fallen, quat));
  EXPECT_EQ(f.terms[4], 1.0);
  const double aside[3] = {f.cube[0] + 0.11, f.cube[1], f.cube[2]};
  EXPECT_TRUE(f.place_and_evaluate(aside, quat));
  const double nudged[3] = {f.cube[0] + 0.02, f.cube[1] - 0.02, f.cube[2] - 0.01};
  EXPECT_FALSE(f.place_and_evaluate(nudged, quat));
}

TEST(CubeReorientTask, VecEnvRunsThePolicyAtItsOwnRate) {
  auto hand = sim::Robot::load("hand16");
  ThreadPool pool(2);
  MujocoBackend backend(hand, 4, pool);
  auto task = make_task("cube-reorient-reduced", *hand);
  VecEnv env(*task, backend, pool, 7);
  env.reset_all();
  EXPECT_EQ(env.observation_dim(), 69);
  EXPECT_EQ(env.action_dim(), 16);
  std::vector<float> actions(size_t(4 * 16));
  Rng rng(1);
  for (int t = 0; t < 20; ++t) {
    for (auto& a : actions) a = float(rng.uniform(-1, 1));
    env.step(actions.data());
  }
  EXPECT_EQ(backend.timings().env_steps, int64_t(20) * 8 * 4) << "8 control steps per action";
  for (int e = 0; e < 4; ++e) EXPECT_FALSE(backend.failed(e));
  // the cube starts on the palm: its observed position is near the resting spot
  EXPECT_LT(std::fabs(env.observations()[32]), 0.1);
}

}  // namespace
}  // namespace flashnerd::env
