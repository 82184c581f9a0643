#include "sim/contact_rows.h"

#include <algorithm>
#include <cstring>

namespace flashnerd::sim {

namespace {

enum OtherKind { kRobotLink = 0, kStatic = 1, kDynamic = 2 };

// Velocity (world) of the material point at world position p moving with body b.
void point_velocity(const mjModel* m, const mjData* d, int b, const double p[3], double out[3]) {
  if (b == 0) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  const double* w = d->cvel + 6 * b;      // angular
  const double* v = d->cvel + 6 * b + 3;  // linear at subtree_com of the root
  const double* c = d->subtree_com + 3 * m->body_rootid[b];
  double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  out[0] = v[0] + w[1] * r[2] - w[2] * r[1];
  out[1] = v[1] + w[2] * r[0] - w[0] * r[2];
  out[2] = v[2] + w[0] * r[1] - w[1] * r[0];
}

}  // namespace

void world_to_base(const double mat[9], const double x[3], float out[3]) {
  for (int i = 0; i < 3; ++i) out[i] = float(mat[i] * x[0] + mat[3 + i] * x[1] + mat[6 + i] * x[2]);
}

void robot_base_frame(const Robot& robot, const mjData* d, double pos[3], double mat[9]) {
  const int b = robot.root_body();
  std::memcpy(pos, d->xpos + 3 * b, 3 * sizeof(double));
  std::memcpy(mat, d->xmat + 9 * b, 9 * sizeof(double));
}

void build_contact_rows(const Robot& robot, const mjModel* m, const mjData* d, int capacity,
                        ContactScratch& scratch, ContactRowsOut& out) {
  build_contact_rows(robot, m, d, d->contact, d->ncon, capacity, scratch, out);
}

void build_contact_rows(const Robot& robot, const mjModel* m, const mjData* d, const mjContact* contacts, int ncon,
                        int capacity, ContactScratch& scratch, ContactRowsOut& out) {
  double base_pos[3], base_mat[9];
  robot_base_frame(robot, d, base_pos, base_mat);
  auto& cand = scratch.candidates;
  cand.clear();
  for (int i = 0; i < ncon; ++i) {
    const mjContact& c = contacts[i];
    int bodies[2] = {m->geom_bodyid[c.geom1], m->geom_bodyid[c.geom2]};
    for (int side = 0; side < 2; ++side) {
      int b = bodies[side], other = bodies[1 - side];
      if (!robot.is_robot_body(b)) continue;
      ContactScratch::Candidate k{};
      int kind = robot.is_robot_body(other) ? kRobotLink
                 : m->body_weldid[other] == 0 ? kStatic
                                              : kDynamic;
      k.row[kind] = 1.0f;
      double rel[3] = {c.pos[0] - base_pos[0], c.pos[1] - base_pos[1], c.pos[2] - base_pos[2]};
      world_to_base(base_mat, rel, k.row + 3);
      // frame[0:3] points from geom1 to geom2: into geom2, out of geom1
      double sign = side == 1 ? 1.0 : -1.0;
      double n[3] = {sign * c.frame[0], sign * c.frame[1], sign * c.frame[2]};
      world_to_base(base_mat, n, k.row + 6);
      const double* com = d->xipos + 3 * b;
      double lever[3] = {c.pos[0] - com[0], c.pos[1] - com[1], c.pos[2] - com[2]};
      world_to_base(base_mat, lever, k.row + 9);
      k.row[12] = float(c.dist);
      double vb[3], vo[3];
      point_velocity(m, d, b, c.pos, vb);
      point_velocity(m, d, other, c.pos, vo);
      double dv[3] = {vb[0] - vo[0], vb[1] - vo[1], vb[2] - vo[2]};
      world_to_base(base_mat, dv, k.row + 13);
      k.link = robot.link_index(b);
      k.gap = float(c.dist);
      cand.push_back(k);
    }
  }
  const int n = int(cand.size());
  out.overflow = n > capacity ? n - capacity : 0;
  out.count = std::min(n, capacity);
  if (n > capacity) {
    // keep the K smallest gaps, in detection order among ties (stable, deterministic)
    std::stable_sort(cand.begin(), cand.end(),
                     [](const auto& a, const auto& b) { return a.gap < b.gap; });
  }
  std::memset(out.rows, 0, sizeof(float) * size_t(capacity) * kContactRowDim);
  for (int i = 0; i < capacity; ++i) out.link[i] = -1;
  for (int i = 0; i < out.count; ++i) {
    std::memcpy(out.rows + i * kContactRowDim, cand[size_t(i)].row, sizeof(float) * kContactRowDim);
    out.link[i] = cand[size_t(i)].link;
  }
}

void detect_contact_rows(const Robot& robot, const mjModel* m, mjData* d, int capacity,
                         ContactScratch& scratch, ContactRowsOut& out, const RobotWorldCollider* collider) {
  mj_kinematics(m, d);
  mj_comPos(m, d);
  if (collider != nullptr && collider->applies()) {
    collider->collide(m, d, scratch.contacts);
    mj_comVel(m, d);
    build_contact_rows(robot, m, d, scratch.contacts.data(), int(scratch.contacts.size()), capacity, scratch, out);
    out.buffer_full = false;  // the collider's list has no cap
    return;
  }
  const int full_before = d->warning[mjWARN_CONTACTFULL].number;
  mj_collision(m, d);
  mj_comVel(m, d);
  build_contact_rows(robot, m, d, capacity, scratch, out);
  out.buffer_full = d->warning[mjWARN_CONTACTFULL].number != full_before;
}

bool apply_contact_margin(const Robot& robot, mjModel* m) {
  const double margin = robot.spec().contact_margin;
  if (margin <= 0) return false;
  for (int g = 0; g < m->ngeom; ++g) m->geom_margin[g] = std::max(m->geom_margin[g], margin);
  return true;
}

int robot_collision_geoms(const Robot& robot) {
  const mjModel* m = robot.model();
  int n = 0;
  for (int g = 0; g < m->ngeom; ++g)
    n += robot.is_robot_body(m->geom_bodyid[g]) && (m->geom_contype[g] != 0 || m->geom_conaffinity[g] != 0);
  return n;
}

}  // namespace flashnerd::sim
