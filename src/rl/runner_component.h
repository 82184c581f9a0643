// Extensions of the PPO runner (rl/ppo_runner.h) as components with hooks, as rsl_rl's runner
// takes its extensions: the runner owns the loop (collect, update, log, evaluate, save) and
// calls each component at fixed points of it, in the order the components were given. A
// component reaches the policy through PpoRunnerAccess, never through the runner's members.
// Model-based PPO (rl/model_based_ppo.h) is one.
//
// One iteration: before_collection → the imagined collection → the PPO update (reading
// last_observations when the component adds environments to the batch) → after_iteration →
// (every checkpoint_every iterations) save. A resume calls reload, then the imagined
// environments' state is loaded, then load.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "env/vec_env.h"
#include "rl/iteration_log.h"

namespace flashnerd::train {
class CheckpointWriter;
class CheckpointReader;
}  // namespace flashnerd::train

namespace flashnerd::rl {

// What a component may ask of the runner: the current policy in action, with its observation
// statistics.
class PpoRunnerAccess {
 public:
  virtual ~PpoRunnerAccess() = default;
  // steps_per_env steps of every environment of `env` with the current policy, recorded into
  // the PPO storage's environments from `first_env` on; `after_step` runs after each step;
  // returns the sum of their rewards
  virtual double collect(env::VecEnv& env, int first_env, Rng& noise, double& policy_seconds,
                         const std::function<void()>& after_step) = 0;
  // One step of every environment of `env` with actions the policy samples (not recorded),
  // observations normalized by the imagined run's statistics, which it leaves alone.
  virtual void explore_step(env::VecEnv& env, Rng& noise) = 0;
  // Observations (rows, obs_dim) normalized by the run's statistics into `out` (may alias).
  virtual void normalize(const float* observations, int rows, float* out) const = 0;
};

class PpoRunnerComponent {
 public:
  virtual ~PpoRunnerComponent() = default;
  // Names the component in errors and its checkpoint blob (NAME_state).
  virtual std::string name() const = 0;
  // Settings in use: merged into the run's identity (a resume must match them) and into the
  // policy's training record. Empty: nothing.
  virtual nlohmann::json settings() const { return nlohmann::json::object(); }
  // Environments whose transitions join the PPO batch after the imagined ones, and rows
  // (environments) the runner's step buffers must hold for them.
  virtual int batch_envs() const { return 0; }
  virtual int step_rows() const { return 0; }
  // A new run (no resume): the component's environments start from their resets.
  virtual void start() {}
  // Before the iteration's imagined collection (0-based `iteration`).
  virtual void before_collection(PpoRunnerAccess& runner, IterationRow& row, int iteration) {
    (void)runner, (void)row, (void)iteration;
  }
  // The batch_envs() environments' observations after their last step, normalized into `out`
  // (batch_envs() × obs_dim), for the update's bootstrap.
  virtual void last_observations(const PpoRunnerAccess& runner, float* out) const { (void)runner, (void)out; }
  // After the update and the log of the iteration: the component's cumulative counters.
  virtual void after_iteration(IterationRow& row) { (void)row; }
  // The checkpoint: the component's meta fields and blobs (by convention NAME_state).
  virtual void save(nlohmann::json& meta, train::CheckpointWriter& writer) const { (void)meta, (void)writer; }
  // A resume, before any environment state is loaded: what the environments step (e.g. the
  // model the checkpoint last stepped).
  virtual void reload(const nlohmann::json& meta) { (void)meta; }
  // A resume, after the imagined environments' state: the component's own state and
  // counters (`last`: the checkpoint's last row, null when it has none).
  virtual void load(const train::CheckpointReader& reader, const IterationRow* last) { (void)reader, (void)last; }
};

}  // namespace flashnerd::rl
