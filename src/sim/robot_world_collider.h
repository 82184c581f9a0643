// Contact detection between the robot and the rest of its scene at an arbitrary state,
// cheaper than mj_collision: MuJoCo's own narrow phase (mjCOLLISIONFUNC) on the geom pairs the
// affinities allow between a robot geom and a scene geom, listed once per model. Before its
// narrow phase, each pair is tested with the robot geom's bounding sphere against the other
// geom's exact shape when it is a plane or a box (the floor, platforms, steps) or its bounding
// sphere otherwise, so the pairs far apart cost a few flops and there is no broad phase over
// the scene. The contacts are mj_collision's as a set (the same pairs by MuJoCo's body
// filter, the same functions, the same normalized normal), in another order.
//
// It applies where that equality is simple to keep: contacts enabled, no explicit <pair>s or
// <exclude>s, no global margin override, and no robot geom that may touch another robot geom
// (self-collision). Elsewhere applies() is false and callers use mj_collision.
#pragma once

#include <vector>

#include <mujoco/mujoco.h>

#include "sim/robot.h"

namespace flashnerd::sim {

class RobotWorldCollider {
 public:
  // m: the detection model (margins applied); pairs are listed from its affinities and bodies
  RobotWorldCollider(const Robot& robot, const mjModel* m);

  bool applies() const { return applies_; }
  int pairs() const { return int(pairs_.size()); }
  // The contacts at d's geom positions (mj_kinematics done) into `contacts` (cleared first;
  // grows once to the largest count). geom1 / geom2 and the normal are set as mj_collision
  // sets them; the other fields are the narrow phase's.
  void collide(const mjModel* m, const mjData* d, std::vector<mjContact>& contacts) const;

 private:
  struct Pair {
    int robot_geom, other_geom;  // as the robot and the scene own them
    int geom1, geom2;            // in the narrow phase's order (geom types ascending)
  };
  // whether the robot geom's bounding sphere is farther than `margin` from the other geom
  static bool apart(const mjModel* m, const mjData* d, const Pair& p, double margin);

  bool applies_ = false;
  std::vector<Pair> pairs_;
};

}  // namespace flashnerd::sim
