// DIAL-MPC (Xue et al. 2024, "Full-Order Sampling-Based MPC for Torque-Level Locomotion
// Control via Diffusion-Style Annealing"; reference: LeCAR-Lab/dial-mpc dial_core.py): the
// plan is a few control knots joined by a spline, in normalized action units [−1, 1]. Each
// decision runs several annealing iterations (more at the first decision); iteration i
// samples knots around the current plan with noise σ0 · hdf^(K−1−k) · tdf^i at knot k (far
// knots explore more, later iterations less), keeps knot 0 (the control being applied now),
// clips to the action range, includes the current plan itself, rolls every sample out, and
// moves the plan to the softmax-weighted mean of the samples, with weights
// exp((R − R_plan) / std(R) / temperature) of the normalized returns. A diverging sample gets
// the worst return of its iteration, so it weighs least and is never dropped. After the
// control is applied the plan shifts one step (receding horizon).
//
// Everything is allocated at construction for options.samples; optimize() never allocates.
// Sampling is serial from one seeded stream: same seed, same plan, whatever the threads.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "mpc/knot_spline.h"

namespace flashnerd::mpc {

struct DialOptions {
  int samples = 160;            // rollouts per iteration, the current plan among them (paper)
  int horizon = 24;             // control steps per rollout (paper: 24 × 20 ms)
  int knots = 5;                // spline knots over the horizon (dial-mpc's Hnode + 1)
  int iterations = 2;           // annealing iterations per decision (Ndiffuse)
  int first_iterations = 10;    // at the first decision of a trial (Ndiffuse_init)
  double sigma0 = 1.0;          // noise at the last knot of the first iteration (action units)
  double horizon_diffuse_factor = 0.9;     // hdf: noise × hdf per knot nearer now
  double trajectory_diffuse_factor = 0.5;  // tdf: noise × tdf per iteration
  double temperature = 0.1;     // softmax temperature on standardized returns
  uint64_t seed = 0;
  // Risk-aware planning (the planner's rollouts): each step's reward minus risk_penalty × the
  // backend's ensemble disagreement at the new state, so samples through states the members
  // disagree on lose weight. 0: the plain return, bit for bit.
  double risk_penalty = 0;
};

// Checks every field, naming the command-line option at fault.
void validate(const DialOptions& options);

// Rolls out control sequences from the planner's current state: actions (count, horizon,
// action_dim) in normalized units; returns[i] the mean reward per step of sequence i;
// diverged[i] = 1 when its dynamics failed on the way (its return is then ignored).
class RolloutEvaluator {
 public:
  virtual ~RolloutEvaluator() = default;
  virtual void evaluate(int count, const double* actions, double* returns, uint8_t* diverged) = 0;
};

// One decision's annealing, for logs.
struct DialReport {
  int iterations = 0;
  double plan_return = 0;   // return of the plan the last iteration started from
  double best_return = 0;   // best sample of the last iteration
  double final_spread = 0;  // std of the last iteration's returns
  int diverged = 0;         // samples that diverged, summed over iterations
};

class Dial {
 public:
  Dial(const DialOptions& options, int action_dim);
  const DialOptions& options() const { return o_; }
  int action_dim() const { return action_dim_; }

  // A new trial: the plan returns to zero (the nominal action), the stream to `seed`.
  void reset(uint64_t seed);
  // One decision: the annealing iterations, each rolled out by `evaluator`.
  const DialReport& optimize(RolloutEvaluator& evaluator);
  // The control to apply now (knot 0, action_dim values in [−1, 1]).
  const double* action() const { return plan_.data(); }
  // The plan's knots (knots, action_dim).
  const double* plan() const { return plan_.data(); }
  // The plan's controls at steps 0..horizon−1 into out (horizon, action_dim).
  void plan_controls(double* out) const { spline_.controls(plan_.data(), action_dim_, out); }
  // After the action was applied: the plan moves one control step on.
  void shift() { spline_.shift(plan_.data(), action_dim_, scratch_.data()); }

 private:
  void iterate(RolloutEvaluator& evaluator, int iteration);

  DialOptions o_;
  int action_dim_;
  KnotSpline spline_;
  Rng rng_;
  bool first_ = true;
  DialReport report_;
  std::vector<double> plan_, scratch_, sigma_;
  std::vector<double> sample_knots_;  // (samples, knots, action_dim)
  std::vector<double> actions_;       // (samples, horizon, action_dim)
  std::vector<double> returns_, weights_;
  std::vector<uint8_t> diverged_;
};

}  // namespace flashnerd::mpc
