// MuJoCo's cartpole with the balance task in a VecEnv: the small real environment of the env
// and rl tests.
#pragma once

#include <memory>

#include "core/thread_pool.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/vec_env.h"

namespace flashnerd::testing {

struct CartpoleEnv {
  CartpoleEnv(int envs, uint64_t seed, ThreadPool& pool)
      : robot(sim::Robot::load("cartpole")), backend(robot, envs, pool), task(env::make_task("cartpole-balance", *robot)),
        env(*task, backend, pool, seed) {}
  std::shared_ptr<const sim::Robot> robot;
  env::MujocoBackend backend;
  std::unique_ptr<env::Task> task;
  env::VecEnv env;
};

}  // namespace flashnerd::testing
