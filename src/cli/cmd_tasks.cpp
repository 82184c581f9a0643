// flashnerd tasks: the tasks an environment can run, as a table, as JSON (every slot and term),
// or as the Markdown page docs/TASKS.md is generated from (--markdown).
#include <cstdio>
#include <memory>

#include "cli/cli_common.h"
#include "env/factory.h"
#include "env/task_page.h"

namespace flashnerd::cli {

namespace {

struct TasksArgs {
  CommonOptions common;
  bool markdown = false;
  std::vector<std::string> tasks;
};

void run_tasks(const TasksArgs& a) {
  const std::vector<std::string> names = a.tasks.empty() ? env::task_names() : a.tasks;
  for (const auto& n : names) env::task_robot(n);  // an unknown name fails before any output
  if (a.markdown) {
    std::fputs(env::tasks_markdown(names).c_str(), stdout);
    return;
  }
  nlohmann::json all = nlohmann::json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : names) {
    all.push_back(env::task_summary(n));
    const auto& j = all.back();
    rows.push_back({n, j["robot"], std::to_string(j["observation_dim"].get<int>()),
                    std::to_string(j["action"]["dim"].get<int>()), format_number(j["policy_hz"]),
                    std::to_string(j["episode_steps"].get<int>())});
  }
  if (a.common.json) {
    std::printf("%s\n", nlohmann::json{{"tasks", all}}.dump().c_str());
    return;
  }
  std::printf("%s", format_table({"task", "robot", "obs", "action", "policy Hz", "episode steps"}, rows).c_str());
  std::printf("\n`flashnerd tasks --markdown NAME` describes every observation slot and reward term.\n");
}

}  // namespace

void register_tasks(CLI::App& app) {
  auto [sub, a] = add_command<TasksArgs>(app, "tasks", "The environment tasks: observations, actions, rewards, ends and starts", run_tasks);
  sub.add_flag("--markdown", a.markdown, "Print the full description as Markdown (docs/TASKS.md)");
  sub.add_option("names", a.tasks, "Tasks to show (default: all)");
}

}  // namespace flashnerd::cli
