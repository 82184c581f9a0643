// The climbing task: the paper's success criterion frame by frame, and reward terms that
// prefer progress over the edge, standing height over the surface, feet on top, and that
// charge a fall.
#include "mpc/climb_task.h"

#include <gtest/gtest.h>

#include <vector>

#include "env/mujoco_backend.h"
#include "mpc/trial.h"

namespace flashnerd::mpc {
namespace {

struct Fixture {
  std::shared_ptr<const sim::Robot> robot = sim::Robot::load("quadruped_platform");
  ThreadPool pool{1};
  env::MujocoBackend backend{robot, 1, pool};
  ClimbTask task{*robot};
  std::vector<double> terms = std::vector<double>(task.reward_terms().size());
  std::vector<double> action = std::vector<double>(size_t(task.action_dim()), 0.0);
  Fixture() {
    task.set_platform({0.18, 0.6});
    backend.set_platform({0.18, 0.6});
  }
  double reward_at(double x, double z, double tilt = 0.0) {
    std::vector<double> q = robot->nominal_qpos(), v(size_t(backend.nv()), 0.0);
    q[0] = x;
    q[2] = z;
    q[3] = std::cos(tilt / 2);  // roll by tilt
    q[4] = std::sin(tilt / 2);
    backend.reset(0, q.data(), v.data());
    return task.reward(backend, 0, action.data(), action.data(), terms.data());
  }
  double term(const std::string& name) const {
    for (size_t i = 0; i < terms.size(); ++i)
      if (task.reward_terms()[i].name == name) return terms[i];
    return NAN;
  }
};

TEST(ClimbTask, SuccessCriterionIsThePapers) {
  Fixture f;
  std::vector<double> q = f.robot->nominal_qpos();
  q[0] = 0.6 + 0.13;
  q[2] = 0.18 + 0.46;
  EXPECT_TRUE(f.task.climbed(q.data()));
  q[0] = 0.6 + 0.11;  // not far enough past the edge
  EXPECT_FALSE(f.task.climbed(q.data()));
  q[0] = 0.8;
  q[2] = 0.18 + 0.44;  // too low over the top
  EXPECT_FALSE(f.task.climbed(q.data()));
  q[2] = 0.7;
  q[3] = std::cos(0.3);  // tilted by 0.6 rad: body-up z = cos 0.6 = 0.825 < 0.85
  q[4] = std::sin(0.3);
  EXPECT_FALSE(f.task.climbed(q.data()));
  EXPECT_EQ(f.task.options().success_frames, 8);
}

TEST(ClimbTask, SuccessNeedsEightRecordedFramesInARow) {
  // recorded states of a climb: the base rises onto the platform, dips once after 7 good
  // frames, then holds; success is the 8th good frame in a row after the dip
  Fixture f;
  std::vector<std::vector<double>> recorded;
  std::vector<double> q = f.robot->nominal_qpos();
  for (int i = 0; i < 40; ++i) {
    q[0] = 0.2 + 0.03 * i;                     // past the edge (0.6 + 0.12) from frame 18
    q[2] = (i >= 25 && i <= 26) ? 0.5 : 0.7;   // frames 25 and 26 dip below 0.18 + 0.45
    recorded.push_back(q);
  }
  SuccessRule rule;
  rule.frame_ok = [&](const double* s) { return f.task.climbed(s); };
  rule.frames_in_a_row = f.task.options().success_frames;
  SuccessTracker tracker(rule);
  int first = -1;
  for (int i = 0; i < int(recorded.size()); ++i)
    if (tracker.update(recorded[size_t(i)].data()) && first < 0) first = i;
  EXPECT_EQ(first, 27 + 7);  // good from 18 to 24 (7 frames), dip, good again from 27
  SuccessRule none;
  SuccessTracker never(none);
  EXPECT_FALSE(never.update(recorded.back().data()));
}

TEST(ClimbTask, RewardPrefersProgressHeightAndFeetOnTop) {
  Fixture f;
  const double on_ground = f.reward_at(0.0, 0.57);
  EXPECT_EQ(f.term("feet_on_top"), 0.0);
  EXPECT_EQ(f.term("fall"), 0.0);
  const double at_edge = f.reward_at(0.5, 0.57);
  EXPECT_GT(f.term("progress"), -0.7);
  EXPECT_GT(at_edge, on_ground);
  const double on_top = f.reward_at(1.1, 0.18 + 0.57);
  EXPECT_GT(f.term("feet_on_top"), 0.2);  // all four feet over the platform
  EXPECT_GT(on_top, at_edge);
  const double fallen = f.reward_at(0.0, 0.2);
  EXPECT_LT(f.term("fall"), 0.0);
  EXPECT_LT(fallen, on_ground - 1.0);
  f.reward_at(0.0, 0.57, 1.4);  // rolled past the tipping limit
  EXPECT_LT(f.term("fall"), 0.0);
}

}  // namespace
}  // namespace flashnerd::mpc
