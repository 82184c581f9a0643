#include "sim/actuators.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "sim/mj_names.h"

namespace flashnerd::sim {

namespace {

const char* transmission_name(int trn) {
  switch (trn) {
    case mjTRN_JOINT: return "joint";
    case mjTRN_JOINTINPARENT: return "joint (in parent frame)";
    case mjTRN_SLIDERCRANK: return "slider-crank";
    case mjTRN_TENDON: return "tendon";
    case mjTRN_SITE: return "site";
    case mjTRN_BODY: return "adhesion body";
  }
  return "unknown";
}

const char* dynamics_name(int dyn) {
  switch (dyn) {
    case mjDYN_NONE: return "none";
    case mjDYN_INTEGRATOR: return "integrator";
    case mjDYN_FILTER: return "filter";
    case mjDYN_MUSCLE: return "muscle";
    case mjDYN_USER: return "user";
  }
  return "unknown";
}

// position-like: a fixed gain and a bias -kp·length (+ -kd·velocity), so ctrl is a target length
bool position_like(const mjModel* m, int a) {
  const double* b = m->actuator_biasprm + a * mjNBIAS;
  return m->actuator_gaintype[a] == mjGAIN_FIXED && m->actuator_biastype[a] == mjBIAS_AFFINE &&
         b[0] == 0 && b[1] < 0;
}

std::string kind_of(const mjModel* m, int a) {
  if (m->actuator_trntype[a] == mjTRN_BODY) return "adhesion";
  const int gain = m->actuator_gaintype[a], bias = m->actuator_biastype[a];
  const double* b = m->actuator_biasprm + a * mjNBIAS;
  if (gain == mjGAIN_MUSCLE || bias == mjBIAS_MUSCLE || m->actuator_dyntype[a] == mjDYN_MUSCLE) return "muscle";
  if (gain == mjGAIN_FIXED && bias == mjBIAS_NONE) return "motor";
  if (position_like(m, a)) return b[2] < 0 ? "position_pd" : "position";
  if (gain == mjGAIN_FIXED && bias == mjBIAS_AFFINE && b[0] == 0 && b[1] == 0 && b[2] < 0) return "velocity";
  if (gain == mjGAIN_AFFINE && bias == mjBIAS_NONE) return "damper";
  return "general";
}

// [lo, hi] = gear · [r0, r1], ordered
void scaled_range(double gear, const double* r, double out[2]) {
  out[0] = std::min(gear * r[0], gear * r[1]);
  out[1] = std::max(gear * r[0], gear * r[1]);
}

}  // namespace

void tendon_bodies(const mjModel* m, int t, std::vector<int>& out) {
  for (int w = m->tendon_adr[t]; w < m->tendon_adr[t] + m->tendon_num[t]; ++w) {
    const int id = m->wrap_objid[w];
    switch (m->wrap_type[w]) {
      case mjWRAP_JOINT: out.push_back(m->jnt_bodyid[id]); break;
      case mjWRAP_SITE: out.push_back(m->site_bodyid[id]); break;
      case mjWRAP_SPHERE:
      case mjWRAP_CYLINDER: out.push_back(m->geom_bodyid[id]); break;
      default: break;  // pulleys only split the path
    }
  }
}

std::vector<int> actuator_bodies(const mjModel* m, int a) {
  std::vector<int> bodies;
  const int id0 = m->actuator_trnid[2 * a], id1 = m->actuator_trnid[2 * a + 1];
  switch (m->actuator_trntype[a]) {
    case mjTRN_JOINT:
    case mjTRN_JOINTINPARENT: bodies.push_back(m->jnt_bodyid[id0]); break;
    case mjTRN_SLIDERCRANK: bodies = {m->site_bodyid[id0], m->site_bodyid[id1]}; break;
    case mjTRN_SITE: bodies.push_back(m->site_bodyid[id0]); break;
    case mjTRN_BODY: bodies.push_back(id0); break;
    case mjTRN_TENDON: tendon_bodies(m, id0, bodies); break;
    default: break;
  }
  std::set<int> moving;
  for (int b : bodies)
    if (b > 0 && m->body_weldid[b] != 0) moving.insert(b);
  return {moving.begin(), moving.end()};
}

ActuatorInfo describe_actuator(const mjModel* m, int a, double unlimited_joint_range) {
  ActuatorInfo info;
  info.id = a;
  info.name = object_name(m, mjOBJ_ACTUATOR, a);
  info.transmission = transmission_name(m->actuator_trntype[a]);
  info.kind = kind_of(m, a);
  info.dynamics = dynamics_name(m->actuator_dyntype[a]);
  info.range_source = "default";
  if (m->actuator_ctrllimited[a]) {
    info.range[0] = m->actuator_ctrlrange[2 * a];
    info.range[1] = m->actuator_ctrlrange[2 * a + 1];
    info.range_source = "ctrlrange";
    info.clamp = true;
    return info;
  }
  // a position target without ctrlrange: the range the target's joint or tendon can reach
  if (!position_like(m, a) || m->actuator_dyntype[a] != mjDYN_NONE) return info;
  const double gear = m->actuator_gear[6 * a];
  const int id = m->actuator_trnid[2 * a];
  const int trn = m->actuator_trntype[a];
  if (trn == mjTRN_JOINT || trn == mjTRN_JOINTINPARENT) {
    const std::string joint = object_name(m, mjOBJ_JOINT, id);
    if (m->jnt_limited[id]) {
      scaled_range(gear, m->jnt_range + 2 * id, info.range);
      info.range_source = "joint '" + joint + "' range";
      info.clamp = true;
    } else if (m->jnt_type[id] == mjJNT_HINGE) {
      const double r[2] = {-unlimited_joint_range, unlimited_joint_range};
      scaled_range(gear, r, info.range);
      info.range_source = "joint '" + joint + "' (unlimited hinge) ±" + str_cat(unlimited_joint_range);
      info.clamp = true;
    }
  } else if (trn == mjTRN_TENDON && m->tendon_limited[id]) {
    scaled_range(gear, m->tendon_range + 2 * id, info.range);
    info.range_source = "tendon '" + object_name(m, mjOBJ_TENDON, id) + "' range";
    info.clamp = true;
  }
  return info;
}

std::string actuator_model_label(const std::vector<ActuatorInfo>& actuators) {
  std::vector<std::string> kinds;
  for (const auto& a : actuators)
    if (std::find(kinds.begin(), kinds.end(), a.kind) == kinds.end()) kinds.push_back(a.kind);
  if (kinds.size() == 1) return kinds[0];
  std::string s = "mixed (";
  for (size_t i = 0; i < kinds.size(); ++i) s += (i ? ", " : "") + kinds[i];
  return s + ")";
}

void check_actuator_supported(const mjModel* m, int a, const std::string& path) {
  const std::string name = object_name(m, mjOBJ_ACTUATOR, a);
  FN_CHECK(m->actuator_dyntype[a] != mjDYN_USER && m->actuator_gaintype[a] != mjGAIN_USER &&
               m->actuator_biastype[a] != mjBIAS_USER,
           path, ": actuator '", name, "' has a user-defined dynamics, gain or bias type (dyntype/gaintype/"
           "biastype=\"user\"), which needs MuJoCo callbacks (mjcb_act_*) that FlashNeRD does not install; "
           "use the built-in types (integrator, filter, muscle; fixed, affine)");
  FN_CHECK(m->actuator_trntype[a] != mjTRN_UNDEFINED, path, ": actuator '", name,
           "' has an undefined transmission; give it a joint, tendon, site, cranksite or body");
}

}  // namespace flashnerd::sim
