// Tasks as data and as a page: each task's robot, rates, observation slots, action, reward
// terms with their weights, ends and starts, from the task itself (its terms and
// Task::describe()). `flashnerd tasks --markdown` prints the page (docs/TASKS.md, checked by a
// test against this output) and Python's docstrings and `task_info` read the same data.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/task.h"
#include "sim/robot.h"

namespace flashnerd::env {

// {"task", "robot", "summary", "policy_hz", "episode_steps", "episode_seconds", "observation":
// [{"name", "first", "width", "meaning"}], "observation_dim", "action": {"dim", "bound",
// "meaning"}, "reward": [{"name", "weight_per_step", "objective", "after_clip", "meaning"}],
// "clip_negative_reward", "termination", "reset"}.
nlohmann::json task_summary(const Task& task, const sim::Robot& robot);
// The summary of a task by name (loads its robot).
nlohmann::json task_summary(const std::string& task);
// The Markdown page of the given tasks.
std::string tasks_markdown(const std::vector<std::string>& tasks);

}  // namespace flashnerd::env
