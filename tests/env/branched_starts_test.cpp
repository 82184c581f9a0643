// Branched starts (env/start_buffer.h, env/history_recorder.h, VecEnv::set_branched_starts):
// the buffer keeps exact copies in a ring, the recorder follows a real VecEnv's histories, and
// a branched reset takes the real state and history bit-exactly; off, nothing changes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "engine/engine.h"
#include "env/history_recorder.h"
#include "env/learned_backend.h"
#include "env/mujoco_backend.h"
#include "env/start_buffer.h"
#include "env/vec_env.h"
#include "testing/cartpole_env.h"
#include "testing/robot_models.h"

namespace flashnerd::env {
namespace {

std::vector<double> iota(size_t n, double from) {
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = from + double(i);
  return x;
}

void actions_for(int step, int envs, std::vector<float>& a) {
  a.resize(size_t(envs));
  for (int e = 0; e < envs; ++e) a[size_t(e)] = 0.8f * std::sin(0.9f * float(step) + 1.7f * float(e));
}

TEST(StartBuffer, KeepsExactCopiesInARing) {
  StartBuffer b(3, 2, 2, 1, 2);
  const auto q1 = iota(8, 0), v1 = iota(8, 100), u1 = iota(3, 200);
  const auto q2 = iota(4, 10), v2 = iota(4, 110), u2 = iota(1, 210);
  const auto q3 = iota(8, 20), v3 = iota(8, 120), u3 = iota(3, 220);
  b.add(3, q1.data(), v1.data(), u1.data());
  b.add(1, q2.data(), v2.data(), u2.data());
  EXPECT_EQ(b.size(), 2);
  EXPECT_EQ(b.get(1).frames, 1);
  EXPECT_EQ(std::vector<double>(b.get(1).q, b.get(1).q + 4), q2);
  b.add(3, q3.data(), v3.data(), u3.data());  // replaces the oldest (slot 0)
  EXPECT_EQ(b.size(), 2);
  EXPECT_EQ(b.added(), 3);
  const StartBuffer::Start s = b.get(0);
  EXPECT_EQ(s.frames, 3);
  EXPECT_EQ(std::vector<double>(s.q, s.q + 8), q3);
  EXPECT_EQ(std::vector<double>(s.v, s.v + 8), v3);
  EXPECT_EQ(std::vector<double>(s.u, s.u + 3), u3);
  EXPECT_THROW(b.add(4, q3.data(), v3.data(), u3.data()), Error);
  EXPECT_THROW(b.get(2), Error);
}

TEST(StartBuffer, SavedStateRestoresTheStartsAndTheRing) {
  StartBuffer a(1, 1, 1, 1, 3), b(1, 1, 1, 1, 3), other(2, 1, 1, 1, 3);
  for (int k = 0; k < 4; ++k) {
    const auto q = iota(2, 10.0 * k), v = iota(2, 10.0 * k + 5), u = iota(1, 10.0 * k + 7);
    a.add(1, q.data(), v.data(), u.data());
  }
  BlobWriter w;
  StateIo save(w);
  a.io_state(save);
  BlobReader r(w.bytes(), "buffer");
  StateIo load(r);
  b.io_state(load);
  ASSERT_EQ(b.size(), a.size());
  Rng ra(5), rb(5);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(a.draw(ra).q[0], b.draw(rb).q[0]);
  BlobReader r2(w.bytes(), "buffer");
  StateIo load2(r2);
  EXPECT_THROW(other.io_state(load2), Error);  // another shape is refused
  EXPECT_THROW(StartBuffer(1, 1, 1, 1, 0), Error);
  Rng rng(1);
  EXPECT_THROW(StartBuffer(1, 1, 1, 1, 2).draw(rng), Error);
}

TEST(HistoryRecorder, FollowsEachEnvironmentAndRestartsAtEpisodeEnds) {
  ThreadPool pool(1);
  flashnerd::testing::CartpoleEnv real(2, 7, pool);
  VecEnv& env = real.env;
  const MujocoBackend& mj = real.backend;
  env.reset_all();
  const int frames = 3, nq = mj.nq(), nv = mj.nv(), nu = mj.nu();
  HistoryRecorder rec(env, frames);
  rec.restart();
  std::vector<std::vector<double>> qs{std::vector<double>(mj.q(0), mj.q(0) + nq)}, vs{std::vector<double>(mj.v(0), mj.v(0) + nv)},
      us;
  std::vector<float> a;
  StartBuffer buffer(frames, nq, nv, nu, 8);
  for (int t = 0; t < 6; ++t) {
    actions_for(t, 2, a);
    env.step(a.data());
    rec.after_step();
    ASSERT_FALSE(env.terminated()[0] || env.timed_out()[0]) << "the test wants a running episode in env 0";
    us.emplace_back(env.commands(), env.commands() + nu);
    qs.emplace_back(mj.q(0), mj.q(0) + nq);
    vs.emplace_back(mj.v(0), mj.v(0) + nv);
    EXPECT_EQ(rec.recorded(0), std::min(t + 1, frames));
  }
  rec.add_to(buffer, 0);
  const StartBuffer::Start s = buffer.get(0);
  ASSERT_EQ(s.frames, frames);
  for (int k = 0; k <= frames; ++k) {  // the last frames + 1 states, oldest first
    const size_t step = qs.size() - size_t(frames + 1) + size_t(k);
    for (int i = 0; i < nq; ++i) EXPECT_EQ(s.q[k * nq + i], qs[step][size_t(i)]);
    for (int i = 0; i < nv; ++i) EXPECT_EQ(s.v[k * nv + i], vs[step][size_t(i)]);
    if (k == frames) continue;
    for (int i = 0; i < nu; ++i) EXPECT_EQ(s.u[k * nu + i], us[step][size_t(i)]);
  }
  // an episode that ends starts its history again at the new episode's first state
  std::vector<float> push(2, 1.0f);
  for (int t = 0; t < 400 && !(env.terminated()[1] || env.timed_out()[1]); ++t) {
    env.step(push.data());
    rec.after_step();
  }
  ASSERT_TRUE(env.terminated()[1] || env.timed_out()[1]);
  EXPECT_EQ(rec.recorded(1), 0);
  rec.add_to(buffer, 1);
  EXPECT_EQ(buffer.get(1).frames, 0);
  for (int i = 0; i < nq; ++i) EXPECT_EQ(buffer.get(1).q[i], mj.q(1)[i]);
}

// A cartpole VecEnv on a random FlashNeRD model; branched from `buffer` when given.
struct LearnedEnv {
  LearnedEnv(std::shared_ptr<const sim::Robot> robot, std::shared_ptr<const engine::Model> model, int envs)
      : pool(1), backend(robot, {model}, envs, pool, {}, engine::GemmBackend::RowInvariant),
        task(make_task("cartpole-balance", *robot)), env(*task, backend, pool, 11) {}
  ThreadPool pool;
  LearnedBackend backend;
  std::unique_ptr<Task> task;
  VecEnv env;
};

TEST(BranchedStarts, ABranchedResetTakesTheRealStateAndHistoryBitExactly) {
  auto robot = sim::Robot::load("cartpole");
  auto model = engine::Model::random(flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD), 3);
  // a real start with a history, from MuJoCo
  ThreadPool pool(1);
  flashnerd::testing::CartpoleEnv cartpole(1, 5, pool);
  VecEnv& real = cartpole.env;
  const MujocoBackend& mj = cartpole.backend;
  real.reset_all();
  LearnedEnv imagined(robot, model, 3);
  const int frames = imagined.backend.history_frames();
  ASSERT_GT(frames, 2);
  HistoryRecorder rec(real, frames);
  rec.restart();
  std::vector<float> a;
  for (int t = 0; t < frames + 4; ++t) {
    actions_for(t, 1, a);
    real.step(a.data());
    rec.after_step();
  }
  StartBuffer buffer(frames, mj.nq(), mj.nv(), mj.nu(), 4);
  rec.add_to(buffer, 0);
  imagined.env.set_branched_starts({&buffer, 1.0, 5});
  imagined.env.reset_all();
  const StartBuffer::Start s = buffer.get(0);
  ASSERT_EQ(s.frames, frames);
  for (int e = 0; e < 3; ++e)
    for (int i = 0; i < mj.nq(); ++i) ASSERT_EQ(imagined.backend.q(e)[i], s.q[frames * mj.nq() + i]);
  // its next step is the step of a backend reset with that history directly
  ThreadPool p1(1);
  LearnedBackend direct(robot, {model}, 3, p1, {}, engine::GemmBackend::RowInvariant);
  for (int e = 0; e < 3; ++e) direct.reset_with_history(e, s.frames, s.q, s.v, s.u);
  actions_for(0, 3, a);
  std::vector<double> u(3 * size_t(mj.nu()));
  for (int e = 0; e < 3; ++e) imagined.task->command(e, a.data() + e, u.data() + e * mj.nu());
  imagined.env.step(a.data());
  direct.step(u.data());
  for (int e = 0; e < 3; ++e) {
    if (imagined.env.terminated()[e]) continue;  // restarted: nothing left to compare
    for (int i = 0; i < mj.nq(); ++i) EXPECT_EQ(imagined.backend.q(e)[i], direct.q(e)[i]) << "env " << e;
    for (int i = 0; i < mj.nv(); ++i) EXPECT_EQ(imagined.backend.v(e)[i], direct.v(e)[i]) << "env " << e;
  }
  // a branched episode times out after its branch steps
  std::vector<float> zero(3, 0.0f);
  int timeouts = 0;
  for (int t = 1; t < 12; ++t) {
    imagined.env.step(zero.data());
    for (int e = 0; e < 3; ++e) timeouts += imagined.env.timed_out()[e];
  }
  EXPECT_GT(timeouts, 0);
  EXPECT_GE(imagined.env.take_episode_stats().branched_starts, 3);
}

TEST(BranchedStarts, OffOrEmptyDrawsNothing) {
  auto robot = sim::Robot::load("cartpole");
  auto model = engine::Model::random(flashnerd::testing::robot_model_config(*robot, Arch::FlashNeRD), 3);
  LearnedEnv plain(robot, model, 2), empty(robot, model, 2), zero_share(robot, model, 2);
  StartBuffer none(plain.backend.history_frames(), plain.backend.nq(), plain.backend.nv(), plain.backend.nu(), 2);
  StartBuffer some(plain.backend.history_frames(), plain.backend.nq(), plain.backend.nv(), plain.backend.nu(), 2);
  std::vector<double> q(size_t(some.frames() + 1) * size_t(plain.backend.nq()), 0.1),
      v(size_t(some.frames() + 1) * size_t(plain.backend.nv()), 0.0), u(size_t(some.frames()) * size_t(plain.backend.nu()), 0.0);
  some.add(some.frames(), q.data(), v.data(), u.data());
  empty.env.set_branched_starts({&none, 1.0, 0});
  zero_share.env.set_branched_starts({&some, 0.0, 0});
  for (LearnedEnv* e : {&plain, &empty, &zero_share}) e->env.reset_all();
  std::vector<float> a;
  for (int t = 0; t < 300; ++t) {  // long enough for episodes to end and restart
    actions_for(t, 2, a);
    for (LearnedEnv* e : {&plain, &empty, &zero_share}) e->env.step(a.data());
    for (int i = 0; i < 2 * 5; ++i) {
      ASSERT_EQ(empty.env.observations()[i], plain.env.observations()[i]) << "step " << t;
      ASSERT_EQ(zero_share.env.observations()[i], plain.env.observations()[i]) << "step " << t;
    }
  }
  EXPECT_GT(plain.env.take_episode_stats().episodes, 0);
  EXPECT_THROW(plain.env.set_branched_starts({&some, 1.5, 0}), Error);
}

}  // namespace
}  // namespace flashnerd::env
