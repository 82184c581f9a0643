#include "mpc/cartpole_swingup_task.h"

#include <cmath>

#include "core/error.h"

namespace flashnerd::mpc {

namespace {
void swingup_values(const double* q, const double* v, double action, double* values) {
  values[0] = std::cos(q[1]);
  values[1] = q[0] * q[0];
  values[2] = v[1] * v[1];
  values[3] = action * action;
}
}  // namespace

CartpoleSwingupTask::CartpoleSwingupTask(const sim::Robot& robot)
    : PlanTask("swingup", ActionMap(robot, 0.0), {{"upright", 1.0, false, true}, {"centred", -0.1}, {"spin", -0.01}, {"effort", -0.01}}) {
  const StateLayout& s = robot.layout();
  FN_CHECK(!s.floating_base && s.nq == 2 && s.nv == 2 && s.nu == 1,
           "task swingup needs the cartpole (slider, hinge, one force); robot '", robot.name(), "' is not");
}

double CartpoleSwingupTask::reward(const env::Backend& b, int env, const double* action, const double*,
                                   double* terms) const {
  swingup_values(b.q(env), b.v(env), action[0], terms);
  double total = 0;
  for (size_t k = 0; k < reward_terms().size(); ++k) total += terms[k] *= scale(k);
  return total;
}

}  // namespace flashnerd::mpc
