// Widths of the per-frame contact features shared by data, training and the engine.
#pragma once

namespace flashnerd {

// One contact row (docs/DESIGN.md §4), in the robot base frame:
// [kind_robot, kind_static, kind_dynamic, pos(3), normal into the link(3), lever arm(3),
//  gap, relative surface velocity(3)]; the link index is stored separately.
constexpr int kContactRowDim = 16;
// One fixed probe: [nearest point − probe point (3), normal (3), signed distance], base
// frame, all zero when the distance exceeds the probe threshold.
constexpr int kProbeFeatureDim = 7;

}  // namespace flashnerd
