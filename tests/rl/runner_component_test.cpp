// Components of the PPO runner (rl/runner_component.h): each hook runs at its point of the
// loop in order, a component's settings join the run's identity (a resume with other settings
// is refused), its state rides in the checkpoint and comes back on resume, and a component
// that does nothing leaves the run bit for bit as it was.
#include "rl/runner_component.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"
#include "rl/ppo_runner.h"
#include "testing/cartpole_env.h"
#include "train/checkpoint.h"

namespace flashnerd::rl {
namespace {

using flashnerd::testing::CartpoleEnv;

// Records every hook it sees; counts the iterations it took part in (its checkpointed state).
class RecordingComponent : public PpoRunnerComponent {
 public:
  explicit RecordingComponent(int level) : level_(level) {}
  std::string name() const override { return "recording"; }
  nlohmann::json settings() const override { return {{"recording_level", level_}}; }
  void start() override { log.push_back("start"); }
  void before_collection(PpoRunnerAccess& runner, IterationRow& row, int iteration) override {
    (void)runner;
    EXPECT_EQ(row.iteration, iteration + 1);
    log.push_back("before " + std::to_string(iteration));
  }
  void after_iteration(IterationRow& row) override {
    ++count;
    row.refresh_updates = count;  // a counter of the log's, as model-based PPO keeps its own
    log.push_back("after " + std::to_string(row.iteration));
  }
  void save(nlohmann::json& meta, train::CheckpointWriter& writer) const override {
    meta["recording_count"] = count;
    writer.blob("recording_state", std::to_string(count));
    log.push_back("save");
  }
  void reload(const nlohmann::json& meta) override {
    log.push_back("reload " + std::to_string(meta.at("recording_count").get<int>()));
  }
  void load(const train::CheckpointReader& reader, const IterationRow* last) override {
    count = std::stoi(reader.blob("recording_state"));
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->refresh_updates, count);
    log.push_back("load " + std::to_string(count));
  }

  int count = 0;
  mutable std::vector<std::string> log;

 private:
  int level_;
};

// `iterations` of PPO on 8 MuJoCo cartpoles into `dir` (continuing its checkpoint under
// resume), with `component` when given.
PpoRunResult run(const std::string& dir, int iterations, bool resume,
                 const std::shared_ptr<PpoRunnerComponent>& component) {
  ThreadPool pool(1);
  CartpoleEnv e(8, 3, pool);
  PpoRunOptions o;
  o.ppo.steps_per_env = 8;
  o.ppo.actor_hidden = o.ppo.critic_hidden = {16, 16};
  o.iterations = iterations;
  o.seed = 7;
  o.out_dir = dir;
  o.progress = false;
  o.checkpoint_every = 2;
  o.resume = resume;
  if (component) o.components.push_back(component);
  return run_ppo(e.env, o);
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(PpoRunnerComponent, HooksRunInOrderAtTheirPointsOfTheLoop) {
  auto c = std::make_shared<RecordingComponent>(1);
  const PpoRunResult r = run(fresh_dir("component_hooks"), 3, false, c);
  const std::vector<std::string> expected{"start",   "before 0", "after 1", "before 1", "after 2", "save",
                                          "before 2", "after 3",  "save"};
  EXPECT_EQ(c->log, expected);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows.back().refresh_updates, 3);
}

TEST(PpoRunnerComponent, StateAndSettingsFollowTheCheckpoint) {
  const std::string dir = fresh_dir("component_resume");
  run(dir, 2, false, std::make_shared<RecordingComponent>(1));
  try {  // other settings: refused, naming the setting
    run(dir, 4, true, std::make_shared<RecordingComponent>(2));
    FAIL() << "a resume with other component settings was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("recording_level"), std::string::npos) << error.what();
  }
  auto c = std::make_shared<RecordingComponent>(1);
  const PpoRunResult r = run(dir, 4, true, c);
  const std::vector<std::string> expected{"reload 2", "load 2",   "before 2", "after 3",
                                          "before 3", "after 4",  "save"};
  EXPECT_EQ(c->log, expected);
  EXPECT_EQ(r.rows.back().refresh_updates, 4);
}

// A component that only watches changes nothing: the policy equals the run without it.
TEST(PpoRunnerComponent, AWatchingComponentChangesNothing) {
  const std::string plain = fresh_dir("component_plain"), watched = fresh_dir("component_watched");
  run(plain, 3, false, nullptr);
  run(watched, 3, false, std::make_shared<RecordingComponent>(1));
  EXPECT_EQ(read_file(plain + "/policy/policy.safetensors"), read_file(watched + "/policy/policy.safetensors"));
}

}  // namespace
}  // namespace flashnerd::rl
