#include "sim/robot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/fnv1a.h"
#include "core/option_error.h"
#include "core/option_error.h"
#include "sim/mj_names.h"

namespace flashnerd::sim {

namespace fs = std::filesystem;

int warning_total(const mjData* d) {
  int n = 0;
  for (int i = 0; i < mjNWARNING; ++i) n += d->warning[i].number;
  return n;
}

namespace {

// Bytes of an MJCF and of every file it includes (so the hash changes with any of them).
std::string mjcf_bytes(const std::string& path, int depth = 0) {
  std::string text = read_file(path);
  if (depth > 8) return text;
  std::string all = text;
  // every <include file="..."/> (plain scan: the MJCF is XML, attributes are quoted)
  for (size_t at = text.find("<include"); at != std::string::npos; at = text.find("<include", at + 1)) {
    size_t attr = text.find("file", at);
    size_t open = text.find('"', attr);
    size_t close = open == std::string::npos ? open : text.find('"', open + 1);
    if (attr == std::string::npos || close == std::string::npos) break;
    fs::path inc = fs::path(path).parent_path() / text.substr(open + 1, close - open - 1);
    if (fs::exists(inc)) all += mjcf_bytes(inc.string(), depth + 1);
  }
  return all;
}

mjModel* load_mjcf(const std::string& path) {
  FN_CHECK(fs::exists(path), "MJCF file ", path, " does not exist; give a built-in robot name (",
           [] {
             std::string s;
             for (const auto& n : builtin_robot_names()) s += (s.empty() ? "" : ", ") + n;
             return s;
           }(),
           ") or a path to an MJCF file");
  char error[1024] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  FN_CHECK(m != nullptr, "cannot load MJCF ", path, ": ", error[0] ? error : "unknown MuJoCo error");
  return m;
}

std::string body_name(const mjModel* m, int b) { return object_name(m, mjOBJ_BODY, b); }
std::string joint_name(const mjModel* m, int j) { return object_name(m, mjOBJ_JOINT, j); }

bool has_free_root(const mjModel* m, int b) {
  return m->body_jntnum[b] > 0 && m->jnt_type[m->body_jntadr[b]] == mjJNT_FREE;
}

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    std::string name = s.substr(at, comma - at);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty()) out.push_back(name);
    at = comma + 1;
  }
  return out;
}

std::string body_list(const mjModel* m, const std::vector<int>& bodies) { return name_list(m, mjOBJ_BODY, bodies); }

// The value of --robot-body naming these trees, quoted for a shell when a name has a space.
std::string robot_body_value(const mjModel* m, const std::vector<int>& roots) {
  std::string s;
  for (int b : roots) s += (s.empty() ? "" : ",") + body_name(m, b);
  return s.find(' ') == std::string::npos ? s : "'" + s + "'";
}

// ... with one more tree
std::string robot_body_value(const mjModel* m, std::vector<int> roots, int extra) {
  roots.push_back(extra);
  std::sort(roots.begin(), roots.end());
  return robot_body_value(m, roots);
}

// world children whose tree has at least one joint
std::vector<int> moving_trees(const mjModel* m) {
  std::set<int> trees;
  for (int j = 0; j < m->njnt; ++j) trees.insert(m->body_rootid[m->jnt_bodyid[j]]);
  return {trees.begin(), trees.end()};
}

}  // namespace

void Robot::set_state(mjData* d, const double* qpos, const double* qvel, const double* act) const {
  std::memcpy(d->qpos + qpos_offset_, qpos, sizeof(double) * size_t(layout_.nq));
  std::memcpy(d->qvel + qvel_offset_, qvel, sizeof(double) * size_t(layout_.nv));
  FN_ASSERT(act_indices_.empty() || act != nullptr);
  for (size_t i = 0; i < act_indices_.size(); ++i) d->act[act_indices_[i]] = act[i];
}

void Robot::get_state(const mjData* d, double* qpos, double* qvel, double* act) const {
  std::memcpy(qpos, d->qpos + qpos_offset_, sizeof(double) * size_t(layout_.nq));
  std::memcpy(qvel, d->qvel + qvel_offset_, sizeof(double) * size_t(layout_.nv));
  FN_ASSERT(act_indices_.empty() || act != nullptr);
  for (size_t i = 0; i < act_indices_.size(); ++i) act[i] = d->act[act_indices_[i]];
}

void Robot::set_ctrl(mjData* d, const double* u) const {
  for (size_t i = 0; i < actuators_.size(); ++i) d->ctrl[actuators_[i].id] = u[i];
}

// The robot's bodies: the subtrees at the bodies the spec or --robot-body names, else the
// body trees (children of the world) that the actuators move.
void Robot::select_bodies() {
  const mjModel* m = model_;
  const std::string& path = spec_.mjcf;
  const bool named = !spec_.robot_root_body.empty();
  tree_roots_.clear();
  if (named) {
    for (const auto& name : split_names(spec_.robot_root_body)) {
      int b = mj_name2id(m, mjOBJ_BODY, name.c_str());
      FN_CHECK_OPTION(b > 0, "robot_root_body", path, ": robot body '", name, "' is not a body of the model; its "
                      "body trees with joints are ", body_list(m, moving_trees(m)));
      tree_roots_.push_back(b);
    }
    FN_CHECK(!tree_roots_.empty(), path, ": robot_root_body '", spec_.robot_root_body, "' names no body");
  } else {
    std::set<int> trees;
    for (int a = 0; a < m->nu; ++a)
      for (int b : actuator_bodies(m, a)) trees.insert(m->body_rootid[b]);
    FN_CHECK(!trees.empty(), path, ": no actuator moves a body (every actuated joint, site or body is welded "
             "to the world), so there is no robot to learn; give the robot's joints actuators");
    tree_roots_.assign(trees.begin(), trees.end());
  }
  std::sort(tree_roots_.begin(), tree_roots_.end());
  body_link_.assign(size_t(m->nbody), -1);
  link_bodies_.clear();
  for (int b = 1; b < m->nbody; ++b) {
    int a = b;
    while (a != 0 && !std::binary_search(tree_roots_.begin(), tree_roots_.end(), a)) a = m->body_parentid[a];
    if (a == 0) continue;
    FN_CHECK(a == b || !std::binary_search(tree_roots_.begin(), tree_roots_.end(), b), path, ": robot body '",
             body_name(m, b), "' lies inside robot body '", body_name(m, a), "'; name only the top of each robot tree");
    body_link_[size_t(b)] = int(link_bodies_.size());
    link_bodies_.push_back(b);
  }
  if (tree_roots_.size() > 1) {
    std::vector<int> free_trees, fixed_trees;
    for (int b : tree_roots_) (has_free_root(m, b) ? free_trees : fixed_trees).push_back(b);
    const bool all_free = fixed_trees.empty();
    FN_CHECK_OPTION(free_trees.empty(), "robot_root_body", path, ": ",
                    named ? "the robot bodies named are " : "the actuators move ", tree_roots_.size(), " body trees (",
                    body_list(m, tree_roots_), ") and ",
                    all_free ? "each has" : body_list(m, free_trees) + (free_trees.size() == 1 ? " has" : " have"),
                    " a free joint, but a floating-base robot is one body tree. Choose the robot: one tree with a "
                    "free joint (e.g. ", option_ref("robot_root_body"), " ", robot_body_value(m, {free_trees[0]}), ")",
                    all_free ? "" : str_cat(", or trees without one (e.g. ", option_ref("robot_root_body"), " ",
                                            robot_body_value(m, fixed_trees), ")"),
                    "; the other trees are then simulated as objects, not recorded, and their actuators held at "
                    "ctrl 0");
  }
  // base frame: the root of the robot's tree, or the world for a fixed base of several trees
  root_body_ = tree_roots_.size() == 1 ? tree_roots_[0] : 0;
}

// Robot joints: one contiguous block of qpos / qvel of hinges and slides, optionally after a
// free joint at the root of a single-tree robot.
void Robot::analyze_joints() {
  const mjModel* m = model_;
  const std::string& path = spec_.mjcf;
  int nq = 0, nv = 0, first = -1, previous = -1;
  bool floating = false;
  std::vector<uint8_t> wrapped;
  std::vector<std::string> names;
  for (int j = 0; j < m->njnt; ++j) {
    if (!is_robot_body(m->jnt_bodyid[j])) continue;
    const std::string jname = joint_name(m, j);
    if (first < 0) {
      first = j;
      qpos_offset_ = m->jnt_qposadr[j];
      qvel_offset_ = m->jnt_dofadr[j];
    } else if (j != previous + 1) {
      // an object's joints between two robot trees: include its tree, or keep the trees before it
      const int other = m->body_rootid[m->jnt_bodyid[previous + 1]];
      std::vector<int> before;
      for (int r : tree_roots_)
        if (r < other) before.push_back(r);
      const OptionRef body = option_ref("robot_root_body");
      throw OptionError("robot_root_body",
                        str_cat(path, ": the robot's joints are not contiguous in qpos: joint '",
                                joint_name(m, previous + 1), "' of body tree '", body_name(m, other),
                                "' (not the robot) lies between robot joints '", joint_name(m, previous), "' and '",
                                jname, "'. List the robot's body trees together in <worldbody>, or choose ",
                                has_free_root(m, other) ? "" : str_cat(body, " ", robot_body_value(m, tree_roots_, other),
                                                                       " (that tree in the robot) or "),
                                body, " ", robot_body_value(m, before), " (only the robot trees before it)"));
    }
    previous = j;
    FN_CHECK(m->jnt_qposadr[j] == qpos_offset_ + nq && m->jnt_dofadr[j] == qvel_offset_ + nv, path,
             ": robot joint '", jname, "' is not where its predecessors end in qpos/qvel");
    switch (m->jnt_type[j]) {
      case mjJNT_FREE:
        FN_CHECK(j == first && m->jnt_bodyid[j] == root_body_, path, ": free joint '", jname, "' of body '",
                 body_name(m, m->jnt_bodyid[j]), "' is not the first joint of the robot's root body; a free "
                 "joint is only supported as the floating base of a one-tree robot");
        floating = true;
        nq += 7;
        nv += 6;
        break;
      case mjJNT_BALL:
        throw Error(str_cat(path, ": ball joint '", jname, "' is not supported (the state codec has no "
                            "quaternion joints); model it as three hinges"));
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        wrapped.push_back(m->jnt_type[j] == mjJNT_HINGE && !m->jnt_limited[j] ? 1 : 0);
        names.push_back(jname);
        nq += 1;
        nv += 1;
        break;
    }
  }
  FN_CHECK_OPTION(first >= 0, "robot_root_body", path, ": the robot (body trees ", body_list(m, tree_roots_),
                  ") has no joints; choose a tree with joints: ", body_list(m, moving_trees(m)));
  FN_CHECK(spec_.base == RobotBase::Detect || (spec_.base == RobotBase::Floating) == floating, path,
           ": the spec says base '", enum_name(kRobotBaseNames, spec_.base), "' but the model's robot ",
           floating ? "has" : "has no", " free root joint");
  spec_.base = floating ? RobotBase::Floating : RobotBase::Fixed;
  layout_.nq = nq;
  layout_.nv = nv;
  layout_.floating_base = floating;
  layout_.joint_wrapped = wrapped;
  layout_.joint_names = names;
}

// Robot actuators: every actuator whose force acts on robot bodies only, through any
// transmission. One that also moves a body outside the robot is refused; one that moves no
// robot body is left uncommanded (ctrl 0) and reported by gen.
void Robot::analyze_actuators() {
  const mjModel* m = model_;
  const std::string& path = spec_.mjcf;
  actuators_.clear();
  for (int a = 0; a < m->nu; ++a) {
    check_actuator_supported(m, a, path);
    const std::vector<int> bodies = actuator_bodies(m, a);
    const auto outside = std::find_if(bodies.begin(), bodies.end(), [&](int b) { return !is_robot_body(b); });
    const size_t on_robot = size_t(std::count_if(bodies.begin(), bodies.end(), [&](int b) { return is_robot_body(b); }));
    ActuatorInfo info = describe_actuator(m, a, spec_.state.unlimited_joint_range);
    if (on_robot == 0) continue;
    FN_CHECK_OPTION(outside == bodies.end(), "robot_root_body", path, ": actuator '", info.name, "' (",
                    info.transmission, " transmission) moves robot bodies and body '", body_name(m, *outside),
                    "' outside the robot, so the robot's motion would depend on a body that is not recorded; make "
                    "that body's tree part of the robot with ", option_ref("robot_root_body"), " ",
                    robot_body_value(m, tree_roots_, m->body_rootid[*outside]), ", or remove the actuator");
    actuators_.push_back(info);
  }
  FN_CHECK_OPTION(!actuators_.empty(), "robot_root_body", path, ": none of the model's ", m->nu,
                  " actuators moves the robot (body trees ", body_list(m, tree_roots_), "); choose an actuated tree");
  layout_.nu = int(actuators_.size());
  // activations: MuJoCo 2.2.2 keeps them for the last na actuators (stateful ones come last)
  act_indices_.clear();
  for (const auto& a : actuators_)
    if (m->actuator_dyntype[a.id] != mjDYN_NONE) act_indices_.push_back(a.id - (m->nu - m->na));
  layout_.na = int(act_indices_.size());
  layout_.validate();
}

std::shared_ptr<const Robot> Robot::load(const std::string& name_or_path,
                                         const RobotOverrides& overrides) {
  fs::path p(name_or_path);
  std::string ext = p.extension().string();
  if (ext == ".json") return from_spec(RobotSpec::load(name_or_path), overrides);
  if (ext == ".xml" || ext == ".mjcf") {
    RobotSpec spec;
    spec.name = p.stem().string();
    spec.mjcf = name_or_path;
    // A spec file beside the MJCF with the same stem refines the defaults.
    fs::path beside = p;
    beside.replace_extension(".json");
    if (fs::exists(beside)) {
      spec = RobotSpec::load(beside.string());
    } else {
      // start states clear of the floor and objects (lifted or resampled, sim/generator.cpp)
      spec.state.max_initial_penetration = 0.01;
    }
    spec.mjcf = name_or_path;
    return from_spec(spec, overrides);
  }
  fs::path spec_path = fs::path(robots_directory()) / (name_or_path + ".json");
  if (fs::exists(spec_path)) return from_spec(RobotSpec::load(spec_path.string()), overrides);
  std::string names;
  for (const auto& n : builtin_robot_names()) names += (names.empty() ? "" : ", ") + n;
  if (names.empty())
    names = str_cat("none: ", robots_directory(), std::getenv("FLASHNERD_ROBOTS") ? ", named by FLASHNERD_ROBOTS," : "",
                    " holds no robot specs (*.json)");
  throw Error(str_cat("unknown robot '", name_or_path, "': give a built-in robot (", names,
                      ") or a path to an .xml MJCF or a .json robot spec"));
}

std::shared_ptr<const Robot> Robot::from_spec(RobotSpec spec, const RobotOverrides& overrides) {
  std::shared_ptr<Robot> r(new Robot());
  r->spec_ = std::move(spec);
  r->model_ = load_mjcf(r->spec_.mjcf);
  r->mjcf_hash_ = mjcf_hash_hex(mjcf_bytes(r->spec_.mjcf));
  r->analyze(overrides);
  return r;
}

Robot::~Robot() {
  if (model_) mj_deleteModel(model_);
}

mjModel* Robot::copy_model() const { return mj_copyModel(nullptr, model_); }

void Robot::analyze(const RobotOverrides& o) {
  const mjModel* m = model_;
  const std::string& path = spec_.mjcf;
  // overrides
  if (o.control_timestep > 0) spec_.control_timestep = o.control_timestep;
  if (o.command_process) spec_.command.process = *o.command_process;
  if (o.hold_steps > 0) spec_.command.hold_steps = o.hold_steps;
  if (o.ar1_coefficient >= 0) spec_.command.ar1_coefficient = o.ar1_coefficient;
  if (o.ar1_amplitude >= 0) spec_.command.ar1_amplitude = o.ar1_amplitude;
  if (o.contact_capacity >= 0) spec_.contact_capacity = o.contact_capacity;
  if (!o.robot_body.empty()) spec_.robot_root_body = o.robot_body;

  FN_CHECK(m->nu > 0, path, ": the model has no actuators (nu = 0); FlashNeRD learns controlled "
           "dynamics, so add an <actuator> for the robot's joints");
  FN_CHECK(m->njnt > 0, path, ": the model has no joints; there is nothing to learn");

  // substeps: the control frame is an integer number of physics steps
  const double dt = m->opt.timestep;
  if (spec_.control_timestep <= 0) spec_.control_timestep = dt;
  double ratio = spec_.control_timestep / dt;
  substeps_ = int(std::lround(ratio));
  FN_CHECK_OPTION(substeps_ >= 1 && std::fabs(ratio - substeps_) < 1e-6 * ratio, "control_timestep", path,
                  ": ", spec_.control_timestep, " s is not an integer multiple of the physics timestep ", dt,
                  " s; change it or <option timestep>");

  select_bodies();
  analyze_joints();
  analyze_actuators();
  if (spec_.actuator_model.empty()) spec_.actuator_model = actuator_model_label(actuators_);

  // nominal pose and command
  const int nu = layout_.nu;
  nominal_qpos_.assign(m->qpos0 + qpos_offset_, m->qpos0 + qpos_offset_ + layout_.nq);
  nominal_ctrl_.resize(size_t(nu));
  for (int i = 0; i < nu; ++i) {
    const ActuatorInfo& a = actuators_[size_t(i)];
    nominal_ctrl_[size_t(i)] = a.clamp ? 0.5 * (a.range[0] + a.range[1]) : 0.0;
  }
  auto keyframe = [&](const std::string& key, const char* field) {
    int k = mj_name2id(m, mjOBJ_KEY, key.c_str());
    FN_CHECK(k >= 0, path, ": spec field '", field, "' names keyframe '", key, "' which the model lacks");
    return k;
  };
  if (!spec_.command.nominal_values.empty()) {
    FN_CHECK(int(spec_.command.nominal_values.size()) == nu, path, ": command.nominal has ",
             spec_.command.nominal_values.size(), " values but the robot has ", nu, " actuators");
    nominal_ctrl_ = spec_.command.nominal_values;
  }
  if (!spec_.state.nominal.empty()) {
    int k = keyframe(spec_.state.nominal, "state.nominal");
    const double* key_qpos = m->key_qpos + k * m->nq + qpos_offset_;
    nominal_qpos_.assign(key_qpos, key_qpos + layout_.nq);
  }
  if (!spec_.command.nominal.empty()) {
    int k = keyframe(spec_.command.nominal, "command.nominal");
    for (int i = 0; i < nu; ++i) nominal_ctrl_[size_t(i)] = m->key_ctrl[k * m->nu + actuators_[size_t(i)].id];
    // position targets default to the nominal joint angles when the keyframe has no ctrl
    bool all_zero = true;
    for (double c : nominal_ctrl_) all_zero = all_zero && c == 0.0;
    for (int i = 0; i < nu && all_zero; ++i) {
      const ActuatorInfo& a = actuators_[size_t(i)];
      if ((a.kind != "position" && a.kind != "position_pd") || a.transmission != "joint") continue;
      int jnt = m->actuator_trnid[2 * a.id];
      nominal_ctrl_[size_t(i)] = m->actuator_gear[6 * a.id] * m->key_qpos[k * m->nq + m->jnt_qposadr[jnt]];
    }
  }

  auto resolve = [&](const std::vector<ProbeSpec>& specs) {
    std::vector<ResolvedProbe> out;
    for (const auto& p : specs) {
      int b = mj_name2id(m, mjOBJ_BODY, p.body.c_str());
      FN_CHECK(b > 0 && is_robot_body(b), path, ": probe body '", p.body, "' is not a robot body");
      out.push_back({b, {p.pos[0], p.pos[1], p.pos[2]}, p.radius});
    }
    return out;
  };
  probes_ = resolve(spec_.probes);
  climbing_probes_ = resolve(spec_.climbing_probes);

  if (spec_.platform) {
    int g = mj_name2id(m, mjOBJ_GEOM, spec_.platform->geom.c_str());
    FN_CHECK(g >= 0 && m->geom_type[g] == mjGEOM_BOX, path, ": platform geom '",
             spec_.platform->geom, "' must be a box geom of the model");
  }
}

}  // namespace flashnerd::sim
