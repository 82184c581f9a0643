// Cube reorientation on hand16 (robots/tasks/cube-reorient*.json) with scripted cube states: a
// reached target is counted and replaced at once (drawn at random, or one step further about the
// vertical for 'rotate'), a dropped cube ends the episode, the variants differ only in their
// targets, and a VecEnv runs the 30 Hz policy over 240 Hz control steps.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "core/json_file.h"
#include "core/rotation.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/spec_task.h"
#include "env/vec_env.h"

namespace flashnerd::env {
namespace {

constexpr int kSuccess = 3, kDrop = 4;  // reward terms: distance, rotation, action, success, drop

struct Fixture {
  std::shared_ptr<const sim::Robot> hand = sim::Robot::load("hand16");
  ThreadPool pool{1};
  MujocoBackend backend{hand, 1, pool};
  std::unique_ptr<SpecTask> task;
  Rng rng{3};
  std::vector<double> q = std::vector<double>(16), v = std::vector<double>(16), cube = std::vector<double>(7),
                      cube_v = std::vector<double>(6, 0.0);
  std::vector<float> action = std::vector<float>(16, 0.0f);
  std::vector<double> terms = std::vector<double>(5);
  int reached = 0;

  explicit Fixture(const std::string& task_name = "cube-reorient-reduced")
      : task(SpecTask::load(task_spec_path(task_name), *hand)) {
    EXPECT_EQ(task->reward_terms()[kSuccess].name, "success");
    EXPECT_EQ(task->reward_terms()[kDrop].name, "drop");
    task->allocate(1);
    task->reset(0, rng, q.data(), v.data());
    backend.reset(0, q.data(), v.data());
    EXPECT_TRUE(task->reset_objects(0, rng, cube.data(), cube_v.data()));
    backend.set_objects(0, cube.data(), cube_v.data());
  }
  const double* target() const { return task->command_values(0, 0); }
  // The cube at `pos` with orientation `quat`, then one evaluation.
  bool place_and_evaluate(const double pos[3], const double quat[4]) {
    double c[7] = {pos[0], pos[1], pos[2], quat[0], quat[1], quat[2], quat[3]};
    backend.set_objects(0, c, cube_v.data());
    const bool ended = task->evaluate(0, backend, action.data(), rng, terms.data());
    reached += int(terms[kSuccess]);
    return ended;
  }
};

// The three variants' specs differ only in their target command, the success tolerance and names.
TEST(CubeReorient, VariantsDifferOnlyInTheirTargets) {
  auto spec = [](const char* name) { return read_json_file(task_spec_path(name), "spec"); };
  const nlohmann::json paper = spec("cube-reorient"), reduced = spec("cube-reorient-reduced"),
                       rotate = spec("cube-reorient-rotate");
  EXPECT_EQ(paper["commands"][0]["draw"], "rotation");
  EXPECT_EQ(reduced["commands"][0]["draw"], "yaw_rotation");
  EXPECT_EQ(rotate["commands"][0]["draw"], "yaw_steps");
  EXPECT_EQ(paper["commands"][0]["redraw_within"], 0.2);
  EXPECT_GT(reduced["commands"][0]["redraw_within"].get<double>(), 0.2);
  EXPECT_EQ(rotate["commands"][0]["redraw_within"], reduced["commands"][0]["redraw_within"]);
  for (const auto* other : {&reduced, &rotate}) {
    for (const char* key : {"action", "observations", "terminations", "reset", "control_steps", "episode_seconds"})
      EXPECT_EQ(paper[key], (*other)[key]) << key;
    for (size_t k = 0; k < paper["rewards"].size(); ++k)
      if (paper["rewards"][k]["name"] != "success") {
        EXPECT_EQ(paper["rewards"][k], (*other)["rewards"][k]) << k;
      }
  }
}

TEST(CubeReorient, StepTargetsNeedAStepBetweenTheToleranceAndPi) {
  auto hand = sim::Robot::load("hand16");
  const nlohmann::json rotate = read_json_file(task_spec_path("cube-reorient-rotate"), "spec");
  auto refusal = [&](const nlohmann::json& command) {
    nlohmann::json j = rotate;
    j["commands"][0] = command;
    try {
      SpecTask task(j, "steps.json", *hand);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  nlohmann::json c = rotate["commands"][0];
  EXPECT_EQ(refusal(c), "accepted");
  c.erase("yaw_step");
  EXPECT_NE(refusal(c).find("'commands[0].yaw_step' is missing"), std::string::npos) << refusal(c);
  c["yaw_step"] = 0.3;  // below the tolerance: every step reached at once
  EXPECT_NE(refusal(c).find("'commands[0].redraw_within'"), std::string::npos) << refusal(c);
  c["yaw_step"] = 3.2;
  EXPECT_NE(refusal(c).find("must be in (0, π)"), std::string::npos) << refusal(c);
  c["yaw_step"] = 1.0;
  c["ranges"] = {{-1, 1}};
  EXPECT_NE(refusal(c).find("an orientation is drawn whole"), std::string::npos) << refusal(c);
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

TEST(CubeReorient, RotateTargetsStepCounterClockwiseFromTheStart) {
  Fixture f("cube-reorient-rotate");
  const double step = 0.8;
  const double* home = f.cube.data();
  const double start[4] = {f.cube[3], f.cube[4], f.cube[5], f.cube[6]};
  const std::vector<double> first(f.target(), f.target() + 4);
  EXPECT_NEAR(yaw_between(start, first.data()), step, 1e-12) << "the first target: one step from the start";
  // turned the other way by a step: twice the step from the target, not reached
  double back[4], minus[4] = {std::cos(-step / 2), 0, 0, std::sin(-step / 2)};
  rot::quat_mul(minus, start, back);
  EXPECT_FALSE(f.place_and_evaluate(home, back));
  EXPECT_EQ(f.reached, 0);
  // at the target: counted, and the next one is a further step counter-clockwise
  EXPECT_FALSE(f.place_and_evaluate(home, first.data()));
  EXPECT_EQ(f.reached, 1);
  EXPECT_NEAR(yaw_between(first.data(), f.target()), step, 1e-12);
  const std::vector<double> second(f.target(), f.target() + 4);
  EXPECT_FALSE(f.place_and_evaluate(home, second.data()));
  EXPECT_EQ(f.reached, 2);
  EXPECT_NEAR(yaw_between(second.data(), f.target()), step, 1e-12);
}

TEST(CubeReorient, AReachedTargetIsCountedAndReplaced) {
  Fixture f;
  EXPECT_EQ(f.task->control_steps(), 8);  // 30 Hz over 240 Hz
  EXPECT_EQ(f.task->episode_steps(), 300);
  const double* home = f.cube.data();
  const std::vector<double> target(f.target(), f.target() + 4);
  EXPECT_NEAR(std::hypot(target[1], target[2]), 0.0, 1e-12) << "reduced targets turn about the vertical only";
  // 1 rad away from the target about the vertical: not reached
  const double half = 0.5;
  double off[4], about_z[4] = {std::cos(half), 0, 0, std::sin(half)};
  rot::quat_mul(about_z, target.data(), off);
  EXPECT_FALSE(f.place_and_evaluate(home, off));
  EXPECT_EQ(f.terms[kSuccess], 0.0);
  EXPECT_NEAR(1.0 / f.terms[1] - 0.1, 1.0, 1e-9) << "the rotation term reads the 1 rad error";
  EXPECT_EQ(f.reached, 0);
  // exactly at the target: counted, and a new target drawn at once
  EXPECT_FALSE(f.place_and_evaluate(home, target.data()));
  EXPECT_EQ(f.terms[kSuccess], 1.0);
  EXPECT_EQ(f.reached, 1);
  EXPECT_GT(TaskSignals::rotation_distance(f.target(), target.data()), 1e-6);
}

TEST(CubeReorient, ADroppedCubeEndsTheEpisode) {
  Fixture f;
  const double quat[4] = {1, 0, 0, 0};
  const double resting[3] = {f.cube[0], f.cube[1], f.cube[2]};
  EXPECT_FALSE(f.place_and_evaluate(resting, quat));
  EXPECT_EQ(f.terms[kDrop], 0.0);
  const double fallen[3] = {f.cube[0], f.cube[1], f.cube[2] - 0.06};
  EXPECT_TRUE(f.place_and_evaluate(fallen, quat));
  EXPECT_EQ(f.terms[kDrop], 1.0);
  const double aside[3] = {f.cube[0] + 0.11, f.cube[1], f.cube[2]};
  EXPECT_TRUE(f.place_and_evaluate(aside, quat));
  const double nudged[3] = {f.cube[0] + 0.02, f.cube[1] - 0.02, f.cube[2] - 0.01};
  EXPECT_FALSE(f.place_and_evaluate(nudged, quat));
}

TEST(CubeReorient, VecEnvRunsThePolicyAtItsOwnRate) {
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
