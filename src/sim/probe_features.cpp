#include "sim/probe_features.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/dataset.h"
#include "sim/contact_rows.h"

namespace flashnerd::sim {

namespace {

// p in the geom frame
void to_local(const mjData* d, int g, const double p[3], double local[3]) {
  const double* gp = d->geom_xpos + 3 * g;
  const double* R = d->geom_xmat + 9 * g;
  double r[3] = {p[0] - gp[0], p[1] - gp[1], p[2] - gp[2]};
  for (int i = 0; i < 3; ++i) local[i] = R[i] * r[0] + R[3 + i] * r[1] + R[6 + i] * r[2];
}

void to_world(const mjData* d, int g, const double local[3], double out[3], bool is_point) {
  const double* gp = d->geom_xpos + 3 * g;
  const double* R = d->geom_xmat + 9 * g;
  for (int i = 0; i < 3; ++i) {
    out[i] = R[3 * i] * local[0] + R[3 * i + 1] * local[1] + R[3 * i + 2] * local[2] + (is_point ? gp[i] : 0);
  }
}

void normalize(double v[3]) {
  double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n < 1e-12) {
    v[0] = 0;
    v[1] = 0;
    v[2] = 1;
    return;
  }
  for (int i = 0; i < 3; ++i) v[i] /= n;
}

// Sphere of radius r at the local origin.
double sphere_local(const double x[3], double r, double nearest[3], double normal[3]) {
  double n[3] = {x[0], x[1], x[2]};
  double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  normalize(n);
  for (int i = 0; i < 3; ++i) {
    normal[i] = n[i];
    nearest[i] = r * n[i];
  }
  return len - r;
}

}  // namespace

bool geom_signed_distance(const mjModel* m, const mjData* d, int g, const double p[3], double* dist,
                          double nearest[3], double normal[3]) {
  double x[3], ln[3], lp[3];
  to_local(d, g, p, x);
  const double* s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case mjGEOM_PLANE:
      *dist = x[2];
      lp[0] = x[0];
      lp[1] = x[1];
      lp[2] = 0;
      ln[0] = 0;
      ln[1] = 0;
      ln[2] = 1;
      break;
    case mjGEOM_SPHERE:
      *dist = sphere_local(x, s[0], lp, ln);
      break;
    case mjGEOM_CAPSULE: {
      double z = std::clamp(x[2], -s[1], s[1]);
      double y[3] = {x[0], x[1], x[2] - z};
      *dist = sphere_local(y, s[0], lp, ln);
      lp[2] += z;
      break;
    }
    case mjGEOM_BOX: {
      double q[3];
      bool inside = true;
      for (int i = 0; i < 3; ++i) {
        q[i] = std::clamp(x[i], -s[i], s[i]);
        inside = inside && std::fabs(x[i]) <= s[i];
      }
      if (!inside) {
        double r[3] = {x[0] - q[0], x[1] - q[1], x[2] - q[2]};
        *dist = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        std::memcpy(ln, r, sizeof r);
        normalize(ln);
        std::memcpy(lp, q, sizeof q);
      } else {
        // inside: the nearest face
        int axis = 0;
        double best = 1e300;
        for (int i = 0; i < 3; ++i) {
          double depth = s[i] - std::fabs(x[i]);
          if (depth < best) {
            best = depth;
            axis = i;
          }
        }
        *dist = -best;
        ln[0] = ln[1] = ln[2] = 0;
        ln[axis] = x[axis] >= 0 ? 1 : -1;
        std::memcpy(lp, x, sizeof lp);
        lp[axis] = ln[axis] * s[axis];
      }
      break;
    }
    default:
      return false;
  }
  to_world(d, g, lp, nearest, true);
  to_world(d, g, ln, normal, false);
  return true;
}

double probe_clearance(const Robot& robot, const mjModel* m, const mjData* d, const ResolvedProbe& pr,
                       double point[3], double nearest[3], double normal[3]) {
  const double* bp = d->xpos + 3 * pr.body;
  const double* R = d->xmat + 9 * pr.body;
  for (int i = 0; i < 3; ++i) point[i] = bp[i] + R[3 * i] * pr.pos[0] + R[3 * i + 1] * pr.pos[1] + R[3 * i + 2] * pr.pos[2];
  double best = 1e300;
  nearest[0] = nearest[1] = nearest[2] = 0;
  normal[0] = normal[1] = 0;
  normal[2] = 1;
  for (int g = 0; g < m->ngeom; ++g) {
    if (robot.is_robot_body(m->geom_bodyid[g])) continue;
    double dist, near_g[3], normal_g[3];
    if (!geom_signed_distance(m, d, g, point, &dist, near_g, normal_g)) continue;
    if (dist < best) {
      best = dist;
      std::memcpy(nearest, near_g, sizeof near_g);
      std::memcpy(normal, normal_g, sizeof normal_g);
    }
  }
  return best - pr.radius;
}

void build_probe_features(const Robot& robot, const mjModel* m, const mjData* d,
                          const std::vector<ResolvedProbe>& probes, double threshold, float* out) {
  const double* base_mat = d->xmat + 9 * robot.root_body();
  for (size_t k = 0; k < probes.size(); ++k) {
    float* f = out + k * kProbeFeatureDim;
    std::fill(f, f + kProbeFeatureDim, 0.0f);
    double p[3], nearest[3], normal[3];
    const double clearance = probe_clearance(robot, m, d, probes[k], p, nearest, normal);
    if (clearance > threshold) continue;
    double rel[3] = {nearest[0] - p[0], nearest[1] - p[1], nearest[2] - p[2]};
    world_to_base(base_mat, rel, f);
    world_to_base(base_mat, normal, f + 3);
    f[6] = float(clearance);
  }
}

}  // namespace flashnerd::sim
