#include "sim/mj_names.h"

#include "core/error.h"

namespace flashnerd::sim {

std::string object_name(const mjModel* m, mjtObj type, int id) {
  const char* n = mj_id2name(m, type, id);
  if (n && n[0]) return n;
  const char* kind = type == mjOBJ_BODY       ? "body"
                     : type == mjOBJ_JOINT    ? "joint"
                     : type == mjOBJ_ACTUATOR ? "actuator"
                     : type == mjOBJ_TENDON   ? "tendon"
                     : type == mjOBJ_EQUALITY ? "equality"
                                              : "object";
  return str_cat(kind, " ", id);
}

std::string name_list(const mjModel* m, mjtObj type, const std::vector<int>& ids, size_t limit) {
  std::string s;
  for (size_t i = 0; i < ids.size() && i < limit; ++i) s += (i ? ", '" : "'") + object_name(m, type, ids[i]) + "'";
  if (ids.size() > limit) s += str_cat(", ... (", ids.size(), " in all)");
  return s;
}

}  // namespace flashnerd::sim
