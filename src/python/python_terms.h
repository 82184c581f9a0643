// Reward terms, a termination and observations written in Python (make_vec's terms=), added to
// a spec task. One call for the whole batch: the object's reward(state), terminated(state) and
// observe(state) read numpy views of the batch (q, v, actions, tracked bodies' poses, commands,
// probe clearances), never one environment at a time. The views are built once and read the environment's own
// buffers in place; they are valid during the call only.
//
// The object declares:
//   rewards = {"name": scale, ...}  reward terms and their scales per second (a step's reward is
//                                   scale * value * dt, as the task's own terms)
//   bodies = ["hand", ...]          optional: bodies whose body_pos / body_quat it reads
//   objective = ["name", ...]       optional: terms that are the goal (a penalty ramp spares them)
//   def reward(self, state): ...    -> {"name": array (num_envs,)}, when rewards is not empty
//   def terminated(self, state): .. optional -> bool array (num_envs,): episodes that end
//   observations = {"name": width}  optional: observation columns after the task's own
//   def observe(self, state): ...   -> {"name": array (num_envs, width)}, when observations is
//                                   not empty; called after each step (before ended episodes
//                                   reset) and after resets, like the task's own observations
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "env/batch_terms.h"
#include "env/spec_task.h"

namespace flashnerd::python {

namespace py = pybind11;

class PythonTerms : public env::BatchTerms {
 public:
  // Reads and checks the object's declarations; tracks its bodies on task (before allocation).
  PythonTerms(py::object terms, env::SpecTask& task);
  std::string source() const override { return source_; }
  std::vector<env::RewardTerm> reward_terms() const override { return terms_; }
  bool terminates() const override { return terminates_; }
  void evaluate(const env::Backend& backend, const float* actions, double* values, uint8_t* terminated) override;
  std::vector<std::pair<std::string, int>> observation_terms() const override { return observations_; }
  void observe(const env::Backend& backend, float* columns) override;

 private:
  // Reads and checks observations and observe().
  void read_observations();
  // The state's views of backend's and the task's buffers, rebuilt when they move.
  void bind(const env::Backend& backend);

  py::object object_, state_, actions_view_;
  std::string source_;
  std::vector<env::RewardTerm> terms_;
  bool terminates_ = false;
  std::vector<std::pair<std::string, int>> bodies_;  // name, tracked slot
  std::vector<std::pair<std::string, int>> observations_;  // name, width
  int observation_width_ = 0;
  std::vector<std::string> observation_labels_;
  const env::SpecTask* task_;
  std::vector<const void*> bound_, buffers_;  // the buffers the views read; this step's
  std::vector<std::string> labels_;  // each reward term as errors name it
  std::string terminated_label_;
  const float* actions_ = nullptr;
};

// terms= of make_vec: None, one object or a list of them, added to task in order; throws when
// task is not a spec task.
void add_python_terms(const py::object& terms, env::Task& task);

}  // namespace flashnerd::python
