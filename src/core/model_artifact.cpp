#include "core/model_artifact.h"

#include <filesystem>
#include <map>
#include <set>

#include "core/atomic_file.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/fnv1a.h"
#include "core/output_policy.h"

namespace flashnerd {

ModelConfig parse_model_config(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(path, ": not valid JSON (corrupted or truncated?): ", e.what()));
  }
  ModelConfig c;
  try {
    c = j.get<ModelConfig>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(path, ": missing or malformed field: ", e.what()));
  } catch (const Error& e) {  // from_json names the field ("field 'robot.timestep' is missing")
    throw Error(str_cat(path, ": ", e.what(), "; retrain the model or restore the file"));
  }
  try {
    c.validate();
  } catch (const Error& e) {  // validate() names the field, not the file
    throw Error(str_cat(path, ": ", e.what()));
  }
  return c;
}

ModelConfig load_model_config(const std::string& dir) {
  check_path_examinable(dir, "model");
  FN_CHECK(!std::filesystem::exists(dir) || std::filesystem::is_directory(dir), "model ", dir,
           " is a file; a model is a directory (config.json, weights.safetensors) written by 'flashnerd train'");
  FN_CHECK(std::filesystem::is_directory(dir), "model directory ", dir,
           " does not exist; give the output directory of 'flashnerd train'");
  if (is_ensemble_dir(dir)) return load_model_config(model_member_dirs(dir).front());  // members share it
  const std::string path = dir + "/config.json";
  FN_CHECK(std::filesystem::exists(path), dir, " is not a model directory (no config.json); train one with "
           "'flashnerd train', or give a shipped model (models/<name>)");
  return parse_model_config(read_file(path), path);
}

ModelArtifact ModelArtifact::load(const std::string& dir) {
  FN_CHECK(!is_ensemble_dir(dir), dir, " is an ensemble of ", model_member_dirs(dir).size(),
           " models: load its members (", model_member_dirs(dir).front(), ", ...) one by one");
  ModelArtifact a{load_model_config(dir), SafetensorsFile::load(dir + "/weights.safetensors")};
  const std::vector<TensorSpec> specs = model_tensors(a.config);
  std::set<std::string> used;
  for (const auto& spec : specs) {
    a.weights.get(spec.name, spec.shape);
    used.insert(spec.name);
  }
  // a tensor the config does not name would be dropped silently (a version-2 NeRD relabelled 1)
  std::vector<std::string> unused;
  for (const auto& name : a.weights.names())
    if (!used.count(name)) unused.push_back(name);
  if (!unused.empty()) {
    std::string list;
    for (size_t i = 0; i < unused.size() && i < 8; ++i) list += (i ? ", " : "") + unused[i];
    if (unused.size() > 8) list += str_cat(", ... (", unused.size(), " in all)");
    throw Error(str_cat(dir, ": config.json and weights.safetensors disagree: the weights hold ", unused.size(),
                        " tensor(s) that the ", arch_name(a.config.arch), " config does not use (", list,
                        "), so its version or sizes are not those the weights were trained with; restore the "
                        "config.json written with these weights or retrain the model"));
  }
  return a;
}

void save_model_artifact(const std::string& dir, const ModelConfig& config,
                         const std::vector<NamedTensor>& tensors) {
  config.validate();
  auto specs = model_tensors(config);
  FN_CHECK(specs.size() == tensors.size(), "save_model_artifact: ", tensors.size(),
           " tensors given, the config needs ", specs.size());
  std::map<std::string, const NamedTensor*> by_name;
  for (const auto& t : tensors) by_name[t.name] = &t;
  for (const auto& s : specs) {
    auto it = by_name.find(s.name);
    FN_CHECK(it != by_name.end(), "save_model_artifact: tensor '", s.name, "' is missing");
    FN_CHECK(it->second->shape == s.shape, "save_model_artifact: tensor '", s.name,
             "' has the wrong shape");
  }
  ensure_writable_directory(dir);
  write_file_atomic(dir + "/weights.safetensors",
                    safetensors_serialize(tensors, {{"format", "flashnerd-model"}, {"arch", arch_name(config.arch)}}));
  write_file_atomic(dir + "/config.json", nlohmann::json(config).dump(2) + "\n");
}

std::string model_fingerprint(const std::string& dir) {
  Fnv1a h;
  for (const auto& member : model_member_dirs(dir))
    for (const char* file : {"config.json", "weights.safetensors"}) {
      const std::string bytes = read_file((std::filesystem::path(member) / file).string());
      h.bytes(bytes.data(), bytes.size());
    }
  return "fnv1a64:" + h.hex();
}

}  // namespace flashnerd
