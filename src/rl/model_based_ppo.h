// Model-based PPO (MBPO, RWM's MBPO-PPO) as a component of the PPO runner
// (rl/runner_component.h): every `every` iterations the current policy explores `steps` steps
// of the real environments (MuJoCo, or the robot's simulator of record); the states they
// visit, with their histories, become the starts of branched imagined episodes
// (env::BranchedStarts). Optionally the real transitions join the PPO batch (in_batch), and
// the learned model is refreshed on the explored windows (rl/model_refresh.h). The real
// environments never train the policy directly unless in_batch, and use their own random
// streams: with branch_fraction 0 the imagined run is the run without them, bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "env/command_plan_recorder.h"
#include "env/history_recorder.h"
#include "env/start_buffer.h"
#include "env/vec_env.h"
#include "rl/explored_data.h"
#include "rl/model_refresh.h"
#include "rl/penalty_ramp.h"
#include "rl/runner_component.h"

namespace flashnerd::rl {

struct RealEnvOptions {
  env::VecEnv* env = nullptr;  // the real environments (same task); null: none
  int every = 1;               // iterations between explorations
  int steps = 24;              // steps of every real environment per exploration
  double branch_fraction = 0.5;  // share of imagined episodes that start from a real state
  int branch_steps = 0;          // steps after which a branched episode times out (0: the task's)
  int buffer_capacity = 4096;    // real starts held (the oldest give way)
  // The real transitions join the PPO batch beside the imagined ones (RWM's MBPO-PPO): the
  // policy then also learns from what the real system does. Needs every 1 and steps equal to
  // PPO's steps per environment; the penalty ramp applies to the real rewards too.
  bool in_batch = false;
};

// What the component needs to know of the run it joins.
struct ModelBasedRun {
  env::VecEnv* imagined = nullptr;         // the environments PPO trains on
  const env::VecEnv* eval_env = nullptr;   // the evaluation's (must not be the real ones)
  uint64_t seed = 1;
  std::string out_dir;                     // refreshed models go under out_dir/model_refresh/
  int steps_per_env = 24;                  // PPO's
  int penalty_ramp = 0, penalty_delay = 0; // the run's penalty curriculum (for in_batch rewards)
};

class ModelBasedPpo : public PpoRunnerComponent {
 public:
  // Checks the settings against the run and sets up the start buffer, the history recorder and
  // (refresh.on()) the explored windows; the imagined environments then draw branched starts.
  ModelBasedPpo(const RealEnvOptions& real, ModelRefreshOptions refresh, const ModelBasedRun& run);
  ~ModelBasedPpo() override;

  std::string name() const override { return "real"; }
  nlohmann::json settings() const override;
  int batch_envs() const override;
  int step_rows() const override;
  void start() override;
  void before_collection(PpoRunnerAccess& runner, IterationRow& row, int iteration) override;
  void last_observations(const PpoRunnerAccess& runner, float* out) const override;
  void after_iteration(IterationRow& row) override;
  void save(nlohmann::json& meta, train::CheckpointWriter& writer) const override;
  void reload(const nlohmann::json& meta) override;
  void load(const train::CheckpointReader& reader, const IterationRow* last) override;

 private:
  void explore(PpoRunnerAccess& runner, IterationRow& row, int iteration);
  void refresh(IterationRow& row, int iteration);

  const RealEnvOptions real_;
  const ModelRefreshOptions refresh_;
  const ModelBasedRun run_;
  std::unique_ptr<PenaltyRamp> ramp_;  // in_batch: real rewards that train follow the run's curriculum
  std::unique_ptr<env::StartBuffer> starts_;
  std::unique_ptr<env::HistoryRecorder> recorder_;
  int64_t real_transitions_ = 0;
  // on-policy refreshes: the explored windows and their data, the artifact the backend steps
  std::unique_ptr<env::CommandPlanRecorder> windows_;
  std::unique_ptr<ExploredData> explored_;
  std::string model_dir_;
  int64_t refresh_updates_ = 0;
};

}  // namespace flashnerd::rl
