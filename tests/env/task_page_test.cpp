// Every task describes each of its observation terms and reward terms, by name and in order, so
// the Tasks page and the docstrings generated from the descriptions cannot drift from the code;
// a description that misses or misnames a term is refused by name.
#include "env/task_page.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/json_file.h"
#include "env/spec_task.h"
#include "env/factory.h"

namespace flashnerd::env {
namespace {

TEST(TaskPage, EveryTaskDescribesEverySlotAndTerm) {
  for (const auto& name : task_names()) {
    SCOPED_TRACE(name);
    const nlohmann::json j = task_summary(name);
    EXPECT_EQ(j["task"], name);
    EXPECT_EQ(j["robot"], task_robot(name));
    int covered = 0;
    for (const auto& o : j["observation"]) {
      EXPECT_EQ(o["first"].get<int>(), covered);
      covered += o["width"].get<int>();
      EXPECT_FALSE(o["meaning"].get<std::string>().empty()) << o["name"];
    }
    EXPECT_EQ(covered, j["observation_dim"].get<int>());
    EXPECT_GE(j["reward"].size(), 1u);
    for (const auto& r : j["reward"]) EXPECT_FALSE(r["meaning"].get<std::string>().empty()) << r["name"];
    for (const char* key : {"summary", "termination", "reset"}) EXPECT_FALSE(j[key].get<std::string>().empty()) << key;
    EXPECT_GT(j["policy_hz"].get<double>(), 0);
  }
  const std::string page = tasks_markdown({"cartpole-balance"});
  EXPECT_NE(page.find("| 0 | `cart_position` |"), std::string::npos) << page;
  EXPECT_NE(page.find("| `alive` | 1 | objective |"), std::string::npos) << page;
}

// The cartpole's task with one observation term described under another name.
class MisdescribedCartpole : public SpecTask {
 public:
  explicit MisdescribedCartpole(const sim::Robot& robot)
      : SpecTask(read_json_file(task_spec_path("cartpole-balance"), "spec"), "cartpole-balance.json", robot) {}
  TaskDescription describe() const override {
    TaskDescription d = SpecTask::describe();
    d.observation[1].name = "pole_angle";
    return d;
  }
};

TEST(TaskPage, RefusesADescriptionThatMisnamesATerm) {
  auto robot = sim::Robot::load("cartpole");
  MisdescribedCartpole task(*robot);
  try {
    task_summary(task, *robot);
    FAIL() << "a misnamed observation term was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'pole_sin', described as 'pole_angle'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flashnerd::env
