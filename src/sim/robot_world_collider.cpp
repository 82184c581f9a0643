#include "sim/robot_world_collider.h"

#include <algorithm>
#include <cmath>

namespace flashnerd::sim {

namespace {

// mj_collision's body filter: bodies welded together never collide (the world with itself
// included), nor a body with its parent's weld unless filterparent is disabled or either is
// the world.
bool filtered(const mjModel* m, int body1, int body2) {
  const int weld1 = m->body_weldid[body1], weld2 = m->body_weldid[body2];
  if (weld1 == weld2) return true;
  const int parent1 = m->body_weldid[m->body_parentid[weld1]], parent2 = m->body_weldid[m->body_parentid[weld2]];
  const bool filter_parent = !(m->opt.disableflags & mjDSBL_FILTERPARENT);
  return filter_parent && weld1 != 0 && weld2 != 0 && (weld1 == parent2 || weld2 == parent1);
}

bool affine(const mjModel* m, int g1, int g2) {
  return (m->geom_contype[g1] & m->geom_conaffinity[g2]) || (m->geom_contype[g2] & m->geom_conaffinity[g1]);
}

}  // namespace

RobotWorldCollider::RobotWorldCollider(const Robot& robot, const mjModel* m) {
  applies_ = !(m->opt.disableflags & mjDSBL_CONTACT) && !(m->opt.enableflags & mjENBL_OVERRIDE) && m->npair == 0 &&
             m->nexclude == 0;
  for (int a = 0; a < m->ngeom && applies_; ++a) {
    if (!robot.is_robot_body(m->geom_bodyid[a])) continue;
    for (int b = 0; b < m->ngeom; ++b) {
      if (b == a || !affine(m, a, b) || filtered(m, m->geom_bodyid[a], m->geom_bodyid[b])) continue;
      if (robot.is_robot_body(m->geom_bodyid[b])) {  // self-collision: mj_collision's business
        applies_ = false;
        break;
      }
      Pair p{a, b, std::min(a, b), std::max(a, b)};
      if (m->geom_type[p.geom1] > m->geom_type[p.geom2]) std::swap(p.geom1, p.geom2);
      if (mjCOLLISIONFUNC[m->geom_type[p.geom1]][m->geom_type[p.geom2]] != nullptr) pairs_.push_back(p);
    }
  }
  if (!applies_) pairs_.clear();
}

bool RobotWorldCollider::apart(const mjModel* m, const mjData* d, const Pair& p, double margin) {
  const double* c = d->geom_xpos + 3 * p.robot_geom;
  const double* o = d->geom_xpos + 3 * p.other_geom;
  const double reach = m->geom_rbound[p.robot_geom] + margin;
  const int type = m->geom_type[p.other_geom];
  if (type == mjGEOM_PLANE || type == mjGEOM_BOX) {
    const double* r = d->geom_xmat + 9 * p.other_geom;  // row-major: local = rᵀ (c − o)
    const double rel[3] = {c[0] - o[0], c[1] - o[1], c[2] - o[2]};
    double local[3];
    for (int i = 0; i < 3; ++i) local[i] = r[i] * rel[0] + r[3 + i] * rel[1] + r[6 + i] * rel[2];
    if (type == mjGEOM_PLANE) return local[2] > reach;  // height above the (infinite) plane
    const double* half = m->geom_size + 3 * p.other_geom;
    double d2 = 0;
    for (int i = 0; i < 3; ++i) {
      const double out = std::fabs(local[i]) - half[i];
      if (out > 0) d2 += out * out;
    }
    return d2 > reach * reach;
  }
  if (m->geom_rbound[p.other_geom] <= 0) return false;  // no bound: the narrow phase decides
  const double r = reach + m->geom_rbound[p.other_geom];
  const double dx = c[0] - o[0], dy = c[1] - o[1], dz = c[2] - o[2];
  return dx * dx + dy * dy + dz * dz > r * r;
}

void RobotWorldCollider::collide(const mjModel* m, const mjData* d, std::vector<mjContact>& contacts) const {
  contacts.clear();
  mjContact found[mjMAXCONPAIR];
  for (const Pair& p : pairs_) {
    const double margin = std::max(m->geom_margin[p.geom1], m->geom_margin[p.geom2]);
    if (apart(m, d, p, margin)) continue;
    const int n = mjCOLLISIONFUNC[m->geom_type[p.geom1]][m->geom_type[p.geom2]](m, d, found, p.geom1, p.geom2, margin);
    for (int i = 0; i < n; ++i) {
      found[i].geom1 = p.geom1;
      found[i].geom2 = p.geom2;
      mju_normalize3(found[i].frame);  // as mj_collision completes the contact frame
      contacts.push_back(found[i]);
    }
  }
}

}  // namespace flashnerd::sim
