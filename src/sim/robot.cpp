#include "sim/robot.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd::sim {

namespace fs = std::filesystem;

std::string fnv1a_hex(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return buf;
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

}  // namespace

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
    if (fs::exists(beside)) spec = RobotSpec::load(beside.string());
    spec.mjcf = name_or_path;
    return from_spec(spec, overrides);
  }
  fs::path spec_path = fs::path(robots_directory()) / (name_or_path + ".json");
  if (fs::exists(spec_path)) return from_spec(RobotSpec::load(spec_path.string()), overrides);
  std::string names;
  for (const auto& n : builtin_robot_names()) names += (names.empty() ? "" : ", ") + n;
  throw Error(str_cat("unknown robot '", name_or_path, "': give a built-in robot (", names,
                      ") or a path to an .xml MJCF or a .json robot spec"));
}

std::shared_ptr<const Robot> Robot::from_spec(RobotSpec spec, const RobotOverrides& overrides) {
  std::shared_ptr<Robot> r(new Robot());
  r->spec_ = std::move(spec);
  r->model_ = load_mjcf(r->spec_.mjcf);
  r->mjcf_hash_ = fnv1a_hex(mjcf_bytes(r->spec_.mjcf));
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
  if (!o.command_process.empty()) spec_.command.process = parse_command_process(o.command_process);
  if (o.hold_steps > 0) spec_.command.hold_steps = o.hold_steps;
  if (o.ar1_coefficient >= 0) spec_.command.ar1_coefficient = o.ar1_coefficient;
  if (o.ar1_amplitude >= 0) spec_.command.ar1_amplitude = o.ar1_amplitude;
  if (o.contact_capacity >= 0) spec_.contact_capacity = o.contact_capacity;

  FN_CHECK(m->nu > 0, path, ": the model has no actuators (nu = 0); FlashNeRD learns controlled "
           "dynamics, so add an <actuator> for the robot's joints");
  FN_CHECK(m->njnt > 0, path, ": the model has no joints; there is nothing to learn");

  // substeps: the control frame is an integer number of physics steps
  const double dt = m->opt.timestep;
  if (spec_.control_timestep <= 0) spec_.control_timestep = dt;
  double ratio = spec_.control_timestep / dt;
  substeps_ = int(std::lround(ratio));
  FN_CHECK(substeps_ >= 1 && std::fabs(ratio - substeps_) < 1e-6 * ratio, path,
           ": control timestep ", spec_.control_timestep, " s is not an integer multiple of the "
           "physics timestep ", dt, " s; change --control-dt or <option timestep>");

  // the robot subtree: from the spec, or the world child carrying the first joint
  if (!spec_.robot_root_body.empty()) {
    root_body_ = mj_name2id(m, mjOBJ_BODY, spec_.robot_root_body.c_str());
    FN_CHECK(root_body_ > 0, path, ": robot_root_body '", spec_.robot_root_body,
             "' is not a body of the model");
  } else {
    int b = m->jnt_bodyid[0];
    while (m->body_parentid[b] != 0) b = m->body_parentid[b];
    root_body_ = b;
  }
  body_link_.assign(size_t(m->nbody), -1);
  for (int b = 1; b < m->nbody; ++b) {
    int a = b;
    while (a != 0 && a != root_body_) a = m->body_parentid[a];
    if (a == root_body_) {
      body_link_[size_t(b)] = int(link_bodies_.size());
      link_bodies_.push_back(b);
    }
  }

  // robot joints: a contiguous prefix of qpos/qvel, hinge/slide, optionally a free root
  int nq = 0, nv = 0;
  bool floating = false;
  std::vector<uint8_t> wrapped;
  std::vector<std::string> names;
  bool robot_done = false;
  for (int j = 0; j < m->njnt; ++j) {
    bool robot_joint = is_robot_body(m->jnt_bodyid[j]);
    if (!robot_joint) {
      robot_done = true;
      continue;
    }
    FN_CHECK(!robot_done, path, ": robot joint ", j, " comes after an object's joint in qpos; "
             "put the robot's bodies before the objects in <worldbody>");
    FN_CHECK(m->jnt_qposadr[j] == nq && m->jnt_dofadr[j] == nv, path,
             ": robot joints must occupy the start of qpos/qvel");
    const char* jname = mj_id2name(m, mjOBJ_JOINT, j);
    switch (m->jnt_type[j]) {
      case mjJNT_FREE:
        FN_CHECK(j == 0 && m->jnt_bodyid[j] == root_body_, path,
                 ": a free joint is only supported as the first joint of the robot's root body");
        floating = true;
        nq += 7;
        nv += 6;
        break;
      case mjJNT_BALL:
        throw Error(str_cat(path, ": ball joint '", jname ? jname : "?",
                            "' is not supported; model it as three hinges"));
      case mjJNT_HINGE:
      case mjJNT_SLIDE:
        wrapped.push_back(m->jnt_type[j] == mjJNT_HINGE && !m->jnt_limited[j] ? 1 : 0);
        names.push_back(jname ? jname : "joint" + std::to_string(j));
        nq += 1;
        nv += 1;
        break;
    }
  }
  if (!spec_.base.empty()) {
    FN_CHECK((spec_.base == "floating") == floating, path, ": the spec says base '", spec_.base,
             "' but the model's robot ", floating ? "has" : "has no", " free root joint");
  }
  spec_.base = floating ? "floating" : "fixed";
  layout_.nq = nq;
  layout_.nv = nv;
  layout_.nu = m->nu;
  layout_.floating_base = floating;
  layout_.joint_wrapped = wrapped;
  layout_.joint_names = names;
  layout_.validate();

  for (int a = 0; a < m->nu; ++a) {
    FN_CHECK(m->actuator_trntype[a] == mjTRN_JOINT && is_robot_body(m->jnt_bodyid[m->actuator_trnid[2 * a]]),
             path, ": actuator ", a, " does not drive a robot joint; only joint actuators on the robot are supported");
  }

  // nominal pose and command
  nominal_qpos_.assign(m->qpos0, m->qpos0 + nq);
  nominal_ctrl_.resize(size_t(m->nu));
  for (int a = 0; a < m->nu; ++a) {
    nominal_ctrl_[size_t(a)] = m->actuator_ctrllimited[a]
                                   ? 0.5 * (m->actuator_ctrlrange[2 * a] + m->actuator_ctrlrange[2 * a + 1])
                                   : 0.0;
  }
  auto keyframe = [&](const std::string& key, const char* field) {
    int k = mj_name2id(m, mjOBJ_KEY, key.c_str());
    FN_CHECK(k >= 0, path, ": spec field '", field, "' names keyframe '", key, "' which the model lacks");
    return k;
  };
  if (!spec_.command.nominal_values.empty()) {
    FN_CHECK(int(spec_.command.nominal_values.size()) == m->nu, path, ": command.nominal has ",
             spec_.command.nominal_values.size(), " values but the model has ", m->nu, " actuators");
    nominal_ctrl_ = spec_.command.nominal_values;
  }
  if (!spec_.state.nominal.empty()) {
    int k = keyframe(spec_.state.nominal, "state.nominal");
    nominal_qpos_.assign(m->key_qpos + k * m->nq, m->key_qpos + k * m->nq + nq);
  }
  if (!spec_.command.nominal.empty()) {
    int k = keyframe(spec_.command.nominal, "command.nominal");
    nominal_ctrl_.assign(m->key_ctrl + k * m->nu, m->key_ctrl + (k + 1) * m->nu);
    // position targets default to the nominal joint angles when the keyframe has no ctrl
    bool all_zero = true;
    for (double c : nominal_ctrl_) all_zero = all_zero && c == 0.0;
    if (all_zero && spec_.actuator_model == "position_pd") {
      for (int a = 0; a < m->nu; ++a) {
        int jnt = m->actuator_trnid[2 * a];
        nominal_ctrl_[size_t(a)] = m->key_qpos[k * m->nq + m->jnt_qposadr[jnt]];
      }
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
