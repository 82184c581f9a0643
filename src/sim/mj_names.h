// Names of MuJoCo objects for messages: the MJCF name, or "KIND N" for an unnamed object.
#pragma once

#include <string>
#include <vector>

#include <mujoco/mujoco.h>

namespace flashnerd::sim {

std::string object_name(const mjModel* m, mjtObj type, int id);

// 'a', 'b', ... (N in all): at most `limit` names of objects of one type.
std::string name_list(const mjModel* m, mjtObj type, const std::vector<int>& ids, size_t limit = 6);

}  // namespace flashnerd::sim
