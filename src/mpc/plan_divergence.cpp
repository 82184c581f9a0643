#include "mpc/plan_divergence.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace flashnerd::mpc {

namespace {

double distance(const double* a, const double* b, int dims) {
  double sum = 0;
  for (int i = 0; i < dims; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

}  // namespace

PlanDivergence measure_plan_divergence(env::Backend& model, env::Backend& mujoco, const TrialResult& trial,
                                       int horizon, bool floating_base, double threshold) {
  const int nq = mujoco.nq(), nv = mujoco.nv(), nu = mujoco.nu();
  FN_CHECK(model.nq() == nq && model.nu() == nu, "plan divergence: the model and MuJoCo backends differ in size");
  FN_CHECK(horizon >= 1 && trial.plan_commands.size() == size_t(trial.frames) * size_t(horizon) * size_t(nu),
           "plan divergence: the trial holds no plans of horizon ", horizon);
  PlanDivergence d;
  d.decisions = trial.frames;
  d.horizon = horizon;
  d.dims = floating_base ? 3 : nq;
  const size_t steps = size_t(d.decisions) * size_t(horizon), dims = size_t(d.dims);
  d.model_position.assign(dims * steps, 0.0);
  d.mujoco_position.assign(dims * steps, 0.0);
  d.gap.assign(steps, 0.0);
  d.one_step_error.assign(size_t(d.decisions), 0.0);
  std::vector<double> mujoco_qpos(steps * size_t(nq));
  const int batch = std::min(model.envs(), mujoco.envs());
  std::vector<double> commands(size_t(batch) * size_t(nu));
  for (int d0 = 0; d0 < d.decisions; d0 += batch) {
    const int count = std::min(batch, d.decisions - d0);
    for (int i = 0; i < count; ++i) {
      const int frame = d0 + i, h = std::min(frame, model.history_frames());
      const size_t first = size_t(frame - h);
      model.reset_with_history(i, h, trial.qpos.data() + first * size_t(nq), trial.qvel.data() + first * size_t(nv),
                               trial.ctrl.data() + first * size_t(nu));
      mujoco.reset(i, trial.qpos.data() + size_t(frame) * size_t(nq), trial.qvel.data() + size_t(frame) * size_t(nv));
    }
    for (int s = 0; s < horizon; ++s) {
      for (int i = 0; i < count; ++i)
        std::copy_n(trial.plan_commands.data() + (size_t(d0 + i) * size_t(horizon) + size_t(s)) * size_t(nu), nu,
                    commands.begin() + size_t(i) * size_t(nu));
      model.step_first(commands.data(), count);
      mujoco.step_first(commands.data(), count);
      for (int i = 0; i < count; ++i) {
        const size_t at = size_t(d0 + i) * size_t(horizon) + size_t(s);
        std::copy_n(model.q(i), dims, d.model_position.begin() + dims * at);
        std::copy_n(mujoco.q(i), dims, d.mujoco_position.begin() + dims * at);
        std::copy_n(mujoco.q(i), nq, mujoco_qpos.begin() + at * size_t(nq));
        d.gap[at] = distance(model.q(i), mujoco.q(i), d.dims);
        if (s == 0)
          d.one_step_error[size_t(d0 + i)] =
              distance(model.q(i), trial.qpos.data() + size_t(d0 + i + 1) * size_t(nq), d.dims);
      }
    }
  }
  for (int k = 0; k < d.decisions && d.first_decision < 0; ++k)
    for (int s = 0; s < horizon; ++s)
      if (!(d.gap[size_t(k) * size_t(horizon) + size_t(s)] <= threshold)) {  // NaN (a failed model) counts
        d.first_decision = k;
        d.first_step = s;
        const size_t at = size_t(k) * size_t(horizon) + size_t(s);
        d.first_qpos.assign(mujoco_qpos.begin() + at * size_t(nq), mujoco_qpos.begin() + (at + 1) * size_t(nq));
        break;
      }
  return d;
}

}  // namespace flashnerd::mpc
