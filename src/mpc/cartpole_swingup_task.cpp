#include "mpc/cartpole_swingup_task.h"

#include "core/error.h"

namespace flashnerd::mpc {

CartpoleSwingupTask::CartpoleSwingupTask(const sim::Robot& robot)
    : PlanTask("swingup", ActionMap(robot, 0.0), env::cartpole_swingup_terms(1.0)) {
  const StateLayout& s = robot.layout();
  FN_CHECK(!s.floating_base && s.nq == 2 && s.nv == 2 && s.nu == 1,
           "task swingup needs the cartpole (slider, hinge, one force); robot '", robot.name(), "' is not");
}

double CartpoleSwingupTask::reward(const env::Backend& b, int env, const double* action, const double*,
                                   double* terms) const {
  env::cartpole_swingup_values(b.q(env), b.v(env), action[0], terms);
  double total = 0;
  for (size_t k = 0; k < reward_terms().size(); ++k) total += terms[k] *= scale(k);
  return total;
}

}  // namespace flashnerd::mpc
