#include "env/task_signals.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/rotation.h"

namespace flashnerd::env {

const EnumName<SignalKind> kSignalNames[23] = {
    {SignalKind::BaseLinVel, "base_lin_vel"},   {SignalKind::BaseAngVel, "base_ang_vel"},
    {SignalKind::ProjectedGravity, "projected_gravity"}, {SignalKind::BaseHeight, "base_height"},
    {SignalKind::BasePos, "base_pos"},           {SignalKind::JointPos, "joint_pos"},
    {SignalKind::JointPosSin, "joint_pos_sin"},  {SignalKind::JointPosCos, "joint_pos_cos"},
    {SignalKind::JointVel, "joint_vel"},         {SignalKind::JointAcc, "joint_acc"},
    {SignalKind::JointTorque, "joint_torque"},   {SignalKind::Action, "action"},
    {SignalKind::LastAction, "last_action"},     {SignalKind::Command, "command"},
    {SignalKind::BodyPos, "body_pos"},           {SignalKind::BodyQuat, "body_quat"},
    {SignalKind::ProbeClearance, "probe_clearance"}, {SignalKind::ObjectPos, "object_pos"},
    {SignalKind::ObjectVel, "object_vel"},       {SignalKind::ObjectQuat, "object_quat"},
    {SignalKind::ObjectRotationError, "object_rotation_error"}, {SignalKind::ObjectQuatError, "object_quat_error"},
    {SignalKind::GaitPhase, "gait_phase"}};

const EnumName<CommandDraw> kCommandDrawNames[4] = {{CommandDraw::Uniform, "uniform"},
                                                   {CommandDraw::Rotation, "rotation"},
                                                   {CommandDraw::YawRotation, "yaw_rotation"},
                                                   {CommandDraw::YawSteps, "yaw_steps"}};

namespace {

// A uniformly random rotation (Shoemake), or one about the vertical axis; (w, x, y, z).
void random_rotation(Rng& rng, bool yaw_only, double q[4]) {
  if (yaw_only) return rot::yaw_quat(rng.uniform(-M_PI, M_PI), q);
  const double u1 = rng.uniform(), u2 = rng.uniform(0, 2 * M_PI), u3 = rng.uniform(0, 2 * M_PI);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  q[0] = b * std::cos(u3);
  q[1] = a * std::sin(u2);
  q[2] = a * std::cos(u2);
  q[3] = b * std::sin(u3);
}

}  // namespace

const EnumName<ActionKind> kActionKindNames[2] = {{ActionKind::JointPosition, "joint_position"},
                                                  {ActionKind::ActuatorRange, "actuator_range"}};

TaskSignals::TaskSignals(const sim::Robot& robot) : robot_(&robot), dt_(robot.control_timestep()) {
  const StateLayout& l = robot.layout();
  const mjModel* m = robot.model();
  nj_ = l.joint_count();
  nv_ = l.nv;
  for (int j = 0; j < nj_; ++j) {
    qadr_.push_back(l.base_nq() + j);
    vadr_.push_back(l.base_nv() + j);
    pose_.push_back(robot.nominal_qpos()[size_t(l.base_nq() + j)]);
  }
  nominal_u_ = robot.nominal_ctrl();
  const int key = mj_name2id(m, mjOBJ_KEY, "home");
  const double* scene_q0 = key >= 0 ? m->key_qpos + size_t(key) * size_t(m->nq) : m->qpos0;
  for (int i = 0; i < m->nq; ++i)
    if (i < robot.qpos_offset() || i >= robot.qpos_offset() + l.nq) object_home_.push_back(scene_q0[i]);
  for (const sim::ActuatorInfo& a : robot.actuators()) {
    const int id = a.id;
    int joint = -1;
    if (m->actuator_trntype[id] == mjTRN_JOINT) {
      const int q = m->jnt_qposadr[m->actuator_trnid[2 * id]] - robot.qpos_offset() - l.base_nq();
      if (q >= 0 && q < nj_) joint = q;
    }
    actuated_.push_back(joint);
    torque_law_ = torque_law_ && joint >= 0 && m->actuator_gaintype[id] == mjGAIN_FIXED &&
                  (m->actuator_biastype[id] == mjBIAS_AFFINE || m->actuator_biastype[id] == mjBIAS_NONE) &&
                  m->actuator_dyntype[id] == mjDYN_NONE;
    const bool affine = m->actuator_biastype[id] == mjBIAS_AFFINE;
    gear_.push_back(m->actuator_gear[6 * id]);
    gain_.push_back(m->actuator_gainprm[mjNGAIN * id]);
    for (int k = 0; k < 3; ++k) bias_.push_back(affine ? m->actuator_biasprm[mjNBIAS * id + k] : 0.0);
    const bool flimited = m->actuator_forcelimited[id];
    force_lo_.push_back(flimited ? m->actuator_forcerange[2 * id] : -1e300);
    force_hi_.push_back(flimited ? m->actuator_forcerange[2 * id + 1] : 1e300);
    const bool climited = m->actuator_ctrllimited[id];
    ctrl_lo_.push_back(climited ? m->actuator_ctrlrange[2 * id] : -1e300);
    ctrl_hi_.push_back(climited ? m->actuator_ctrlrange[2 * id + 1] : 1e300);
  }
  joint_lo_.assign(size_t(nj_), 0.0);
  joint_hi_.assign(size_t(nj_), 0.0);
  for (size_t i = 0; i < actuated_.size(); ++i)
    if (actuated_[i] >= 0) joint_lo_[size_t(actuated_[i])] = ctrl_lo_[i], joint_hi_[size_t(actuated_[i])] = ctrl_hi_[i];
}

void TaskSignals::set_action_map(ActionKind kind, double scale, double bound, double smoothing) {
  action_kind_ = kind;
  action_scale_ = scale;
  action_bound_ = bound;
  smoothing_ = smoothing;
}

std::array<double, 2> TaskSignals::joint_control_range(SpecReader& r, const std::string& key, int j) const {
  const std::string& name = robot_->layout().joint_names[size_t(j)];
  for (size_t i = 0; i < actuated_.size(); ++i)
    if (actuated_[i] == j) {
      if (ctrl_hi_[i] > 1e299) r.fail(key, str_cat("includes joint '", name, "', whose actuator has no control range"));
      return {ctrl_lo_[i], ctrl_hi_[i]};
    }
  r.fail(key, str_cat("includes joint '", name, "', which no actuator drives"));
}

double TaskSignals::clamped_action(const float* action, int i) const {
  return std::clamp(double(action[i]), -action_bound_, action_bound_);
}

void TaskSignals::command_of(int env, const float* action, double* u) const {
  const int nu = action_dim();
  for (int i = 0; i < nu; ++i) {
    const double a = clamped_action(action, i);
    const double lo = ctrl_lo_[size_t(i)], hi = ctrl_hi_[size_t(i)];
    if (action_kind_ == ActionKind::JointPosition) {
      // the same clamp MuJoCo applies to ctrl, so a learned backend sees the same command
      u[i] = std::clamp(nominal_u_[size_t(i)] + action_scale_ * a, lo, hi);
    } else if (hi > 1e299) {  // no control range: the action is the command
      u[i] = action_scale_ * a;
    } else {
      u[i] = lo == -hi ? hi * a : 0.5 * (lo + hi) + 0.5 * (hi - lo) * a;
    }
  }
  if (smoothing_ >= 1) return;
  const double* last = last_u_.data() + size_t(env) * size_t(nu);
  for (int i = 0; i < nu; ++i) u[i] = smoothing_ * u[i] + (1 - smoothing_) * last[i];
}

void TaskSignals::start_episode(int env, const double* q) {
  if (smoothing_ >= 1) return;
  double* last = last_u_.data() + size_t(env) * size_t(action_dim());
  for (int i = 0; i < action_dim(); ++i) last[i] = q[qadr_[size_t(actuated_[size_t(i)])]];  // the hand holds its start
}

double TaskSignals::rotation_distance(const double a[4], const double b[4]) {
  double conj[4], diff[4];
  rot::quat_conj(b, conj);
  rot::quat_mul(a, conj, diff);
  const double s = std::sqrt(diff[1] * diff[1] + diff[2] * diff[2] + diff[3] * diff[3]);
  return 2 * std::asin(std::min(1.0, s));
}

void TaskSignals::object_quat(const Backend& b, int env, double out[4]) const {
  std::copy_n(b.object_q(env) + 3, 4, out);
  rot::quat_normalize(out);
}

void TaskSignals::step_command(int env, int c, const double from[4]) {
  // about the world's vertical: the step multiplies from the left
  double turn[4], next[4];
  rot::yaw_quat(commands_[size_t(c)].yaw_step, turn);
  rot::quat_mul(turn, from, next);
  rot::quat_normalize(next);
  std::copy_n(next, 4, command(env, c));
}

void TaskSignals::place_objects(int env, const double* object_q) {
  for (int c = 0; c < int(commands_.size()); ++c)
    if (commands_[size_t(c)].draw == CommandDraw::YawSteps) step_command(env, c, object_q + 3);
}

void TaskSignals::joint_torques(const Backend& b, int env, const float* action, double* tau) const {
  double u[kMaxSignalWidth];
  command_of(env, action, u);
  const double* q = b.q(env);
  const double* v = b.v(env);
  for (int i = 0; i < action_dim(); ++i) {
    const int j = actuated_[size_t(i)];
    const double g = gear_[size_t(i)];
    const double* bias = bias_.data() + 3 * size_t(i);
    // MuJoCo's affine actuator: F = gain·u + b0 + b1·(gear·q) + b2·(gear·qd), clamped; joint torque gear·F
    const double force = std::clamp(gain_[size_t(i)] * u[i] + bias[0] + bias[1] * g * q[qadr_[size_t(j)]] +
                                        bias[2] * g * v[vadr_[size_t(j)]],
                                    force_lo_[size_t(i)], force_hi_[size_t(i)]);
    tau[i] = g * force;
  }
}

std::vector<int> TaskSignals::joints(SpecReader& r, const std::string& key) {
  if (!r.has(key)) {
    for (int j : actuated_)
      if (j < 0) r.fail(key, "is needed: an actuator of this robot drives no joint, so name the joints");
    return actuated_;
  }
  const auto& names = robot_->layout().joint_names;
  std::vector<int> out;
  for (const std::string& n : r.strings_or(key, {})) {
    auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end()) {
      std::string known;
      for (const auto& k : names) known += (known.empty() ? "" : ", ") + k;
      r.fail(key, str_cat("names joint '", n, "', which robot '", robot_->name(), "' lacks; its joints: ", known));
    }
    out.push_back(int(it - names.begin()));
  }
  return out;
}

std::vector<std::vector<int>> TaskSignals::probe_groups(SpecReader& r, const std::string& key) {
  const auto& probes = robot_->probes();
  const mjModel* m = robot_->model();
  std::vector<int> bodies;
  if (r.has(key)) {
    for (const std::string& n : r.strings_or(key, {})) {
      const int body = mj_name2id(m, mjOBJ_BODY, n.c_str());
      if (body < 0) r.fail(key, str_cat("names body '", n, "', which robot '", robot_->name(), "' lacks"));
      bodies.push_back(body);
    }
  } else {
    for (const auto& p : probes)
      if (std::find(bodies.begin(), bodies.end(), p.body) == bodies.end()) bodies.push_back(p.body);
  }
  std::vector<std::vector<int>> groups;
  for (int body : bodies) {
    std::vector<int> g;
    for (size_t k = 0; k < probes.size(); ++k)
      if (probes[k].body == body) g.push_back(int(k));
    if (g.empty())
      r.fail(key, str_cat("names body '", mj_id2name(m, mjOBJ_BODY, body), "', which carries none of robot '",
                          robot_->name(), "''s fixed probes (\"probes\" in its spec); contact is read from probes"));
    groups.push_back(g);
  }
  if (groups.empty()) r.fail(key, str_cat("finds no fixed probes on robot '", robot_->name(), "' to read contact from"));
  return groups;
}

int TaskSignals::command_index(const std::string& name) const {
  for (size_t c = 0; c < commands_.size(); ++c)
    if (commands_[c].name == name) return int(c);
  return -1;
}

void TaskSignals::add_command(CommandSpec c) { commands_.push_back(std::move(c)); }

namespace {
std::string index_label(const std::vector<int>& idx, int full) {
  if (int(idx.size()) == full) {
    bool identity = true;
    for (int i = 0; i < full; ++i) identity = identity && idx[size_t(i)] == i;
    if (identity) return "";
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}
std::vector<int> iota(int n) {
  std::vector<int> v(size_t(std::max(n, 0)));
  for (int i = 0; i < n; ++i) v[size_t(i)] = i;
  return v;
}
}  // namespace

Signal TaskSignals::parse(SpecReader& r, const std::string& key) {
  const std::string name = r.string(key);
  const auto* kind = find_enum(kSignalNames, name);
  if (!kind) r.fail(key, str_cat("names signal '", name, "'; signals: ", enum_choices(kSignalNames)));
  Signal s;
  s.kind = kind->value;
  s.label = name;
  const bool floating = robot_->floating_base();
  int full = 0;
  switch (s.kind) {
    case SignalKind::BaseLinVel: case SignalKind::BaseAngVel: case SignalKind::ProjectedGravity:
    case SignalKind::BasePos: case SignalKind::BaseHeight:
      if (!floating) r.fail(key, str_cat("'", name, "' needs a floating-base robot; '", robot_->name(), "' has a fixed base"));
      full = s.kind == SignalKind::BaseHeight ? 1 : 3;
      break;
    case SignalKind::JointPos: case SignalKind::JointPosSin: case SignalKind::JointPosCos:
    case SignalKind::JointVel: case SignalKind::JointAcc: {
      s.components = joints(r, "joints");
      if (s.kind == SignalKind::JointPos) {
        s.relative = r.boolean_or("relative_to_nominal", false);
        s.normalized = r.boolean_or("normalized", false);
        if (s.relative && s.normalized) r.fail("normalized", "and \"relative_to_nominal\" exclude each other");
        for (int j : s.components)
          if (s.normalized) joint_control_range(r, "joints", j);
      }
      std::string names;
      if (r.has("joints"))
        for (int j : s.components) names += (names.empty() ? "" : ",") + robot_->layout().joint_names[size_t(j)];
      s.label += names.empty() ? "" : "[" + names + "]";
      if (s.relative) s.label += " − nominal";
      if (s.normalized) s.label = "2 (" + s.label + " − lo) / (hi − lo) − 1";
      break;
    }
    case SignalKind::JointTorque:
      if (!torque_law_)
        r.fail(key, str_cat("'joint_torque' needs joint actuators with a fixed gain and an affine or no bias; robot '",
                            robot_->name(), "' has others"));
      full = action_dim();
      break;
    case SignalKind::Action: case SignalKind::LastAction: full = action_dim(); break;
    case SignalKind::Command: {
      const std::string c = r.string("command");
      s.slot = command_index(c);
      if (s.slot < 0) r.fail("command", str_cat("names command '", c, "', which the spec's \"commands\" lack"));
      full = int(commands_[size_t(s.slot)].ranges.size());
      s.label = "command " + c;
      break;
    }
    case SignalKind::BodyPos: case SignalKind::BodyQuat: {
      const std::string body = r.string("body");
      const int id = mj_name2id(robot_->model(), mjOBJ_BODY, body.c_str());
      if (id <= 0 || !robot_->is_robot_body(id))
        r.fail("body", str_cat("names body '", body, "', which is not a body of robot '", robot_->name(), "'"));
      auto it = std::find(bodies_.begin(), bodies_.end(), id);
      s.slot = int(it - bodies_.begin());
      if (it == bodies_.end()) bodies_.push_back(id);
      full = s.kind == SignalKind::BodyPos ? 3 : 4;
      s.label += " " + body;
      break;
    }
    case SignalKind::ProbeClearance: full = int(robot_->probes().size()); break;
    case SignalKind::ObjectPos: case SignalKind::ObjectVel: {
      const mjModel* m = robot_->model();
      full = s.kind == SignalKind::ObjectPos ? m->nq - robot_->layout().nq : m->nv - robot_->layout().nv;
      if (full == 0) r.fail(key, str_cat("'", name, "' needs objects in the scene; robot '", robot_->name(), "' has none"));
      if (s.kind == SignalKind::ObjectPos && r.boolean_or("relative_to_home", false)) {
        s.relative = true;
        s.label += " − home";
      }
      break;
    }
    case SignalKind::ObjectQuat: case SignalKind::ObjectRotationError: case SignalKind::ObjectQuatError: {
      if (object_home_.size() < 7)
        r.fail(key, str_cat("'", name, "' needs a free object in the scene; robot '", robot_->name(), "' has none"));
      full = s.kind == SignalKind::ObjectRotationError ? 1 : 4;
      if (s.kind == SignalKind::ObjectQuat) break;
      const std::string c = r.string("command");
      s.slot = command_index(c);
      if (s.slot < 0 || !commands_[size_t(s.slot)].orientation())
        r.fail("command", str_cat("names command '", c, "', which is not an orientation command of the spec"));
      s.label += " to command " + c;
      break;
    }
    case SignalKind::GaitPhase:
      if (!has_gait()) r.fail(key, "'gait_phase' needs the spec's \"gait\" (its period_seconds)");
      full = 2;
      s.label = str_cat("gait_phase (period ", gait_period_, " s)");
      break;
  }
  if (s.components.empty()) {
    s.components = r.indices_or("index", iota(full));
    for (int i : s.components)
      if (i < 0 || i >= full) r.fail("index", str_cat("has component ", i, " outside [0, ", full, ") of '", name, "'"));
    s.label += index_label(s.components, full);
  }
  if (s.width() == 0 || s.width() > kMaxSignalWidth)
    r.fail(key, str_cat("selects ", s.width(), " components; a signal has 1 to ", kMaxSignalWidth));
  return s;
}

void TaskSignals::read(const Signal& s, const Backend& b, int env, const float* action, double* out) const {
  const double* q = b.q(env);
  const double* v = b.v(env);
  double full[kMaxSignalWidth];
  const double* src = full;
  switch (s.kind) {
    case SignalKind::BaseLinVel: rot::quat_rotate_inv(q + 3, v, full); break;
    case SignalKind::BaseAngVel: src = v + 3; break;
    case SignalKind::ProjectedGravity: {
      const double down[3] = {0, 0, -1};
      rot::quat_rotate_inv(q + 3, down, full);
      break;
    }
    case SignalKind::BaseHeight: src = q + 2; break;
    case SignalKind::BasePos: src = q; break;
    case SignalKind::JointPos: case SignalKind::JointPosSin: case SignalKind::JointPosCos:
    case SignalKind::JointVel: case SignalKind::JointAcc:
      for (int i = 0; i < s.width(); ++i) {
        const int j = s.components[size_t(i)];
        const double qj = q[qadr_[size_t(j)]], vj = v[vadr_[size_t(j)]];
        double x = 0;
        switch (s.kind) {
          case SignalKind::JointPos:
            if (s.normalized) {
              const double lo = joint_lo_[size_t(j)], hi = joint_hi_[size_t(j)];
              x = 2 * (qj - lo) / (hi - lo) - 1;
            } else {
              x = s.relative ? qj - pose_[size_t(j)] : qj;
            }
            break;
          case SignalKind::JointPosSin: x = std::sin(qj); break;
          case SignalKind::JointPosCos: x = std::cos(qj); break;
          case SignalKind::JointVel: x = vj; break;
          default: x = (vj - last_v_[size_t(env) * size_t(nv_) + size_t(vadr_[size_t(j)])]) / dt_; break;
        }
        out[i] = x;
      }
      return;
    case SignalKind::JointTorque: joint_torques(b, env, action, full); break;
    case SignalKind::Action:
      for (int i = 0; i < action_dim(); ++i) full[i] = double(action[i]);
      break;
    case SignalKind::LastAction: src = last_action_.data() + size_t(env) * size_t(action_dim()); break;
    case SignalKind::Command: src = command(env, s.slot); break;
    case SignalKind::BodyPos: src = b.body_pose(env, s.slot); break;
    case SignalKind::BodyQuat: src = b.body_pose(env, s.slot) + 3; break;
    case SignalKind::ProbeClearance: src = b.probe_clearance(env); break;
    case SignalKind::ObjectPos:
      if (!s.relative) {
        src = b.object_q(env);
        break;
      }
      for (int i = 0; i < s.width(); ++i) {
        const int k = s.components[size_t(i)];
        out[i] = b.object_q(env)[k] - object_home_[size_t(k)];
      }
      return;
    case SignalKind::ObjectVel: src = b.object_v(env); break;
    case SignalKind::ObjectQuat: object_quat(b, env, full); break;
    case SignalKind::ObjectRotationError: case SignalKind::ObjectQuatError: {
      double quat[4];
      object_quat(b, env, quat);
      const double* t = command(env, s.slot);
      if (s.kind == SignalKind::ObjectRotationError) {
        full[0] = rotation_distance(quat, t);
      } else {
        double conj[4];
        rot::quat_conj(t, conj);
        rot::quat_mul(quat, conj, full);
      }
      break;
    }
    case SignalKind::GaitPhase: {
      const double angle = 2 * M_PI * gait_phase(env);
      full[0] = std::sin(angle);
      full[1] = std::cos(angle);
      break;
    }
  }
  for (int i = 0; i < s.width(); ++i) out[i] = src[s.components[size_t(i)]];
}

void TaskSignals::allocate(int envs) {
  const size_t E = size_t(envs);
  commands_values_.clear();
  since_draw_.clear();
  for (const auto& c : commands_) {
    commands_values_.emplace_back(E * c.ranges.size(), 0.0);
    since_draw_.emplace_back(E, 0);
  }
  last_action_.assign(E * size_t(action_dim()), 0.0);
  last_v_.assign(E * size_t(nv_), 0.0);
  if (smoothing_ < 1) last_u_.assign(E * size_t(action_dim()), 0.0);
  if (has_gait()) gait_steps_.assign(E, 0);
}

void TaskSignals::reset_env(int env) {
  std::fill_n(last_action_.data() + size_t(env) * size_t(action_dim()), action_dim(), 0.0);
  std::fill_n(last_v_.data() + size_t(env) * size_t(nv_), nv_, 0.0);
  if (has_gait()) gait_steps_[size_t(env)] = 0;
}

double TaskSignals::gait_phase(int env, double offset) const {
  const double cycles = gait_steps_[size_t(env)] * dt_ / gait_period_ + offset;
  return cycles - std::floor(cycles);
}

void TaskSignals::advance_gait_clock(int env) {
  if (has_gait()) ++gait_steps_[size_t(env)];
}

void TaskSignals::draw_command(int env, int c, Rng& rng) {
  const CommandSpec& spec = commands_[size_t(c)];
  double* x = command(env, c);
  if (spec.orientation()) {  // yaw steps: a rotation until the object is placed (place_objects)
    random_rotation(rng, spec.draw == CommandDraw::YawRotation, x);
  } else {
    for (size_t i = 0; i < spec.ranges.size(); ++i) x[i] = rng.uniform(spec.ranges[i][0], spec.ranges[i][1]);
  }
  if (spec.stand_below > 0 && std::hypot(x[0], x[1]) < spec.stand_below) x[0] = x[1] = 0;
  since_draw_[size_t(c)][size_t(env)] = 0;
}

void TaskSignals::draw_commands(int env, Rng& rng) {
  for (int c = 0; c < int(commands_.size()); ++c) draw_command(env, c, rng);
}

void TaskSignals::finish_step(const Backend& b, int env, const float* action, Rng& rng, bool hold_commands) {
  if (smoothing_ < 1) {  // what command() sent becomes the previous command
    double u[kMaxSignalWidth];
    command_of(env, action, u);
    std::copy_n(u, action_dim(), last_u_.data() + size_t(env) * size_t(action_dim()));
  }
  double* last_a = last_action_.data() + size_t(env) * size_t(action_dim());
  for (int i = 0; i < action_dim(); ++i) last_a[i] = clamped_action(action, i);
  std::copy_n(b.v(env), nv_, last_v_.data() + size_t(env) * size_t(nv_));
  if (hold_commands) return;
  for (int c = 0; c < int(commands_.size()); ++c) {
    const CommandSpec& spec = commands_[size_t(c)];
    if (spec.redraw_within > 0) {  // a reached orientation: the next one at once
      double quat[4];
      object_quat(b, env, quat);
      if (rotation_distance(quat, command(env, c)) < spec.redraw_within) {
        if (spec.draw == CommandDraw::YawSteps)
          step_command(env, c, command(env, c));  // reads `from` whole before writing
        else
          draw_command(env, c, rng);
      }
    }
    const int every = spec.resample_steps;
    if (every > 0 && ++since_draw_[size_t(c)][size_t(env)] >= every) draw_command(env, c, rng);
  }
}

void TaskSignals::io_state(StateIo& io) {
  for (auto& values : commands_values_) io.io(values);
  io.io(last_action_);
  io.io(last_v_);
  if (smoothing_ < 1) io.io(last_u_);
  if (has_gait()) io.io(gait_steps_);
}

void TaskSignals::io_command_steps(StateIo& io) {
  for (auto& steps : since_draw_) io.io(steps);
}

}  // namespace flashnerd::env
