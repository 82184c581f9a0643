// A policy in a control loop: the template for a robot's control computer. Every control
// period the loop reads the robot's state, builds the policy's observation, computes the
// action (Policy::act: plain C++, no libtorch), turns it into actuator commands and applies
// them. Here MuJoCo stands in for the robot (env::MujocoBackend behind env::VecEnv); on
// hardware, replace the backend with your state estimate and command outputs and keep the
// rest. With --realtime the loop keeps the task's rate on the wall clock; --command holds a
// velocity command (an operator's joystick) for tasks that take one.
//
// Build against an installed FlashNeRD (cmake --install): see CMakeLists.txt here.
// Usage: deploy POLICY_DIR [--steps N] [--seed S] [--command VX,VY,YAW] [--realtime]
// Exit status 0 when the robot never fell, 3 when it did (1: an error).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/thread_pool.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/spec_task.h"
#include "env/vec_env.h"
#include "rl/policy.h"
#include "sim/robot.h"

namespace fn = flashnerd;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s POLICY_DIR [--steps N] [--seed S] [--command VX,VY,YAW] [--realtime]\n",
                 argv[0]);
    return 2;
  }
  int steps = 1000;
  unsigned long long seed = 1;
  bool realtime = false;
  std::vector<double> command;  // empty: the task draws its commands
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--realtime") realtime = true;
    else if (a == "--command" && i + 1 < argc) {
      double c[3];
      if (std::sscanf(argv[++i], "%lf,%lf,%lf", &c[0], &c[1], &c[2]) != 3) {
        std::fprintf(stderr, "deploy: --command takes VX,VY,YAW, got '%s'\n", argv[i]);
        return 2;
      }
      command.assign(c, c + 3);
    }
    else {
      std::fprintf(stderr, "deploy: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  try {
    // the policy and the task it was trained for (its observation and action maps)
    const fn::rl::Policy policy = fn::rl::Policy::load(argv[1]);
    const fn::rl::PolicyInfo& info = policy.info();
    std::shared_ptr<const fn::sim::Robot> robot = fn::sim::Robot::load(info.robot);
    std::unique_ptr<fn::env::Task> task = fn::env::make_task(info.task, *robot);
    // the robot: one MuJoCo environment (on hardware, your I/O in its place)
    fn::ThreadPool pool(1);
    fn::env::MujocoBackend backend(robot, 1, pool);
    fn::env::VecEnv env(*task, backend, pool, seed);
    auto* spec = dynamic_cast<fn::env::SpecTask*>(task.get());
    const int velocity = spec ? fn::env::velocity_command_index(*spec) : -1;
    if (!command.empty()) {
      if (velocity < 0) throw std::runtime_error("task " + info.task + " takes no velocity command");
      spec->hold_commands(true);  // the operator's command, not the task's random ones
    }
    env.reset_all();
    if (!command.empty()) {
      spec->set_command(0, velocity, command.data());
      env.refresh_observations();
    }

    fn::rl::PolicyScratch scratch = policy.make_scratch();  // allocated once, before the loop
    std::vector<float> action(size_t(info.action_dim));
    const double period = env.step_seconds();
    int falls = 0;
    double reward = 0;
    auto next_tick = std::chrono::steady_clock::now();
    const auto start = next_tick;
    for (int t = 0; t < steps; ++t) {
      policy.act(env.observations(), 1, action.data(), scratch);  // observation -> action
      env.step(action.data());                                    // action -> commands -> physics
      reward += env.rewards()[0];
      if (env.terminated()[0]) {
        ++falls;
        std::printf("step %d: the episode ended in a failure (a fall); the robot was reset\n", t + 1);
      }
      if (realtime) {
        next_tick += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(period));
        std::this_thread::sleep_until(next_tick);
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("deploy: task %s, robot %s, %d steps of %.4g s (%.3g s simulated in %.3g s), reward %.6g, falls %d\n",
                info.task.c_str(), info.robot.c_str(), steps, period, steps * period, seconds, reward, falls);
    return falls == 0 ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "deploy: %s\n", e.what());
    return 1;
  }
}
