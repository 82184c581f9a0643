// PlanTask: what a planner optimizes (docs/DESIGN.md §9): backend commands from normalized actions
// and a reward per step of named, weighted terms (env::RewardTerm, as env::Task's), read from
// the backend's state after the step (q, v, probe positions and clearances). Stateless per
// sample, so every sample of a planner can be scored in parallel.
#pragma once

#include <string>
#include <vector>

#include "env/backend.h"
#include "env/task.h"

namespace flashnerd::mpc {

class PlanTask {
 public:
  virtual ~PlanTask() = default;
  virtual std::string name() const = 0;
  virtual int action_dim() const = 0;
  // The reward terms with their weights (scale, per step); reward() writes them in this order.
  virtual const std::vector<env::RewardTerm>& reward_terms() const = 0;
  // Backend commands (nu) for a normalized action (action_dim values in [−1, 1]).
  virtual void command(const double* action, double* u) const = 0;
  // The reward of the step that brought backend environment env to its current state with
  // `action` after `previous_action`; terms (reward_terms().size()), each scale · value, sum to it.
  virtual double reward(const env::Backend& backend, int env, const double* action, const double* previous_action,
                        double* terms) const = 0;
};

}  // namespace flashnerd::mpc
