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
#include "env/vec_env.h"
#include "rl/iteration_log.h"
#include "rl/model_based_ppo.h"
#include "rl/model_refresh.h"
#include "rl/observation_normalizer.h"
#include "rl/policy.h"
#include "rl/policy_eval.h"
#include "rl/ppo.h"
#include "rl/runner_component.h"

namespace flashnerd::rl {

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
  RealEnvOptions real;    // model-based PPO (rl/model_based_ppo.h); off without real.env
  // On-policy refreshes of the learned model from the real environments' windows (needs real.env)
  ModelRefreshOptions refresh;
  // Further extensions, called after model-based PPO's component in this order
  // (rl/runner_component.h); their settings join the run's identity.
  std::vector<std::shared_ptr<PpoRunnerComponent>> components;
};

struct PpoRunResult {
  std::vector<IterationRow> rows;
  std::vector<std::string> term_names;
};

// rsl_rl's OnPolicyRunner: owns the run (its directory, lock, normalizer, log, checkpoints)
// around the algorithm (rl/ppo.h), which owns the rollout storage. Construction checks the
// output and the memory, makes the policy and restores a checkpoint under resume; run() then
// does the remaining iterations: collect, update, log, evaluate, save, calling its components
// (rl/runner_component.h; model-based PPO is one) at their hooks.
class PpoRunner : public PpoRunnerAccess {
 public:
  PpoRunner(env::VecEnv& env, const PpoRunOptions& options);
  ~PpoRunner() override;
  PpoRunner(const PpoRunner&) = delete;
  PpoRunner& operator=(const PpoRunner&) = delete;

  PpoRunResult run();

  // PpoRunnerAccess; collecting the imagined environments also updates the observation statistics
  double collect(env::VecEnv& env, int first_env, Rng& noise, double& policy_seconds,
                 const std::function<void()>& after_step) override;
  void explore_step(env::VecEnv& env, Rng& noise) override;
  void normalize(const float* observations, int rows, float* out) const override;

 private:
  void check_output() const;
  void restore();
  void update(IterationRow& row, Rng& order);
  void log_iteration(IterationRow& row, double reward_sum, double iteration_seconds);
  void evaluate(IterationRow& row);
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
  std::vector<float> last_obs_n_;  // the observations after the last step (imagined, then the components')
  std::vector<std::shared_ptr<PpoRunnerComponent>> components_;  // model-based PPO first, then the options'
  PpoRunResult result_;
  nlohmann::json identity_;
  int start_ = 0, last_saved_ = 0;
  double clock_ = 0;  // training wall time so far
  int64_t transitions_ = 0;
};

// PpoRunner(env, options).run()
PpoRunResult run_ppo(env::VecEnv& env, const PpoRunOptions& options);

}  // namespace flashnerd::rl
