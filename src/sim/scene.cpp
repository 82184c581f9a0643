#include "sim/scene.h"

#include <algorithm>
#include <cmath>

#include "core/enum_names.h"
#include "core/error.h"
#include "core/scope_exit.h"

namespace flashnerd::sim {

bool randomizes_scene(const Robot& robot) { return robot.spec().platform.has_value(); }

Platform apply_scene(const Robot& robot, mjModel* m, Rng& rng) {
  if (!randomizes_scene(robot)) return {};
  const PlatformSpec& p = *robot.spec().platform;
  Platform drawn;
  drawn.height = rng.uniform(p.height[0], p.height[1]);
  drawn.distance = rng.uniform(p.distance[0], p.distance[1]);
  apply_platform(robot, m, drawn);
  return drawn;
}

void apply_platform(const Robot& robot, mjModel* m, const Platform& platform) {
  FN_CHECK(randomizes_scene(robot), "robot '", robot.name(), "' has no platform in its spec");
  FN_CHECK(platform.height > 0 && platform.distance >= 0, "platform height must be > 0 and distance >= 0 (got ",
           platform.height, ", ", platform.distance, ")");
  // a box platform: top at `height`, near edge `distance` ahead of the origin along +x
  const PlatformSpec& p = *robot.spec().platform;
  const int g = mj_name2id(m, mjOBJ_GEOM, p.geom.c_str());
  FN_CHECK(g >= 0, "robot '", robot.name(), "': platform geom '", p.geom, "' not in the model");
  double* size = m->geom_size + 3 * g;
  size[2] = 0.5 * platform.height;
  double* pos = m->geom_pos + 3 * g;
  pos[0] = platform.distance + size[0];
  pos[2] = 0.5 * platform.height;
  m->geom_rbound[g] = std::sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
}

std::vector<PlatformOverlap> platform_contacts(const Robot& robot, const Platform& platform, const double* qpos) {
  mjModel* m = robot.copy_model();
  ScopeExit free_model([m] { mj_deleteModel(m); });
  apply_platform(robot, m, platform);
  mjData* d = mj_makeData(m);
  ScopeExit free_data([d] { mj_deleteData(d); });
  mju_copy(d->qpos, qpos, m->nq);
  mj_forward(m, d);
  const int platform_geom = mj_name2id(m, mjOBJ_GEOM, robot.spec().platform->geom.c_str());
  std::vector<PlatformOverlap> touching;
  for (int c = 0; c < d->ncon; ++c) {
    const mjContact& contact = d->contact[c];
    if (contact.geom1 != platform_geom && contact.geom2 != platform_geom) continue;
    const int other = contact.geom1 == platform_geom ? contact.geom2 : contact.geom1;
    const char* name = mj_id2name(m, mjOBJ_GEOM, other);
    const PlatformOverlap found{std::max(0.0, -contact.dist), name ? name : str_cat("geom ", other)};
    auto same = std::find_if(touching.begin(), touching.end(), [&](const auto& t) { return t.geom == found.geom; });
    if (same == touching.end()) touching.push_back(found);
    else same->depth = std::max(same->depth, found.depth);
  }
  std::sort(touching.begin(), touching.end(), [](const auto& a, const auto& b) { return a.depth > b.depth; });
  return touching;
}

PlatformOverlap platform_overlap(const Robot& robot, const Platform& platform, const double* qpos) {
  const std::vector<PlatformOverlap> touching = platform_contacts(robot, platform, qpos);
  return touching.empty() || touching.front().depth <= 0 ? PlatformOverlap{} : touching.front();
}

Platform apply_trajectory_scene(const Robot& robot, mjModel* model, uint64_t seed, int64_t trajectory) {
  Rng rng = Rng::stream(seed, uint64_t(trajectory));
  return apply_scene(robot, model, rng);
}

namespace {

constexpr EnumName<StartKind> kStartKindNames[] = {
    {StartKind::Ground, "ground"}, {StartKind::Edge, "edge"}, {StartKind::Top, "top"}};

}  // namespace

const char* start_kind_name(StartKind k) { return enum_name(kStartKindNames, k); }

void place_start(const Platform& platform, StartKind kind, Rng& rng, double* base_pos) {
  static constexpr double kRange[kStartKinds][2] = {{-1.0, -0.55}, {-0.3, 0.3}, {0.55, 1.4}};
  const int k = int(kind);
  base_pos[0] = platform.distance + rng.uniform(kRange[k][0], kRange[k][1]);
  if (kind != StartKind::Ground) base_pos[2] += platform.height;
}

StartKind classify_start(const Platform& platform, const double* base_pos) {
  const double x = base_pos[0] - platform.distance;
  return x < -0.45 ? StartKind::Ground : x > 0.45 ? StartKind::Top : StartKind::Edge;
}

}  // namespace flashnerd::sim
