#include "core/ensemble_manifest.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_file.h"
#include "core/output_policy.h"

namespace flashnerd {

namespace {
constexpr const char* kFormat = "flashnerd-ensemble";
constexpr int kVersion = 1;
}  // namespace

// Members are stepped side by side, each with its own weights and context: far past any
// useful ensemble, a manifest this long is a mistake, not a model.
constexpr size_t kMaxEnsembleMembers = 64;

bool is_ensemble_dir(const std::string& dir) {
  check_path_examinable(dir, "model");
  return std::filesystem::is_regular_file(std::filesystem::path(dir) / kEnsembleManifest);
}

std::vector<std::string> model_member_dirs(const std::string& dir) {
  if (!is_ensemble_dir(dir)) return {dir};
  const std::string path = (std::filesystem::path(dir) / kEnsembleManifest).string();
  const nlohmann::json j = read_json_file(path, "ensemble manifest");
  FN_CHECK(j.is_object() && j.contains("format") && j.at("format") == kFormat && j.contains("version") &&
               j.at("version") == kVersion,
           path,
           ": not a FlashNeRD ensemble manifest of version ", kVersion);
  FN_CHECK(j.contains("members") && j.at("members").is_array() && !j.at("members").empty(), path,
           ": 'members' must be a non-empty list of member directories");
  FN_CHECK(j.at("members").size() <= kMaxEnsembleMembers, path, ": ", j.at("members").size(),
           " members; an ensemble holds at most ", kMaxEnsembleMembers);
  std::vector<std::string> dirs, resolved;
  for (const auto& m : j.at("members")) {
    FN_CHECK(m.is_string(), path, ": every member must be a directory name, got ", m.dump());
    const std::string member = (std::filesystem::path(dir) / m.get<std::string>()).string();
    check_path_examinable(member, str_cat(path, ": ensemble member"));
    FN_CHECK(std::filesystem::is_directory(member), path, ": member ", m.get<std::string>(), " (", member,
             ") does not exist");
    // a member listed twice agrees with itself: the disagreement would read as confidence
    const std::string same = resolved_path(member);
    FN_CHECK(std::find(resolved.begin(), resolved.end(), same) == resolved.end(), path, ": member ",
             m.get<std::string>(), " is listed twice (", same, "); each member must be its own training");
    resolved.push_back(same);
    dirs.push_back(member);
  }
  return dirs;
}

void write_ensemble_manifest(const std::string& dir, const std::vector<std::string>& members) {
  FN_CHECK(!members.empty(), "an ensemble needs at least one member");
  const nlohmann::json j = {{"format", kFormat}, {"version", kVersion}, {"members", members}};
  write_file_atomic((std::filesystem::path(dir) / kEnsembleManifest).string(), j.dump(1) + "\n");
}

void check_ensemble_members(const std::vector<ModelConfig>& configs, const std::vector<std::string>& dirs) {
  FN_ASSERT(configs.size() == dirs.size() && !configs.empty());
  const ModelConfig& a = configs[0];
  for (size_t i = 1; i < configs.size(); ++i) {
    const ModelConfig& b = configs[i];
    auto differs = [&](const char* field) {
      return Error(str_cat("ensemble member ", dirs[i], " differs from member ", dirs[0], " in ", field,
                           ": members must be trainings of one architecture and preset on one robot"));
    };
    if (b.robot != a.robot || b.mjcf_hash != a.mjcf_hash) throw differs("robot / MJCF");
    if (!(b.layout == a.layout)) throw differs("state layout");
    if (b.timestep != a.timestep || b.actuator_model != a.actuator_model) throw differs("timestep / actuator model");
    if (b.arch != a.arch || b.preset != a.preset) throw differs("architecture / preset");
    if (b.target != a.target) throw differs("target");
    if (b.input_dim != a.input_dim || b.output_dim != a.output_dim || b.probe_dim != a.probe_dim)
      throw differs("input / output widths or probes");
    if (b.contact.capacity != a.contact.capacity) throw differs("contact capacity");
    if (b.history() != a.history()) throw differs("history");
  }
}

}  // namespace flashnerd
