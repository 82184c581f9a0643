// Fuzz target: a task spec file through env::make_task, against a built-in robot chosen by the
// input's first byte (modulo 3: cartpole, quadruped, hand16 with its cube); the rest of the input
// is the spec's JSON,
// written to task.json in a temporary directory. A spec that loads is then stepped once over
// MuJoCo (2 environments, reset, one step of zero actions) so that its observation, reward,
// termination and reset terms run. A bad spec must end in flashnerd::Error; any other
// exception, a sanitizer report or a huge allocation is a bug.
// Seeds (fuzz/corpus/task_spec/) are robots/tasks/*.json behind a '0' (cartpole), '1' (quadruped)
// or '2' (hand16) byte. A spec may leave observations or rewards to Python terms, so one that
// has none loads and is refused (flashnerd::Error) when its environments are allocated.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/vec_env.h"
#include "sim/robot.h"

namespace {

namespace fs = std::filesystem;
namespace env = flashnerd::env;

constexpr int kEnvs = 2;
// A spec may hold each action for up to 2^30 simulator steps (control_steps); legal but slow,
// so such a spec is loaded and not stepped.
constexpr int kMaxSteppedControlSteps = 16;

// The spec file's path, in a directory made once per process.
const std::string& spec_path() {
  static const std::string path = [] {
    char name[] = "/tmp/fuzz_task_spec_XXXXXX";
    const char* made = ::mkdtemp(name);
    if (made == nullptr) std::abort();
    return (fs::path(made) / "task.json").string();
  }();
  return path;
}

// The robots, loaded once per process (a MuJoCo model compile per input would dominate).
const std::shared_ptr<const flashnerd::sim::Robot>& robot(uint8_t choice) {
  static const std::shared_ptr<const flashnerd::sim::Robot> robots[3] = {
      flashnerd::sim::Robot::load("cartpole"), flashnerd::sim::Robot::load("quadruped"),
      flashnerd::sim::Robot::load("hand16")};
  return robots[choice % 3];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& r = robot(data[0]);
  const std::string& path = spec_path();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
  }
  std::unique_ptr<env::Task> task;
  try {
    task = env::make_task(path, *r);
  } catch (const flashnerd::Error&) {
    return 0;
  }
  // a loaded spec steps: its terms must hold for a reset state and one step
  if (task->control_steps() > kMaxSteppedControlSteps) return 0;
  static flashnerd::ThreadPool pool(1);
  env::MujocoBackend backend(r, kEnvs, pool);
  std::unique_ptr<env::VecEnv> vec;
  try {
    vec = std::make_unique<env::VecEnv>(*task, backend, pool, 1);
  } catch (const flashnerd::Error&) {
    return 0;  // observes or rewards nothing
  }
  vec->reset_all();
  const std::vector<float> actions(size_t(kEnvs) * size_t(vec->action_dim()), 0.0f);
  vec->step(actions.data());
  return 0;
}
