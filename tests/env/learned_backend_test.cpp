// A reset with a recorded history (Backend::reset_with_history) leaves a learned backend's
// environment exactly where teacher forcing through the same frames leaves it: the next
// prediction is the same bits (row-invariant products), for probe, contact and NeRD models
// and for ensembles; MuJoCo resets to the last recorded state.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "sim/robot.h"
#include "testing/robot_models.h"

namespace flashnerd::env {
namespace {

struct Recording {
  int frames = 0;
  std::vector<double> q, v, u;  // (frames + 1, nq), (frames + 1, nv), (frames + 1, nu): the last command follows
};

// A MuJoCo trajectory of `frames` steps under wobbling commands.
Recording record(std::shared_ptr<const sim::Robot> robot, int frames) {
  ThreadPool pool(1);
  MujocoBackend mj(robot, 1, pool);
  Recording r;
  r.frames = frames;
  const int nq = mj.nq(), nv = mj.nv(), nu = mj.nu();
  for (int k = 0; k <= frames; ++k) {
    r.q.insert(r.q.end(), mj.q(0), mj.q(0) + nq);
    r.v.insert(r.v.end(), mj.v(0), mj.v(0) + nv);
    for (int i = 0; i < nu; ++i) r.u.push_back(robot->nominal_ctrl()[size_t(i)] + 0.3 * std::sin(0.7 * k + i));
    if (k < frames) mj.step(r.u.data() + size_t(k) * size_t(nu));
  }
  return r;
}

// The state after one more step from the recording's end: teacher forced through the frames in
// a one-environment backend, against reset_with_history into environment 1 of three.
void expect_same_next_state(std::shared_ptr<const sim::Robot> robot,
                            const std::vector<std::shared_ptr<const engine::Model>>& members, int frames) {
  const Recording r = record(robot, frames);
  ThreadPool pool(1);
  LearnedBackend forced(robot, members, 1, pool, {}, engine::GemmBackend::RowInvariant);
  LearnedBackend branched(robot, members, 3, pool, {}, engine::GemmBackend::RowInvariant);
  const int nq = forced.nq(), nv = forced.nv(), nu = forced.nu();
  forced.reset(0, r.q.data(), r.v.data());
  for (int k = 0; k < frames; ++k) {
    forced.step(r.u.data() + size_t(k) * size_t(nu));
    forced.set_state(0, r.q.data() + size_t(k + 1) * size_t(nq), r.v.data() + size_t(k + 1) * size_t(nv));
  }
  branched.reset_with_history(1, frames, r.q.data(), r.v.data(), r.u.data());
  for (int i = 0; i < nq; ++i) ASSERT_EQ(branched.q(1)[i], r.q[size_t(frames) * size_t(nq) + size_t(i)]);
  EXPECT_EQ(branched.context().frames(1), forced.context().frames(0));
  const double* last = r.u.data() + size_t(frames) * size_t(nu);
  std::vector<double> u3;
  for (int e = 0; e < 3; ++e) u3.insert(u3.end(), last, last + nu);
  forced.step(last);
  branched.step(u3.data());
  for (int i = 0; i < nq; ++i) ASSERT_EQ(branched.q(1)[i], forced.q(0)[i]) << "qpos " << i;
  for (int i = 0; i < nv; ++i) ASSERT_EQ(branched.v(1)[i], forced.v(0)[i]) << "qvel " << i;
  EXPECT_EQ(branched.disagreement(1), forced.disagreement(0));
}

TEST(LearnedBackend, AResetWithHistoryStepsAsTeacherForcingThroughTheFrames) {
  auto quadruped = sim::Robot::load("quadruped");
  const ModelConfig probes = flashnerd::testing::robot_model_config(*quadruped, Arch::FlashNeRD, PredictionTarget::Increment, true);
  const ModelConfig nerd = flashnerd::testing::robot_model_config(*quadruped, Arch::NeRD, PredictionTarget::Increment, true);
  for (int frames : {0, 3, probes.history() + 4})
    expect_same_next_state(quadruped, {engine::Model::random(probes, 5)}, frames);
  expect_same_next_state(quadruped, {engine::Model::random(nerd, 6)}, nerd.history() + 2);
  expect_same_next_state(quadruped, {engine::Model::random(probes, 7), engine::Model::random(probes, 8)}, 6);
  auto platform = sim::Robot::load("quadruped_platform");
  expect_same_next_state(platform, {engine::Model::random(flashnerd::testing::contact_model_config(*platform), 9)}, 7);
}

TEST(LearnedBackend, AResetWithHistoryLeavesTheOtherEnvironmentsAlone) {
  auto robot = sim::Robot::load("quadruped");
  const Recording r = record(robot, 5);
  ThreadPool pool(1);
  const ModelConfig c = flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD, PredictionTarget::Increment, true);
  LearnedBackend b(robot, engine::Model::random(c, 5), 3, pool);
  std::vector<double> u(size_t(3) * size_t(b.nu()), 0.0);
  b.step(u.data());
  const int64_t frames0 = b.context().frames(0);
  const std::vector<double> q2(b.q(2), b.q(2) + b.nq());
  b.reset_with_history(1, 5, r.q.data(), r.v.data(), r.u.data());
  EXPECT_EQ(b.context().frames(0), frames0);
  EXPECT_EQ(std::vector<double>(b.q(2), b.q(2) + b.nq()), q2);
  EXPECT_THROW(b.reset_with_history(1, -1, r.q.data(), r.v.data(), r.u.data()), Error);
  EXPECT_THROW(b.reset_with_history(3, 0, r.q.data(), r.v.data(), r.u.data()), Error);
}

TEST(MujocoBackend, AResetWithHistoryIsAResetToTheLastState) {
  auto robot = sim::Robot::load("quadruped");
  const Recording r = record(robot, 4);
  ThreadPool pool(1);
  MujocoBackend mj(robot, 2, pool);
  mj.reset_with_history(1, 4, r.q.data(), r.v.data(), r.u.data());
  for (int i = 0; i < mj.nq(); ++i) ASSERT_EQ(mj.q(1)[i], r.q[size_t(4) * size_t(mj.nq()) + size_t(i)]);
}

TEST(Backend, OnlyBackendsOfARobotWithAPlatformOfferToMoveIt) {
  ThreadPool pool(1);
  auto platform = sim::Robot::load("quadruped_platform");
  auto flat = sim::Robot::load("quadruped");
  MujocoBackend mj_platform(platform, 1, pool), mj_flat(flat, 1, pool);
  LearnedBackend learned_platform(
      platform, engine::Model::random(flashnerd::testing::contact_model_config(*platform), 3), 1, pool);
  EXPECT_EQ(mj_platform.platform_scene(), static_cast<PlatformScene*>(&mj_platform));
  EXPECT_EQ(learned_platform.platform_scene(), static_cast<PlatformScene*>(&learned_platform));
  EXPECT_EQ(mj_flat.platform_scene(), nullptr);
  EXPECT_THROW(platform_scene(mj_flat), Error);
  platform_scene(mj_platform).set_platform({0.2, 0.6});
  platform_scene(learned_platform).set_platform({0.2, 0.6});
}

}  // namespace
}  // namespace flashnerd::env
