#include "mpc/terrains.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_file.h"
#include "sim/robot_spec.h"

namespace flashnerd::mpc {

void check_start_clear(const sim::Robot& robot, const Terrain& terrain, const double* qpos) {
  constexpr double kTolerance = 1e-3;  // m: resting contact is not an overlap
  const sim::PlatformOverlap overlap = sim::platform_overlap(robot, terrain.platform, qpos);
  FN_CHECK(overlap.depth <= kTolerance, "terrain '", terrain.name, "': the start pose puts ", overlap.geom, " ",
           overlap.depth, " m into the platform (near edge ", terrain.platform.distance,
           " m ahead of the base); place the edge farther so the robot starts clear of it");
}

std::string default_terrains_path() { return sim::robots_directory() + "/terrains/climb.json"; }

TerrainList load_terrains(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "terrain list");
  FN_CHECK(j.is_object() && j.contains("robot") && j["robot"].is_string() && j.contains("terrains") &&
               j["terrains"].is_array() && !j["terrains"].empty(),
           "terrain list '", path, "' needs \"robot\" (a name) and \"terrains\" (a non-empty array)");
  TerrainList list;
  list.robot = j["robot"].get<std::string>();
  for (size_t i = 0; i < j["terrains"].size(); ++i) {
    const nlohmann::json& t = j["terrains"][i];
    auto number = [&](const char* key) {
      FN_CHECK(t.is_object() && t.contains(key) && t[key].is_number(), "terrain list '", path, "': terrain ", i,
               " needs a number \"", key, "\"");
      const double x = t[key].get<double>();
      FN_CHECK(std::isfinite(x) && x > 0 && x < 10, "terrain list '", path, "': terrain ", i, " \"", key,
               "\" must be in (0, 10) m (got ", x, ")");
      return x;
    };
    Terrain terrain;
    terrain.name = t.is_object() && t.contains("name") && t["name"].is_string() ? t["name"].get<std::string>()
                                                                                  : str_cat("terrain", i);
    terrain.platform.height = number("height");
    terrain.platform.distance = number("distance");
    list.terrains.push_back(terrain);
  }
  return list;
}

}  // namespace flashnerd::mpc
