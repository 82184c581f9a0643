#include "sim/scene.h"

#include <cmath>

namespace flashnerd::sim {

bool randomizes_scene(const Robot& robot) { return robot.spec().platform.has_value(); }

void apply_scene(const Robot& robot, mjModel* m, Rng& rng) {
  if (!randomizes_scene(robot)) return;
  // a box platform: top at `height`, near edge `distance` ahead of the origin along +x
  const PlatformSpec& p = *robot.spec().platform;
  const int g = mj_name2id(m, mjOBJ_GEOM, p.geom.c_str());
  const double height = rng.uniform(p.height[0], p.height[1]);
  const double distance = rng.uniform(p.distance[0], p.distance[1]);
  double* size = m->geom_size + 3 * g;
  size[2] = 0.5 * height;
  double* pos = m->geom_pos + 3 * g;
  pos[0] = distance + size[0];
  pos[2] = 0.5 * height;
  m->geom_rbound[g] = std::sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
}

void apply_trajectory_scene(const Robot& robot, mjModel* model, uint64_t seed, int64_t trajectory) {
  Rng rng = Rng::stream(seed, uint64_t(trajectory));
  apply_scene(robot, model, rng);
}

}  // namespace flashnerd::sim
