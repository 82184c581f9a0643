#include "rl/ppo_memory.h"

#include <gtest/gtest.h>

#include "env/factory.h"
#include "sim/robot.h"

namespace flashnerd::rl {
namespace {

// The quadruped's PPO run as `flashnerd ppo --task quadruped-velocity --envs N` makes it.
MemoryPlan quadruped_plan(int envs, const PpoRunOptions& o = {}) {
  const auto robot = sim::Robot::load("quadruped");
  const auto task = env::make_task("quadruped-velocity", *robot);
  env::BackendRequest r;
  r.envs = envs;
  const StateLayout& l = robot->layout();
  PpoMemoryShape s{envs, 0, task->observation_dim(), task->action_dim(), 0, l.nq, l.nv, l.nu};
  s.environments = env::environment_bytes(r, *robot, *task);
  return ppo_memory_plan(o, s);
}

// Measured on the quadruped with /usr/bin/time (maximum resident set, one iteration, default
// options, no evaluation): 384 MB at 4096 envs, 937 MB at 16384, so the run's own memory grows
// by 45 kB per environment. The estimate may exceed it (it is a refusal's threshold), but not
// fall short of it nor grossly exceed it.
TEST(PpoMemory, EstimateCoversTheMeasuredGrowthPerEnvironment) {
  const double per_env = (quadruped_plan(16384).total() - quadruped_plan(4096).total()) / 12288.0;
  EXPECT_GE(per_env, 45e3);
  EXPECT_LE(per_env, 1.5 * 45e3);
}

TEST(PpoMemory, EveryPartOfTheRunIsCounted) {
  PpoRunOptions o;
  const std::string parts = quadruped_plan(1024, o).breakdown();
  for (const char* part : {"environments", "rollout storage", "update activations"})
    EXPECT_NE(parts.find(part), std::string::npos) << parts;
  // a million quadrupeds: rollout and update together pass 40 GB, whatever each part alone
  EXPECT_GT(quadruped_plan(1 << 20, o).total(), 40e9);
}

TEST(PpoMemory, RealStartsAndRefreshWindowsAreCounted) {
  PpoRunOptions o;
  o.real.buffer_capacity = 1 << 20;
  o.refresh.every = 5;
  o.refresh.max_windows = 1 << 20;
  PpoMemoryShape s{64, 16, 48, 12, 16, 19, 18, 12};
  const std::string parts = ppo_memory_plan(o, s).breakdown();
  EXPECT_NE(parts.find("real start buffer"), std::string::npos) << parts;
  EXPECT_NE(parts.find("refresh windows"), std::string::npos) << parts;
  s.real_envs = 0;  // no real environments: neither exists
  EXPECT_EQ(ppo_memory_plan(o, s).breakdown().find("real start buffer"), std::string::npos);
}

}  // namespace
}  // namespace flashnerd::rl
