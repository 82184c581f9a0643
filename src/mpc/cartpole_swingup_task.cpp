#include "mpc/cartpole_swingup_task.h"

#include <cmath>

#include "core/error.h"

namespace flashnerd::mpc {

CartpoleSwingupTask::CartpoleSwingupTask(const sim::Robot& robot)
    : actions_(robot, 0.0),
      terms_{{"upright", 1.0, false, true}, {"centred", -0.1}, {"spin", -0.01}, {"effort", -0.01}} {
  const StateLayout& s = robot.layout();
  FN_CHECK(!s.floating_base && s.nq == 2 && s.nv == 2 && s.nu == 1,
           "task swingup needs the cartpole (slider, hinge, one force); robot '", robot.name(), "' is not");
}

double CartpoleSwingupTask::reward(const env::Backend& b, int env, const double* action, const double*,
                                   double* terms) const {
  const double* q = b.q(env);
  const double* v = b.v(env);
  terms[0] = terms_[0].scale * std::cos(q[1]);
  terms[1] = terms_[1].scale * q[0] * q[0];
  terms[2] = terms_[2].scale * v[1] * v[1];
  terms[3] = terms_[3].scale * action[0] * action[0];
  return terms[0] + terms[1] + terms[2] + terms[3];
}

}  // namespace flashnerd::mpc
