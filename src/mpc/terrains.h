// Terrain lists for climbing trials: a JSON file naming its robot and, per terrain, the
// platform's top height and near-edge distance (robots/terrains/climb.json is the default).
#pragma once

#include <string>
#include <vector>

#include "sim/scene.h"

namespace flashnerd::mpc {

struct Terrain {
  std::string name;
  sim::Platform platform;
};

struct TerrainList {
  std::string robot;
  std::vector<Terrain> terrains;
};

// Throws naming the file and the field for a missing file, bad JSON, or a height or distance
// that is not a positive number.
TerrainList load_terrains(const std::string& path);
// Throws when the robot's start pose `qpos` overlaps the terrain's platform by more than 1 mm
// (its near edge too close to the robot: the feet would start inside the platform), naming
// the terrain, the geom and the depth.
void check_start_clear(const sim::Robot& robot, const Terrain& terrain, const double* qpos);
// The default list, terrains/climb.json in the robots directory.
std::string default_terrains_path();

}  // namespace flashnerd::mpc
