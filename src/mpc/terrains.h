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
// The default list, terrains/climb.json in the robots directory.
std::string default_terrains_path();

}  // namespace flashnerd::mpc
