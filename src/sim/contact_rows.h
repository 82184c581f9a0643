// Contact rows (docs/DESIGN.md §4): after mj_step1 / mj_fwdPosition+mj_fwdVelocity, every
// detected contact gives one row per robot link involved, in the robot base frame:
// [kind one-hot (robot link / static / dynamic) (3), position (3), normal into the link (3),
//  lever arm = position − link CoM (3), gap = dist (1), relative surface velocity (3)].
// Rows beyond capacity K keep the K smallest gaps; the overflow is counted, never silent.
#pragma once

#include <cstdint>

#include <mujoco/mujoco.h>

#include "core/dataset.h"
#include "sim/robot.h"
#include "sim/robot_world_collider.h"

namespace flashnerd::sim {

struct ContactRowsOut {
  float* rows;       // (K, kContactRowDim), zero padding
  int32_t* link;     // (K) robot link index, -1 padding
  int32_t count = 0;     // valid rows written
  int32_t overflow = 0;  // rows dropped beyond K
  bool buffer_full = false;  // MuJoCo's own contact list (nconmax) overflowed: contacts were lost
};

// Scratch reused across calls (one per worker; grows once to the largest contact count).
struct ContactScratch {
  struct Candidate {
    float row[kContactRowDim];
    int32_t link;
    float gap;
  };
  std::vector<Candidate> candidates;
  std::vector<mjContact> contacts;  // RobotWorldCollider's
};

// out = Rᵀ x: a world vector in the base frame whose rotation matrix (row-major, MuJoCo's
// xmat) is `mat`. Contact rows and probes both use it.
void world_to_base(const double mat[9], const double x[3], float out[3]);
// The robot base frame: root body position and orientation (world).
void robot_base_frame(const Robot& robot, const mjData* d, double pos[3], double mat[9]);

// Builds the rows of the contacts currently in d (needs positions and cvel computed).
void build_contact_rows(const Robot& robot, const mjModel* m, const mjData* d, int capacity,
                        ContactScratch& scratch, ContactRowsOut& out);
// The same for `count` contacts of another list than d's.
void build_contact_rows(const Robot& robot, const mjModel* m, const mjData* d, const mjContact* contacts, int count,
                        int capacity, ContactScratch& scratch, ContactRowsOut& out);

// The detector at an arbitrary (e.g. predicted) state: runs exactly what the rows read at
// d->qpos / d->qvel — mj_kinematics, mj_comPos, mj_collision, mj_comVel, no dynamics — then
// builds the rows. At a recorded state it reproduces the generator's rows bit for bit. When
// MuJoCo's contact list (nconmax) fills up, out.buffer_full reports it (raise nconmax).
// With a collider that applies (sim/robot_world_collider.h), its contacts replace
// mj_collision's: the same rows as a set, in another order.
void detect_contact_rows(const Robot& robot, const mjModel* m, mjData* d, int capacity,
                         ContactScratch& scratch, ContactRowsOut& out, const RobotWorldCollider* collider = nullptr);

// Raises every geom's margin of `detection_model` (a copy of robot.model(), never stepped) to
// the spec's contact_margin, so detection reports pairs within it with positive gaps.
// Returns false (and changes nothing) when the margin is 0.
bool apply_contact_margin(const Robot& robot, mjModel* detection_model);

// Robot geoms that can collide with something (contype/conaffinity not both zero); a robot
// without any has no contact rows, ever.
int robot_collision_geoms(const Robot& robot);

}  // namespace flashnerd::sim
