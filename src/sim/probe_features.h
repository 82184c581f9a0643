// NeRD-style fixed probes: for each probe point on a robot link, the nearest point on
// external geometry (geoms not on the robot), the outward normal there, and the signed
// distance (minus the probe radius), in the robot base frame; all zero beyond the
// threshold. Planes, spheres, boxes and capsules are measured exactly; other geom types
// are ignored (documented in docs/DATASET.md).
#pragma once

#include <mujoco/mujoco.h>

#include "sim/robot.h"

namespace flashnerd::sim {

// out: (probes.size(), kProbeFeatureDim). Needs positions computed in d.
void build_probe_features(const Robot& robot, const mjModel* m, const mjData* d,
                          const std::vector<ResolvedProbe>& probes, double threshold, float* out);

// One probe's clearance: signed distance from its point (world, returned in `point`) to the
// nearest external geom minus its radius, with that geom's nearest point and outward normal
// (world frame). 1e300 when no external geom can be measured.
double probe_clearance(const Robot& robot, const mjModel* m, const mjData* d, const ResolvedProbe& probe,
                       double point[3], double nearest[3], double normal[3]);
// Signed distance from world point p to geom g with the nearest point and outward normal;
// returns false for unsupported geom types.
bool geom_signed_distance(const mjModel* m, const mjData* d, int g, const double p[3],
                          double* dist, double nearest[3], double normal[3]);

}  // namespace flashnerd::sim
