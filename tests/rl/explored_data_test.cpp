// ExploredData: replaying only the windows completed since the last update gives, array for
// array, the data of replaying every window the recorder holds, also after the ring has let
// windows go and when more windows completed than it holds; a fresh one (a resumed run)
// replays them all.
#include "rl/explored_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "testing/cartpole_env.h"

namespace flashnerd::rl {
namespace {

void expect_same_data(const Dataset& a, const Dataset& b) {
  ASSERT_EQ(a.trajectories, b.trajectories);
  EXPECT_EQ(a.qpos, b.qpos);
  EXPECT_EQ(a.qvel, b.qvel);
  EXPECT_EQ(a.ctrl, b.ctrl);
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.probes, b.probes);
}

// One round of `steps` steps with the recorder's windows open.
void explore(env::VecEnv& env, env::CommandPlanRecorder& rec, int round) {
  std::vector<float> a(size_t(env.envs()));
  rec.begin_window();
  for (int t = 0; t < rec.steps(); ++t) {
    for (int e = 0; e < env.envs(); ++e) a[size_t(e)] = 0.8f * std::sin(0.7f * float(round * rec.steps() + t) + float(e));
    env.step(a.data());
    rec.after_step();
  }
}

TEST(ExploredData, ReplayingTheNewWindowsEqualsReplayingAllHeld) {
  ThreadPool pool(2);
  flashnerd::testing::CartpoleEnv c(3, 5, pool);
  c.env.reset_all();
  env::CommandPlanRecorder rec(c.env, 4, 7);  // 3 windows a round, 7 held: the ring wraps
  sim::GenerateOptions g;
  g.contacts = false;
  ExploredData incremental(c.robot, g, pool);
  auto full_replay = [&] {
    const sim::CommandPlan plan = rec.plan();
    sim::GenerateOptions all = g;
    all.plan = &plan;
    all.trajectories = plan.trajectories;
    all.steps = plan.steps;
    all.progress = false;
    return sim::generate_dataset(*c.robot, all, pool);
  };
  // rounds between updates: 1 (3 new of 3), 1 (3 of 6), 2 (6 new, 7 held: the ring wrapped), 4 (12 new, 7 held)
  int round = 0;
  const std::vector<int> new_rounds = {1, 1, 2, 4};
  const std::vector<int64_t> replayed = {3, 3, 6, 7};
  for (size_t k = 0; k < new_rounds.size(); ++k) {
    for (int r = 0; r < new_rounds[k]; ++r) explore(c.env, rec, round++);
    const Dataset& d = incremental.update(rec);
    EXPECT_EQ(incremental.replayed_last(), replayed[k]) << "update " << k;
    EXPECT_EQ(d.trajectories, std::min<int64_t>(rec.completed(), 7));
    expect_same_data(d, full_replay());
  }
  EXPECT_EQ(incremental.update(rec).trajectories, 7);
  EXPECT_EQ(incremental.replayed_last(), 0) << "nothing new, nothing replayed";
  ExploredData resumed(c.robot, g, pool);  // a resumed run: every held window at once
  expect_same_data(resumed.update(rec), full_replay());
  EXPECT_EQ(resumed.replayed_last(), 7);
}

}  // namespace
}  // namespace flashnerd::rl
