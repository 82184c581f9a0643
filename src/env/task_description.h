// A task in words: what each observation slot and action means, what each reward term
// measures, when an episode ends and how it starts. The Tasks page (`flashnerd tasks
// --markdown`, docs/TASKS.md) and the Python docstrings are generated from it, and a test holds
// its names to the task's own observation and reward terms, so the words cannot drift from the
// code. Numbers in the texts come from the task's constants and settings.
#pragma once

#include <string>
#include <vector>

namespace flashnerd::env {

struct TermDescription {
  std::string name;     // as in Task::observation_terms() / reward_terms()
  std::string meaning;  // units, scaling, sign
};

struct TaskDescription {
  std::string summary;
  std::vector<TermDescription> observation;  // one per observation term, in order
  std::string action;                        // what an action means: its target, scale and clamp
  std::vector<TermDescription> reward;       // one per reward term, in order
  std::string termination;                   // early ends (time-outs are episode_steps)
  std::string reset;                         // the start distribution
};

}  // namespace flashnerd::env
