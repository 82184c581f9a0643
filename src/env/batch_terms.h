// Batch terms: reward terms, a termination and observation columns computed for every
// environment in one call, added to a spec task (rewards written in Python over numpy views of
// the whole batch, as the Robotic World Model writes its rewards over predicted states). Rewards
// and the termination read the batch after the backend stepped and before the task's own terms,
// so they see what those see; their termination ends an episode as the spec's own terminations
// do. Observations are read wherever the task's own are: after each step (episodes that ended
// are observed before they reset) and after resets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "env/backend.h"
#include "env/task.h"

namespace flashnerd::env {

class BatchTerms {
 public:
  virtual ~BatchTerms() = default;
  // Where the terms come from ("Python: HandNearTarget"), for the task's description.
  virtual std::string source() const = 0;
  // The reward terms (name, scale per second, objective), appended after the task's own.
  virtual std::vector<RewardTerm> reward_terms() const = 0;
  virtual bool terminates() const { return false; }
  // One step of the whole batch: values (envs, reward_terms().size()) unscaled, and where
  // terminates(), terminated (envs) set to 1 for the episodes that end (0 elsewhere).
  // actions: the step's actions (envs, action_dim).
  virtual void evaluate(const Backend& backend, const float* actions, double* values, uint8_t* terminated) = 0;
  // Observation columns (name, width), appended after the task's own observation terms.
  virtual std::vector<std::pair<std::string, int>> observation_terms() const { return {}; }
  // The columns of every environment at the backend's current state: (envs, Σ widths).
  virtual void observe(const Backend& backend, float* columns) {}
};

}  // namespace flashnerd::env
