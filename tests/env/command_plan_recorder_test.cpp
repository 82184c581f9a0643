// CommandPlanRecorder: the plan holds exactly the windows completed so far (never the one in
// progress), each the start state and the commands an environment received, the commands held
// after an episode's end; the oldest windows give way to new ones; a saved recorder continues.
#include "env/command_plan_recorder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "testing/cartpole_env.h"

namespace flashnerd::env {
namespace {

void actions_for(int step, int envs, std::vector<float>& a) {
  a.resize(size_t(envs));
  for (int e = 0; e < envs; ++e) a[size_t(e)] = 0.7f * std::sin(0.8f * float(step) + 1.1f * float(e));
}

TEST(CommandPlanRecorder, HoldsOnlyTheWindowsCompletedSoFar) {
  ThreadPool pool(1);
  flashnerd::testing::CartpoleEnv c(2, 3, pool);
  c.env.reset_all();
  const int nq = c.backend.nq(), nu = c.backend.nu(), T = 4;
  CommandPlanRecorder rec(c.env, T, 16);
  std::vector<double> start_q(c.backend.q(1), c.backend.q(1) + nq), sent;
  std::vector<float> a;
  rec.begin_window();
  for (int t = 0; t < T; ++t) {
    actions_for(t, 2, a);
    c.env.step(a.data());
    rec.after_step();
    sent.insert(sent.end(), c.env.commands() + nu, c.env.commands() + 2 * nu);
    if (t < T - 1) {
      EXPECT_EQ(rec.plan().trajectories, 0) << "a window in progress is not data yet";
    }
  }
  sim::CommandPlan p = rec.plan();
  ASSERT_EQ(p.trajectories, 2);
  EXPECT_EQ(p.steps, T);
  for (int i = 0; i < nq; ++i) EXPECT_EQ(p.qpos[size_t(nq + i)], start_q[size_t(i)]);
  for (size_t k = 0; k < sent.size(); ++k) EXPECT_EQ(p.ctrl[size_t(T * nu) + k], sent[k]);
  // a second window half done: still the first two
  rec.begin_window();
  c.env.step(a.data());
  rec.after_step();
  EXPECT_EQ(rec.plan().trajectories, 2);
  EXPECT_EQ(rec.completed(), 2);
  EXPECT_THROW(CommandPlanRecorder(c.env, 0, 4), Error);
}

TEST(CommandPlanRecorder, HoldsTheLastCommandAfterAnEpisodeEnds) {
  ThreadPool pool(1);
  flashnerd::testing::CartpoleEnv c(1, 3, pool);
  c.env.reset_all();
  const int T = 300;  // past the task's 200 steps: the episode ends inside the window
  CommandPlanRecorder rec(c.env, T, 1);
  std::vector<float> a;
  int ended_at = -1;
  rec.begin_window();
  for (int t = 0; t < T; ++t) {
    actions_for(t, 1, a);
    c.env.step(a.data());
    rec.after_step();
    if (ended_at < 0 && (c.env.terminated()[0] || c.env.timed_out()[0])) ended_at = t;
  }
  ASSERT_GE(ended_at, 0);
  const sim::CommandPlan p = rec.plan();
  for (int t = ended_at + 1; t < T; ++t) EXPECT_EQ(p.ctrl[size_t(t)], p.ctrl[size_t(ended_at)]) << "step " << t;
}

TEST(CommandPlanRecorder, KeepsTheNewestWindowsAndContinuesFromItsSavedState) {
  ThreadPool pool(1);
  flashnerd::testing::CartpoleEnv c(2, 3, pool);
  c.env.reset_all();
  CommandPlanRecorder rec(c.env, 3, 3), copy(c.env, 3, 3);
  std::vector<float> a;
  std::vector<double> starts;  // env 0's start q of every window
  for (int w = 0; w < 3; ++w) {
    starts.insert(starts.end(), c.backend.q(0), c.backend.q(0) + c.backend.nq());
    rec.begin_window();
    for (int t = 0; t < 3; ++t) {
      actions_for(3 * w + t, 2, a);
      c.env.step(a.data());
      rec.after_step();
    }
  }
  // 6 windows completed, 3 held: the last round's two and env 1's of the round before
  const sim::CommandPlan p = rec.plan();
  ASSERT_EQ(p.trajectories, 3);
  EXPECT_EQ(rec.completed(), 6);
  const int nq = c.backend.nq();
  for (int i = 0; i < nq; ++i) EXPECT_EQ(p.qpos[size_t(nq + i)], starts[size_t(2 * nq + i)]);
  BlobWriter w;
  StateIo save(w);
  rec.io_state(save);
  BlobReader r(w.bytes(), "recorder");
  StateIo load(r);
  copy.io_state(load);
  EXPECT_EQ(copy.plan().ctrl, p.ctrl);
  EXPECT_EQ(copy.plan().qpos, p.qpos);
}

}  // namespace
}  // namespace flashnerd::env
