#include "rl/explored_data.h"

#include "core/dataset_merge.h"
#include "core/error.h"

namespace flashnerd::rl {

ExploredData::ExploredData(std::shared_ptr<const sim::Robot> robot, const sim::GenerateOptions& generate,
                           ThreadPool& pool)
    : robot_(std::move(robot)), generate_(generate), pool_(&pool) {
  FN_CHECK(robot_ != nullptr, "explored data: no robot to replay the windows with");
}

const Dataset& ExploredData::update(const env::CommandPlanRecorder& windows) {
  const int64_t fresh = std::min(windows.completed() - through_, windows.windows());
  FN_CHECK(fresh >= 0, "explored data: the recorder holds fewer windows than were replayed (", windows.completed(),
           " completed, ", through_, " replayed)");
  replayed_last_ = fresh;
  if (fresh > 0) {
    const sim::CommandPlan plan = windows.plan_newest(fresh);
    sim::GenerateOptions g = generate_;
    g.plan = &plan;
    g.trajectories = plan.trajectories;
    g.steps = plan.steps;
    g.first_trajectory = 0;
    g.total_trajectories = 0;
    g.progress = false;
    append_keeping_newest(data_, sim::generate_dataset(*robot_, g, *pool_), windows.windows());
  }
  through_ = windows.completed();
  FN_ASSERT(data_.trajectories == windows.windows());
  return data_;
}

}  // namespace flashnerd::rl
