#include "core/json_diff.h"

#include <set>

namespace flashnerd {

namespace {

void collect(const nlohmann::json& a, const nlohmann::json& b, const std::string& prefix, const std::string& a_name,
             const std::string& b_name, std::string& out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (auto it = a.begin(); it != a.end(); ++it) keys.insert(it.key());
    for (auto it = b.begin(); it != b.end(); ++it) keys.insert(it.key());
    for (const auto& k : keys) {
      const std::string name = prefix.empty() ? k : prefix + "." + k;
      collect(a.contains(k) ? a.at(k) : nlohmann::json(), b.contains(k) ? b.at(k) : nlohmann::json(), name, a_name,
              b_name, out);
    }
    return;
  }
  if (a == b) return;
  auto show = [](const nlohmann::json& j) { return j.is_null() ? std::string("unset") : j.dump(); };
  out += (out.empty() ? "" : "; ") + prefix + " (" + a_name + " " + show(a) + ", " + b_name + " " + show(b) + ")";
}

}  // namespace

std::string json_differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                             const std::string& b_name) {
  std::string out;
  collect(a, b, "", a_name, b_name, out);
  return out;
}

}  // namespace flashnerd
