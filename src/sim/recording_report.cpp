#include "sim/recording_report.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "sim/mj_names.h"

namespace flashnerd::sim {

namespace {

// moving bodies (not welded to the world) among `bodies`, ascending and unique
std::vector<int> moving(const mjModel* m, const std::vector<int>& bodies) {
  std::set<int> out;
  for (int b : bodies)
    if (b > 0 && m->body_weldid[b] != 0) out.insert(b);
  return {out.begin(), out.end()};
}

std::vector<int> equality_bodies(const mjModel* m, int e) {
  std::vector<int> bodies;
  const int o1 = m->eq_obj1id[e], o2 = m->eq_obj2id[e];
  switch (m->eq_type[e]) {
    case mjEQ_CONNECT:
    case mjEQ_WELD: bodies = {o1, o2}; break;
    case mjEQ_JOINT:
      bodies.push_back(m->jnt_bodyid[o1]);
      if (o2 >= 0) bodies.push_back(m->jnt_bodyid[o2]);
      break;
    case mjEQ_TENDON:
      tendon_bodies(m, o1, bodies);
      if (o2 >= 0) tendon_bodies(m, o2, bodies);
      break;
    default: break;
  }
  return moving(m, bodies);
}

// Robot-only, coupling (robot and other bodies) or none (other bodies only).
enum class Reach { Robot, Coupling, Other };
Reach reach(const Robot& robot, const std::vector<int>& bodies) {
  size_t on_robot = 0;
  for (int b : bodies) on_robot += robot.is_robot_body(b) ? 1 : 0;
  if (on_robot == 0) return Reach::Other;
  return on_robot == bodies.size() ? Reach::Robot : Reach::Coupling;
}

int first_outside(const Robot& robot, const std::vector<int>& bodies) {
  return *std::find_if(bodies.begin(), bodies.end(), [&](int b) { return !robot.is_robot_body(b); });
}

// "1 free object is" / "2 free objects are"
std::string count_of(size_t n, const char* noun, const char* singular_verb, const char* plural_verb) {
  return str_cat(n, " ", noun, n == 1 ? "" : "s", " ", n == 1 ? singular_verb : plural_verb);
}

// body trees (world children with joints) that are not the robot: free objects and others
void other_trees(const Robot& robot, RecordingReport& r) {
  const mjModel* m = robot.model();
  std::vector<int> free_roots, roots;
  int free_bodies = 0, free_nq = 0, bodies = 0, nq = 0;
  for (int b = 1; b < m->nbody; ++b) {
    const int root = m->body_rootid[b];
    if (robot.is_robot_body(b) || m->body_weldid[b] == 0) continue;
    const bool free = m->body_jntnum[root] > 0 && m->jnt_type[m->body_jntadr[root]] == mjJNT_FREE;
    int body_nq = 0;
    for (int j = m->body_jntadr[b]; j >= 0 && j < m->body_jntadr[b] + m->body_jntnum[b]; ++j)
      body_nq += (j + 1 < m->njnt ? m->jnt_qposadr[j + 1] : m->nq) - m->jnt_qposadr[j];
    (free ? free_bodies : bodies) += 1;
    (free ? free_nq : nq) += body_nq;
    auto& list = free ? free_roots : roots;
    if (list.empty() || list.back() != root) list.push_back(root);
  }
  if (!free_roots.empty())
    r.warnings.push_back(str_cat(count_of(free_roots.size(), "free object", "is", "are"), " simulated but not "
                                 "recorded (", name_list(m, mjOBJ_BODY, free_roots), "; ", free_bodies, " bodies, ",
                                 free_nq, " qpos): not recorded: a learned model cannot predict them; "
                                 "their contacts with the robot appear in the contact rows"));
  if (!roots.empty())
    r.warnings.push_back(str_cat(count_of(roots.size(), "other body tree", "is", "are"), " simulated but not "
                                 "recorded (", name_list(m, mjOBJ_BODY, roots), "; ", bodies, " bodies, ", nq,
                                 " qpos); make one part of the robot with "
                                 "its spec's robot_root_body if the robot's motion depends on it"));
}

void actuators(const Robot& robot, RecordingReport& r) {
  const mjModel* m = robot.model();
  std::vector<int> commanded, uncommanded;
  for (const auto& a : robot.actuators()) commanded.push_back(a.id);
  for (int a = 0; a < m->nu; ++a)
    if (!std::binary_search(commanded.begin(), commanded.end(), a)) uncommanded.push_back(a);
  r.actuators = int(commanded.size());
  r.actuators_total = m->nu;
  if (!uncommanded.empty())
    r.warnings.push_back(str_cat(count_of(uncommanded.size(), "actuator", "moves", "move"), " no robot body (",
                                 name_list(m, mjOBJ_ACTUATOR, uncommanded), "): not commanded (ctrl stays 0) and "
                                 "not recorded"));
  for (const auto& a : robot.actuators()) {
    if (a.range_source == "ctrlrange") continue;
    if (a.range_source == "default") {
      r.warnings.push_back(str_cat("actuator '", a.name, "' (", a.kind, ") has no ctrlrange: commands are drawn "
                                   "from [-1, 1]; set ctrlrange in the MJCF (or command.nominal and ar1 amplitude "
                                   "in a spec) to choose the range"));
    } else {
      r.notes.push_back(str_cat("actuator '", a.name, "' (", a.kind, ") has no ctrlrange: commands are drawn from "
                                "its ", a.range_source, " [", a.range[0], ", ", a.range[1], "]"));
    }
  }
  // activation states: the robot's are recorded with its state (layout na)
  for (const auto& a : robot.actuators()) r.activations += a.dynamics == "none" ? 0 : 1;
  r.activations_total = m->na;
  r.activations_recorded = robot.layout().na;
}

void couplings(const Robot& robot, RecordingReport& r) {
  const mjModel* m = robot.model();
  r.equalities_total = m->neq;
  for (int e = 0; e < m->neq; ++e) {
    const std::vector<int> bodies = equality_bodies(m, e);
    const Reach k = reach(robot, bodies);
    if (k == Reach::Robot) ++r.equalities;
    if (k == Reach::Coupling)
      r.warnings.push_back(str_cat("equality constraint '", object_name(m, mjOBJ_EQUALITY, e), "' ties the robot to "
                                   "body '", object_name(m, mjOBJ_BODY, first_outside(robot, bodies)),
                                   "', which is not recorded: the robot's motion depends on it; make its tree part "
                                   "of the robot in its spec's robot_root_body"));
  }
  for (int t = 0; t < m->ntendon; ++t) {
    std::vector<int> bodies;
    tendon_bodies(m, t, bodies);
    bodies = moving(m, bodies);
    if (reach(robot, bodies) != Reach::Coupling) continue;
    r.warnings.push_back(str_cat("tendon '", object_name(m, mjOBJ_TENDON, t), "' ties the robot to body '",
                                 object_name(m, mjOBJ_BODY, first_outside(robot, bodies)),
                                 "', which is not recorded: the robot's motion depends on it; make its tree part "
                                 "of the robot in its spec's robot_root_body"));
  }
}

}  // namespace

RecordingReport describe_recording(const Robot& robot) {
  const mjModel* m = robot.model();
  RecordingReport r;
  r.bodies = robot.link_count();
  r.bodies_total = m->nbody - 1;
  r.nq = robot.layout().nq;
  r.nq_total = m->nq;
  r.nv = robot.layout().nv;
  r.nv_total = m->nv;
  other_trees(robot, r);
  actuators(robot, r);
  couplings(robot, r);
  return r;
}

}  // namespace flashnerd::sim
