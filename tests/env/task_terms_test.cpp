// The term library (env/task_terms.h) in the built-in tasks, against MuJoCo's own numbers and
// the formulas they come from: quadruped-velocity's torque term equals the actuator forces
// MuJoCo computes for the same state and command, its observations and terminations follow the
// base state, and feet air time rewards a swing on touchdown; cartpole-swingup starts hanging,
// rewards each step with the Control Suite's product of upright, centred, small-control and
// small-spin factors (in [0, 1], never negative), and ends only when the cart leaves the track;
// humanoid-velocity's gait clock drives its phase observation and its contact reward.
#include "env/task_terms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/blob.h"
#include "core/error.h"
#include "core/json_file.h"
#include "core/rng.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/spec_task.h"

namespace flashnerd::env {
namespace {

// A backend whose states and probe clearances the test sets by hand (the task reads nothing else).
class SetStateBackend : public Backend {
 public:
  SetStateBackend(std::shared_ptr<const sim::Robot> robot, ThreadPool& pool) : Backend(std::move(robot), 1, pool) {}
  std::string kind() const override { return "set-state"; }
  void reset(int, const double* q, const double* v) override { set(q, v); }
  void set_state(int, const double* q, const double* v) override { set(q, v); }
  void step_first(const double*, int) override {}
  void copy_env(int, int) override {}
  std::string save_state() const override { return {}; }
  void load_state(const std::string&) override {}
  void set(const double* q, const double* v) {
    std::memcpy(q_.data(), q, sizeof(double) * size_t(nq_));
    std::memcpy(v_.data(), v, sizeof(double) * size_t(nv_));
  }
  void set_clearance(int probe, double c) { clearance_[size_t(probe)] = c; }
};

// quadruped-velocity for one environment on a backend whose states the test sets.
struct QuadrupedOnSetStates {
  std::shared_ptr<const sim::Robot> robot = sim::Robot::load("quadruped");
  ThreadPool pool{1};
  SetStateBackend backend{robot, pool};
  std::unique_ptr<SpecTask> owned = SpecTask::load(task_spec_path("quadruped-velocity"), *robot);
  SpecTask& task = *owned;
  QuadrupedOnSetStates() { task.allocate(1); }
};

int term_index(const Task& t, const std::string& name) {
  const auto& terms = t.reward_terms();
  for (size_t k = 0; k < terms.size(); ++k)
    if (terms[k].name == name) return int(k);
  return -1;
}

TEST(TaskTerms, QuadrupedVelocityTorqueTermEqualsMuJoCoActuatorForces) {
  QuadrupedOnSetStates f;
  const auto& robot = f.robot;
  SetStateBackend& backend = f.backend;
  SpecTask& task = f.task;
  const mjModel* m = robot->model();
  Rng rng(4);
  std::vector<double> q(size_t(m->nq)), v(size_t(m->nv), 0.0);
  task.reset(0, rng, q.data(), v.data());
  for (int i = 6; i < m->nv; ++i) v[size_t(i)] = rng.uniform(-3, 3);
  backend.set(q.data(), v.data());
  std::vector<float> action(12);
  for (float& a : action) a = float(rng.uniform(-2, 2));
  std::vector<double> terms(task.reward_terms().size());
  task.evaluate(0, backend, action.data(), rng, terms.data());

  mjData* d = mj_makeData(m);
  std::memcpy(d->qpos, q.data(), sizeof(double) * q.size());
  std::memcpy(d->qvel, v.data(), sizeof(double) * v.size());
  task.command(0, action.data(), d->ctrl);
  mj_forward(m, d);
  double expected = 0;
  for (int a = 0; a < m->nu; ++a) expected += d->actuator_force[a] * d->actuator_force[a];
  mj_deleteData(d);
  EXPECT_NEAR(terms[size_t(term_index(task, "torques"))], expected, 1e-9 * expected);
  EXPECT_GT(expected, 100.0);  // the clamped PD forces of random targets are large
}

TEST(TaskTerms, QuadrupedVelocityObservationAndTerminationFollowTheBase) {
  QuadrupedOnSetStates f;
  const auto& robot = f.robot;
  SetStateBackend& backend = f.backend;
  SpecTask& task = f.task;
  Rng rng(1);
  std::vector<double> q(robot->nominal_qpos()), v(size_t(backend.nv()), 0.0);
  v[0] = 0.5;  // world x velocity, base yawed by 90°: body-frame −y
  const double half = std::sqrt(0.5);
  q[3] = half;
  q[6] = half;
  backend.set(q.data(), v.data());
  const double cmd[3] = {0.0, -0.5, 0.0};
  task.set_command(0, velocity_command_index(task), cmd);
  std::vector<float> obs(size_t(task.observation_dim()));
  task.observe(0, backend, obs.data());
  EXPECT_NEAR(obs[0], 0.0, 1e-6);
  EXPECT_NEAR(obs[1], -0.5 * 2.0, 1e-6);  // linear velocity scale 2
  EXPECT_NEAR(obs[8], -1.0, 1e-6);        // upright: gravity along body −z
  std::vector<float> zero(12, 0.0f);
  std::vector<double> terms(task.reward_terms().size());
  EXPECT_FALSE(task.evaluate(0, backend, zero.data(), rng, terms.data()));
  EXPECT_NEAR(terms[size_t(term_index(task, "tracking_lin_vel"))], 1.0, 1e-9);  // tracks the command exactly
  q[2] = 0.2;  // base on the ground
  backend.set(q.data(), v.data());
  EXPECT_TRUE(task.evaluate(0, backend, zero.data(), rng, terms.data()));
  EXPECT_EQ(terms[size_t(term_index(task, "termination"))], 1.0);
}

TEST(TaskTerms, QuadrupedVelocityFeetAirTimeRewardsTheSwingOnTouchdown) {
  QuadrupedOnSetStates f;
  const auto& robot = f.robot;
  SetStateBackend& backend = f.backend;
  SpecTask& task = f.task;
  Rng rng(1);
  std::vector<double> q(robot->nominal_qpos()), v(size_t(backend.nv()), 0.0);
  backend.set(q.data(), v.data());
  const double cmd[3] = {1.0, 0.0, 0.0};
  task.hold_commands(true);
  task.set_command(0, velocity_command_index(task), cmd);
  std::vector<float> zero(12, 0.0f);
  std::vector<double> terms(task.reward_terms().size());
  const int air = term_index(task, "feet_air_time");
  for (int k = 0; k < 4; ++k) backend.set_clearance(k, 0.0);
  task.evaluate(0, backend, zero.data(), rng, terms.data());  // all feet down
  backend.set_clearance(0, 0.1);                              // foot 0 swings for 40 steps (0.8 s)
  double total = 0;
  for (int s = 0; s < 40; ++s) {
    task.evaluate(0, backend, zero.data(), rng, terms.data());
    total += terms[size_t(air)];
  }
  EXPECT_EQ(total, 0.0);  // nothing while in the air
  backend.set_clearance(0, 0.0);
  task.evaluate(0, backend, zero.data(), rng, terms.data());
  // touchdown, legged_gym's count: the first swing step still counts as contact (filtered with
  // the last contact), the landing step adds one: 40 steps × 0.02 s − 0.5 s
  EXPECT_NEAR(terms[size_t(air)], 40 * 0.02 - 0.5, 1e-9);
}

// humanoid-velocity's gait clock (unitree_rl_gym's G1): the phase observation, contact that
// agrees with the clock, the swing height of a lifted foot, and the clock in the saved state.
TEST(TaskTerms, HumanoidGaitClockDrivesThePhaseObservationAndTheContactReward) {
  auto robot = sim::Robot::load("humanoid");
  ThreadPool pool(1);
  SetStateBackend backend(robot, pool);
  auto task = SpecTask::load(task_spec_path("humanoid-velocity"), *robot);
  task->allocate(1);
  Rng rng(1);
  std::vector<double> q(robot->nominal_qpos()), v(size_t(backend.nv()), 0.0);
  task->reset(0, rng, q.data(), v.data());
  backend.set(robot->nominal_qpos().data(), v.data());
  const int D = task->observation_dim(), A = task->action_dim();
  std::vector<float> obs(static_cast<size_t>(D)), zero(static_cast<size_t>(A), 0.0f);
  std::vector<double> terms(task->reward_terms().size());
  const int contact = term_index(*task, "contact"), swing = term_index(*task, "feet_swing_height");
  ASSERT_GE(contact, 0);
  ASSERT_GE(swing, 0);
  task->observe(0, backend, obs.data());
  EXPECT_EQ(obs[size_t(D - 2)], 0.0f);  // the phase is the observation's last pair: (sin, cos) of 0
  EXPECT_EQ(obs[size_t(D - 1)], 1.0f);
  const auto set_feet = [&](double left, double right) {  // probes 0-3 on the left foot, 4-7 on the right
    for (int k = 0; k < 8; ++k) backend.set_clearance(k, k < 4 ? left : right);
  };
  // step 1, t = 0.02 s: left phase 0.025, right 0.525, both in stance (below 0.55)
  set_feet(0.0, 0.05);
  task->evaluate(0, backend, zero.data(), rng, terms.data());
  EXPECT_EQ(terms[size_t(contact)], 1.0);  // the lifted right foot disagrees
  EXPECT_NEAR(terms[size_t(swing)], (0.05 - 0.08) * (0.05 - 0.08), 1e-12);
  task->observe(0, backend, obs.data());
  EXPECT_NEAR(obs[size_t(D - 2)], std::sin(2 * M_PI * 0.025), 1e-6);
  EXPECT_NEAR(obs[size_t(D - 1)], std::cos(2 * M_PI * 0.025), 1e-6);
  BlobWriter saved;
  StateIo save(saved);
  task->io_state(save);
  for (int s = 2; s <= 10; ++s) task->evaluate(0, backend, zero.data(), rng, terms.data());
  // step 10, t = 0.2 s: left phase 0.25 (stance), right 0.75 (swing): this is the gait
  EXPECT_EQ(terms[size_t(contact)], 2.0);
  set_feet(0.0, 0.0);
  task->evaluate(0, backend, zero.data(), rng, terms.data());
  EXPECT_EQ(terms[size_t(contact)], 1.0);  // step 11: the right foot should swing
  EXPECT_EQ(terms[size_t(swing)], 0.0);    // nothing off the ground
  BlobReader reader(saved.bytes(), "task state");
  StateIo load(reader);
  task->io_state(load);  // back to step 1: the clock too
  task->observe(0, backend, obs.data());
  EXPECT_NEAR(obs[size_t(D - 2)], std::sin(2 * M_PI * 0.025), 1e-6);
  task->reset(0, rng, q.data(), v.data());
  task->observe(0, backend, obs.data());
  EXPECT_EQ(obs[size_t(D - 1)], 1.0f);  // a new episode restarts the clock
}

TEST(TaskTerms, GaitTermsWithoutTheSpecsGaitAreRefusedNamingIt) {
  auto robot = sim::Robot::load("humanoid");
  nlohmann::json spec = read_json_file(task_spec_path("humanoid-velocity"), "spec");
  spec.erase("gait");
  try {
    SpecTask task(spec, "humanoid-velocity.json", *robot);
    FAIL() << "a gait_phase observation without a gait was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs the spec's \"gait\""), std::string::npos) << e.what();
  }
  spec = read_json_file(task_spec_path("humanoid-velocity"), "spec");
  spec["rewards"].push_back({{"term", "gait_contact"}, {"offsets", {0.0, 0.5, 0.25}},
                             {"feet", {"left_ankle_roll_link", "right_ankle_roll_link"}}, {"scale", 1.0}});
  EXPECT_THROW(SpecTask(spec, "humanoid-velocity.json", *robot), Error);  // three offsets for two feet
  spec["gait"]["period_seconds"] = 0.0;
  EXPECT_THROW(SpecTask(spec, "humanoid-velocity.json", *robot), Error);
}

TEST(TaskTerms, CartpoleSwingupStartsHangingAndRewardsTheControlSuiteProduct) {
  auto robot = sim::Robot::load("cartpole");
  ThreadPool pool(1);
  MujocoBackend backend(robot, 1, pool);
  auto task = make_task("cartpole-swingup", *robot);
  ASSERT_EQ(task->name(), "cartpole-swingup");
  EXPECT_EQ(task_robot("cartpole-swingup"), "cartpole");
  ASSERT_EQ(task->reward_terms().size(), 1u);
  task->allocate(1);
  Rng rng(3);
  double q[2], v[2];
  task->reset(0, rng, q, v);
  EXPECT_LT(std::cos(q[1]), -0.99);  // hanging
  double r = 0;
  const float none = 0.0f;
  backend.reset(0, q, v);
  EXPECT_FALSE(task->evaluate(0, backend, &none, rng, &r));
  EXPECT_LT(r, 0.01) << "hanging earns (nearly) nothing";
  EXPECT_GE(r, 0.0);
  // upright, centred and still with no force: the whole reward
  const double upright[2] = {0.0, 0.0}, still[2] = {0.0, 0.0};
  backend.set_state(0, upright, still);
  EXPECT_FALSE(task->evaluate(0, backend, &none, rng, &r));
  EXPECT_DOUBLE_EQ(r, 1.0);
  // each factor by itself: the cart 2 m out (tolerance 0.1), the pole turning at 5 rad/s
  // (0.1), half force ((4 + 0.75)/5), each against the one at the centre
  const double out[2] = {2.0, 0.0}, spinning[2] = {0.0, 5.0};
  backend.set_state(0, out, still);
  task->evaluate(0, backend, &none, rng, &r);
  EXPECT_NEAR(r, 0.55, 1e-12);
  backend.set_state(0, upright, spinning);
  task->evaluate(0, backend, &none, rng, &r);
  EXPECT_NEAR(r, 0.55, 1e-12);
  const float half = 0.5f, beyond = 1.5f;
  backend.set_state(0, upright, still);
  task->evaluate(0, backend, &half, rng, &r);
  EXPECT_NEAR(r, 0.95, 1e-12);
  task->evaluate(0, backend, &beyond, rng, &r);
  EXPECT_NEAR(r, 0.8, 1e-12) << "an action beyond the bound earns the control factor's floor";
  const double off_track[2] = {2.5, 0.0};
  backend.set_state(0, off_track, still);
  EXPECT_TRUE(task->evaluate(0, backend, &none, rng, &r));
  EXPECT_GT(r, 0.0) << "the step that leaves the rail still earns its reward; what follows is forfeited";
  // per-step reward = scale·value·dt: the product counts 1 per step
  EXPECT_NEAR(task->reward_terms()[0].scale * robot->control_timestep(), 1.0, 1e-12);
  EXPECT_TRUE(task->reward_terms()[0].objective);
}

}  // namespace
}  // namespace flashnerd::env
