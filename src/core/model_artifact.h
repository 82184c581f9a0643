// A model directory: config.json (ModelConfig) + weights.safetensors (model_tensors()).
// Loading checks every tensor's presence and shape against the config and names the
// offending tensor. Written atomically (weights first, config last).
#pragma once

#include <string>
#include <vector>

#include "core/model_config.h"
#include "core/safetensors.h"

namespace flashnerd {

struct ModelArtifact {
  ModelConfig config;
  SafetensorsFile weights;  // all tensors of model_tensors(config), checked

  static ModelArtifact load(const std::string& dir);
};

// Writes config.json and weights.safetensors into dir. `tensors` must match
// model_tensors(config) in names and shapes (checked).
void save_model_artifact(const std::string& dir, const ModelConfig& config,
                         const std::vector<NamedTensor>& tensors);

// Reads and validates only config.json (an ensemble's: its first member's, which every member
// shares but for normalization and training record).
ModelConfig load_model_config(const std::string& dir);
// "fnv1a64:<hex>" over every member's config.json and weights.safetensors: what a run that
// steps the model (a PPO checkpoint) records, so that it is not resumed on other dynamics.
std::string model_fingerprint(const std::string& dir);
// Parses and validates the text of a config.json; `path` names it in errors.
ModelConfig parse_model_config(const std::string& text, const std::string& path);

}  // namespace flashnerd
