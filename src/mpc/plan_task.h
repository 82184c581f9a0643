// PlanTask: what a planner optimizes (docs/DESIGN.md §9): backend commands from normalized actions
// (an ActionMap) and a reward per step of named, weighted terms (env::RewardTerm, as
// env::Task's), read from the backend's state after the step (q, v, probe positions and
// clearances). Stateless per sample, so every sample of a planner can be scored in parallel.
// A task computes its reward; its name, action map and terms it hands to this base.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "env/backend.h"
#include "env/task.h"
#include "mpc/action_map.h"

namespace flashnerd::mpc {

class PlanTask {
 public:
  virtual ~PlanTask() = default;
  const std::string& name() const { return name_; }
  int action_dim() const { return actions_.size(); }
  // The reward terms with their weights (scale, per step); reward() writes them in this order.
  const std::vector<env::RewardTerm>& reward_terms() const { return terms_; }
  // Backend commands (nu) for a normalized action (action_dim values in [−1, 1]).
  void command(const double* action, double* u) const { actions_.command(action, u); }
  // The reward of the step that brought backend environment env to its current state with
  // `action` after `previous_action`; terms (reward_terms().size()), each scale · value, sum to it.
  virtual double reward(const env::Backend& backend, int env, const double* action, const double* previous_action,
                        double* terms) const = 0;

 protected:
  PlanTask(std::string name, ActionMap actions, std::vector<env::RewardTerm> terms)
      : name_(std::move(name)), actions_(std::move(actions)), terms_(std::move(terms)) {}
  double scale(size_t term) const { return terms_[term].scale; }

 private:
  std::string name_;
  ActionMap actions_;
  std::vector<env::RewardTerm> terms_;
};

}  // namespace flashnerd::mpc
