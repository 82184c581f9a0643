// The PPO training loop over a VecEnv: collect steps_per_env × envs transitions with the
// current policy (observations normalized empirically), update, log, checkpoint. Every
// iteration's wall time is split into dynamics, sensing (probes / contacts), policy
// inference, the PPO update and task bookkeeping. Optional evaluation of the mean policy in
// a second VecEnv (the analytic simulator) runs off the training clock. Outputs in out_dir:
// checkpoint.pt (resumable, bit-exact), log.csv, reward curves (PNG, against wall time and
// transitions), policy/ (the libtorch-free artifact, last iteration) and, with evaluations,
// best_policy/ (the mean policy of the best evaluation so far: the paper picks its policy by
// validation in the simulator; policy.json's training.selected_by says which).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/output_policy.h"
#include "core/rng.h"
#include "env/history_recorder.h"
#include "env/start_buffer.h"
#include "env/vec_env.h"
#include "env/command_plan_recorder.h"
#include "rl/explored_data.h"
#include "rl/iteration_log.h"
#include "rl/model_refresh.h"
#include "rl/observation_normalizer.h"
#include "rl/policy.h"
#include "rl/policy_eval.h"
#include "rl/ppo.h"

namespace flashnerd::rl {

// Model-based PPO (MBPO, RWM's MBPO-PPO) with the real system in the loop: every `every`
// iterations, the current policy explores `steps` steps of the real environments (MuJoCo, or
// the robot's simulator of record); the states they visit, with their histories, become the
// starts of branched imagined episodes (env::BranchedStarts). The real environments never
// train the policy directly and use their own random streams: with branch_fraction 0 the
// imagined run is the run without them, bit for bit.
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

struct PpoRunOptions {
  PpoConfig ppo;
  int iterations = 300;
  uint64_t seed = 1;
  std::string out_dir;
  bool resume = false;
  bool allow_unsealed = false;  // resume from a checkpoint older flashnerd wrote unsealed
  bool overwrite = false;
  int checkpoint_every = 10;  // iterations
  // OpenBLAS threads of the PPO update (0: all cores), the same whatever the backend (the
  // engine sets OpenBLAS to one thread for its own steps, which would otherwise make learned
  // backends' updates single-threaded and MuJoCo's not). One by default: two were no faster
  // for these small networks (measured), and the bits of an update depend on the count.
  int update_threads = 1;
  // The fused minibatch update (rl/fused_ppo_update.h) instead of libtorch's autograd.
  bool fused_update = false;
  bool progress = true;
  env::VecEnv* eval_env = nullptr;  // evaluated every eval_every iterations (0: never)
  int eval_every = 0;
  int eval_steps = 1000;
  nlohmann::json run_info = nlohmann::json::object();  // backend, model, ... (policy.json "training")
  // The stepped model's content (core/model_artifact.h model_fingerprint; empty for MuJoCo):
  // part of the run's identity, so a resume on other dynamics is refused.
  std::string model_fingerprint;
  // Rewards other than the task's own (reward scales, clipping): part of the run's identity
  // and of the policy's training record; empty for the task's own rewards.
  nlohmann::json reward_settings = nlohmann::json::object();
  // Iterations over which the task's shaping terms grow from 1/N to their full scale
  // (rl/penalty_ramp.h), after penalty_delay iterations without them; 0 and 0: full from the
  // start. Part of the run's identity when set.
  int penalty_ramp = 0;
  int penalty_delay = 0;  // iterations with the shaping terms off before the ramp
  RealEnvOptions real;    // model-based PPO; off without real.env
  // On-policy refreshes of the learned model from the real environments' windows (needs real.env)
  ModelRefreshOptions refresh;
};

struct PpoRunResult {
  std::vector<IterationRow> rows;
  std::vector<std::string> term_names;
};

// rsl_rl's OnPolicyRunner: owns the run (its directory, lock, normalizer, log, checkpoints)
// around the algorithm (rl/ppo.h), which owns the rollout storage. Construction checks the
// output and the memory, makes the policy and restores a checkpoint under resume; run() then
// does the remaining iterations: collect, update, log, evaluate, save.
class PpoRunner {
 public:
  PpoRunner(env::VecEnv& env, const PpoRunOptions& options);
  ~PpoRunner();
  PpoRunner(const PpoRunner&) = delete;
  PpoRunner& operator=(const PpoRunner&) = delete;

  PpoRunResult run();

 private:
  void check_output() const;
  void restore();
  // steps_per_env steps of every environment of `env` with the current policy into the
  // storage's environments from `first_env` on (the imagined ones update the observation
  // statistics); `after_step` runs after each step; returns the sum of their rewards
  double collect(env::VecEnv& env, int first_env, Rng& noise, double& policy_seconds,
                 const std::function<void()>& after_step);
  void update(IterationRow& row, Rng& order);
  void log_iteration(IterationRow& row, double reward_sum, double iteration_seconds);
  void evaluate(IterationRow& row);
  // model-based PPO: the checks and the start buffer; an exploration of the real environments
  void set_up_real();
  void explore_real(IterationRow& row, int iteration);
  void refresh(IterationRow& row, int iteration);
  std::string save_real() const;
  void load_real(const std::string& bytes);
  Policy current_policy(int iteration, const nlohmann::json& extra) const;
  void save(int iteration);

  env::VecEnv& env_;
  const PpoRunOptions o_;  // a copy: the caller's options may not outlive the runner
  const std::string ckpt_path_, policy_dir_, best_dir_;
  int update_threads_ = 1;
  std::unique_ptr<OutputLock> lock_;
  std::unique_ptr<Ppo> ppo_;
  ObservationNormalizer normalizer_;
  // per step: normalized observations, final observations of timed-out environments, actions,
  // and the time-out bootstrap
  std::vector<float> obs_n_, final_n_, actions_, bootstrap_, final_values_;
  std::vector<float> last_obs_n_;  // the observations after the last step (imagined, then real ones in the batch)
  // model-based PPO (real.env set): the starts and the real environments' histories
  std::unique_ptr<env::StartBuffer> starts_;
  std::unique_ptr<env::HistoryRecorder> recorder_;
  int64_t real_transitions_ = 0;
  // on-policy refreshes: the explored windows and their data, the artifact the backend steps, updates so far
  std::unique_ptr<env::CommandPlanRecorder> windows_;
  std::unique_ptr<ExploredData> explored_;  // the windows replayed so far
  std::string model_dir_;
  int64_t refresh_updates_ = 0;
  PpoRunResult result_;
  nlohmann::json identity_;
  int start_ = 0, last_saved_ = 0;
  double clock_ = 0;  // training wall time so far
  int64_t transitions_ = 0;
};

// PpoRunner(env, options).run()
PpoRunResult run_ppo(env::VecEnv& env, const PpoRunOptions& options);

}  // namespace flashnerd::rl
