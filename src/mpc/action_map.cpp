#include "mpc/action_map.h"

#include <algorithm>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd::mpc {

ActionMap::ActionMap(const sim::Robot& robot, double scale) : centre_(robot.nominal_ctrl()) {
  const mjModel* m = robot.model();
  for (const sim::ActuatorInfo& a : robot.actuators()) {
    const int id = a.id;
    const bool limited = m->actuator_ctrllimited[id];
    lo_.push_back(limited ? m->actuator_ctrlrange[2 * id] : -1e300);
    hi_.push_back(limited ? m->actuator_ctrlrange[2 * id + 1] : 1e300);
    FN_CHECK_OPTION(scale > 0 || limited, "action_scale", "robot '", robot.name(), "': actuator ", id,
                    " has no ctrlrange, so actions need an explicit scale");
    scale_.push_back(scale > 0 ? scale : 0.5 * (hi_.back() - lo_.back()));
  }
}

void ActionMap::command(const double* action, double* u) const {
  for (size_t i = 0; i < centre_.size(); ++i) u[i] = std::clamp(centre_[i] + scale_[i] * action[i], lo_[i], hi_[i]);
}

}  // namespace flashnerd::mpc
