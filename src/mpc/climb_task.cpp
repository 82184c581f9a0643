#include "mpc/climb_task.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace flashnerd::mpc {

namespace {

enum Term { kProgress, kHeight, kUpright, kHeading, kFeetOnTop, kActionRate, kFall, kTerms };

// scales: progress per metre to go, height per m², upright per unit of (1 − up z), heading
// per (m² + sin² yaw), feet on top per foot (of 4), action rate per mean squared change, fall
// per step fallen (in Term order)
const std::vector<env::RewardTerm> kClimbTerms = {
    {"progress", -1.0, false, true}, {"height", -20.0},     {"upright", -2.0}, {"heading", -1.0},
    {"feet_on_top", 0.25},           {"action_rate", -0.2}, {"fall", -5.0}};

}  // namespace

ClimbTask::ClimbTask(const sim::Robot& robot, const ClimbOptions& options)
    : PlanTask("climb", ActionMap(robot, options.action_scale), kClimbTerms), o_(options), feet_(int(robot.probes().size())) {
  FN_CHECK(robot.floating_base(), "task climb needs a floating-base robot; '", robot.name(), "' is fixed");
  FN_CHECK(feet_ > 0, "task climb reads feet from the robot's fixed probes; '", robot.name(), "' defines none");
  FN_CHECK(sim::randomizes_scene(robot), "task climb needs a robot with a platform (quadruped_platform); '",
           robot.name(), "' has none");
  FN_ASSERT(reward_terms().size() == size_t(kTerms));
}

double ClimbTask::reward(const env::Backend& b, int env, const double* action, const double* previous,
                         double* terms) const {
  const double* q = b.q(env);
  const double x = q[0], y = q[1], z = q[2];
  const double up = up_z(q + 3);
  const double edge = platform_.distance;
  // the surface under the base rises over the 0.6 m the body needs to cross the edge
  const double crossing = std::clamp((x - edge + 0.3) / 0.6, 0.0, 1.0);
  const double target_z = o_.stand_height + platform_.height * crossing;
  const double yaw_sin = 2.0 * (q[3] * q[6] + q[4] * q[5]);  // sin(yaw) · cos(pitch), enough near upright
  int on_top = 0;
  for (int k = 0; k < feet_; ++k) {
    const double* p = b.probe_position(env) + 3 * k;
    on_top += p[0] > edge + 0.03 && p[2] > platform_.height - 0.02;
  }
  double rate = 0;
  for (int a = 0; a < action_dim(); ++a) rate += (action[a] - previous[a]) * (action[a] - previous[a]);
  const double above = z - sim::surface_height(platform_, x);
  const bool fallen = above < o_.fall_height || up < o_.fall_up_z || b.failed(env);

  terms[kProgress] = scale(kProgress) * std::min(std::abs(edge + o_.target_past_edge - x), 2.0);
  terms[kHeight] = scale(kHeight) * (z - target_z) * (z - target_z);
  terms[kUpright] = scale(kUpright) * (1.0 - up);
  terms[kHeading] = scale(kHeading) * (y * y + yaw_sin * yaw_sin);
  terms[kFeetOnTop] = scale(kFeetOnTop) * on_top / double(feet_);
  terms[kActionRate] = scale(kActionRate) * rate / action_dim();
  terms[kFall] = fallen ? scale(kFall) : 0.0;
  double total = 0;
  for (int t = 0; t < kTerms; ++t) total += terms[t];
  return total;
}

bool ClimbTask::climbed(const double* q) const {
  return q[0] >= platform_.distance + o_.success_past_edge && q[2] >= platform_.height + o_.success_above_top &&
         up_z(q + 3) >= o_.success_up_z;
}

}  // namespace flashnerd::mpc
