// Records a task tape (tests/testing/task_tape.h): a task on MuJoCo driven by seeded random
// actions, a little beyond the action bound now and then to exercise the clamps.
//   record_task_tape TASK OUT.tape ENVS STEPS SPREAD
// TASK: a built-in task's name or a spec file's path (tests/data/task_tapes/README.md says which
// tasks and sizes the committed tapes were recorded with).
#include <cstdio>
#include <exception>
#include <string>

#include "core/rng.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "env/spec_task.h"
#include "env/vec_env.h"
#include "testing/task_tape.h"

namespace flashnerd::testing {
namespace {

constexpr uint64_t kEnvSeed = 11, kActionSeed = 3;

// MuJoCo, with each task step's physics (after its last backend step) written to the tape.
class RecordingBackend : public env::MujocoBackend {
 public:
  RecordingBackend(std::shared_ptr<const sim::Robot> robot, int envs, ThreadPool& pool, TaskTape& tape)
      : MujocoBackend(std::move(robot), envs, pool), tape_(&tape) {}
  void step_first(const double* u, int count) override {
    MujocoBackend::step_first(u, count);
    if (++call_ < tape_->control_steps) return;
    call_ = 0;
    for (int e = 0; e < envs_; ++e) {
      tape_->physics.resize(tape_->physics.size() + size_t(tape_->row));
      read_tape_row(*this, e, tape_->physics.data() + tape_->physics.size() - size_t(tape_->row));
    }
  }

 private:
  TaskTape* tape_;
  int call_ = 0;
};

void record_resets(const env::VecEnv& vec, int phase, const uint8_t* ended, TaskTape& tape) {
  for (int e = 0; e < vec.envs(); ++e) {
    if (ended != nullptr && !ended[e]) continue;
    tape.reset_slot[size_t(phase) * size_t(vec.envs()) + size_t(e)] = int(tape.resets.size() / size_t(tape.row));
    tape.resets.resize(tape.resets.size() + size_t(tape.row));
    read_tape_row(vec.backend(), e, tape.resets.data() + tape.resets.size() - size_t(tape.row));
  }
}

template <class T>
void append(std::vector<T>& to, const T* from, size_t count) {
  to.insert(to.end(), from, from + count);
}

int record(const std::string& task_name, const std::string& out, int envs, int steps, double spread) {
  const std::string robot_name = env::task_robot(task_name);
  auto robot = sim::Robot::load(robot_name);
  std::unique_ptr<env::Task> task = env::make_task(task_name, *robot);
  ThreadPool pool(2);
  TaskTape tape;
  RecordingBackend backend(robot, envs, pool, tape);
  env::VecEnv vec(*task, backend, pool, kEnvSeed);
  nlohmann::json terms = nlohmann::json::array(), observation = nlohmann::json::array();
  for (const env::RewardTerm& t : task->reward_terms())
    terms.push_back({{"name", t.name}, {"scale", t.scale}, {"after_clip", t.after_clip}, {"objective", t.objective}});
  for (const auto& [name, width] : task->observation_terms()) observation.push_back({name, width});
  tape.envs = envs, tape.steps = steps, tape.row = tape_row_width(backend);
  tape.obs = vec.observation_dim(), tape.act = vec.action_dim(), tape.nu = backend.nu();
  tape.terms = int(terms.size());
  tape.control_steps = task->control_steps();
  tape.header = {{"task", task->name()}, {"source", task_name}, {"robot", robot_name}, {"envs", envs},
                 {"steps", steps}, {"action_spread", spread}, {"env_seed", kEnvSeed}, {"action_seed", kActionSeed},
                 {"row", tape.row}, {"obs", tape.obs}, {"act", tape.act}, {"nu", tape.nu}, {"control_steps", tape.control_steps},
                 {"episode_steps", task->episode_steps()}, {"action_bound", task->action_bound()},
                 {"reward_terms", terms}, {"observation_terms", observation}};
  tape.reset_slot.assign(size_t(steps + 1) * size_t(envs), -1);
  vec.reset_all();
  record_resets(vec, 0, nullptr, tape);
  const size_t ob = size_t(envs) * size_t(tape.obs);
  append(tape.observations, vec.observations(), ob);
  Rng rng(kActionSeed);
  std::vector<float> actions(size_t(envs) * size_t(tape.act));
  std::vector<uint8_t> ended(static_cast<size_t>(envs));
  int64_t episodes = 0;
  for (int s = 0; s < steps; ++s) {
    for (float& x : actions) x = float(rng.uniform(-spread, spread));
    vec.step(actions.data());
    append(tape.actions, actions.data(), actions.size());
    append(tape.commands, vec.commands(), size_t(envs) * size_t(tape.nu));
    for (int e = 0; e < envs; ++e) {
      append(tape.term_values, vec.term_values(e), size_t(tape.terms));
      ended[size_t(e)] = vec.terminated()[e] | vec.timed_out()[e];
      episodes += ended[size_t(e)];
    }
    append(tape.rewards, vec.rewards(), size_t(envs));
    append(tape.terminated, vec.terminated(), size_t(envs));
    append(tape.timed_out, vec.timed_out(), size_t(envs));
    append(tape.observations, vec.observations(), ob);
    for (int e = 0; e < envs; ++e)
      if (ended[size_t(e)])
        append(tape.final_observations, vec.final_observations() + size_t(e) * size_t(tape.obs), size_t(tape.obs));
    record_resets(vec, s + 1, ended.data(), tape);
  }
  tape.header["episodes_ended"] = episodes;
  tape.save(out);
  std::printf("%s: %d envs x %d steps of %s, %lld episodes ended, %zu resets\n", out.c_str(), envs, steps,
              task->name().c_str(), (long long)episodes, tape.resets.size() / size_t(tape.row));
  return 0;
}

}  // namespace
}  // namespace flashnerd::testing

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: record_task_tape TASK OUT.tape ENVS STEPS SPREAD\n");
    return 2;
  }
  try {
    return flashnerd::testing::record(argv[1], argv[2], std::stoi(argv[3]), std::stoi(argv[4]), std::stod(argv[5]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "record_task_tape: %s\n", e.what());
    return 1;
  }
}
