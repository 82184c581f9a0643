// The term library of spec tasks (docs/TASKS.md, "Task specs"): reward functions, termination
// conditions and reset events, each parsed from its spec object with named, validated
// parameters, each a function of one environment's signals (env/task_signals.h). Terms that
// remember something per environment (feet air time) keep it preallocated and save it with
// the task's state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "env/task_signals.h"

namespace flashnerd::env {

// What a reward or termination reads: one environment after a step.
struct TermInput {
  const TaskSignals& signals;
  const Backend& backend;
  int env;
  const float* action;  // the step's action (action_dim)
  bool terminated;      // a termination term fired (for the "termination" reward)
};

class RewardFunction {
 public:
  virtual ~RewardFunction() = default;
  // The unscaled value; a stateful term also advances its state here (once per step).
  virtual double value(const TermInput& in) = 0;
  virtual std::string formula() const = 0;  // what it computes, for the Tasks page
  // The command whose periods the term judges once each (a success count), or -1.
  virtual int judged_command() const { return -1; }
  virtual void allocate(int) {}
  virtual void reset_env(int) {}
  virtual void io_state(StateIo&) {}
};

class TerminationCondition {
 public:
  virtual ~TerminationCondition() = default;
  virtual bool ended(const TermInput& in) const = 0;
  virtual std::string formula() const = 0;
};

// A reset event: changes the start state (q, v) drawn so far, in spec order (draws in order):
// the robot's, or for an object event the scene objects' (object q, v).
class ResetEvent {
 public:
  virtual ~ResetEvent() = default;
  virtual void apply(Rng& rng, double* q, double* v) const = 0;
  virtual std::string formula() const = 0;
  virtual bool places_objects() const { return false; }
};

// Each reads r's "term" and its parameters (unknown terms and fields refused, naming the choices).
std::unique_ptr<RewardFunction> parse_reward_function(SpecReader& r, TaskSignals& signals);
std::unique_ptr<TerminationCondition> parse_termination(SpecReader& r, TaskSignals& signals);
std::unique_ptr<ResetEvent> parse_reset_event(SpecReader& r, TaskSignals& signals);

// The names of each library, for errors and the docs.
std::string reward_function_names();
std::string termination_names();
std::string reset_event_names();

}  // namespace flashnerd::env
