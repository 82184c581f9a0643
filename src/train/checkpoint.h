// Training checkpoints: one torch archive {model, optimizer, meta (a JSON string)}, written
// atomically, so a killed run resumes from its last checkpoint bit for bit. The meta holds
// the format tag and version, the update reached, the model config, the settings that fix
// the run, its wall time and its training log.
#pragma once

#include <torch/torch.h>

#include <string>

#include <nlohmann/json.hpp>

#include "train/models.h"

namespace flashnerd::train {

constexpr const char* kCheckpointFormat = "flashnerd-checkpoint";
constexpr int kCheckpointVersion = 1;

struct Checkpoint {
  nlohmann::json meta;
  std::string bytes;  // the whole archive, read again for model and optimizer state
};

void save_checkpoint(const std::string& path, DynamicsModel& model, torch::optim::Adam& optimizer,
                     const nlohmann::json& meta);

// A checkpoint's bytes (read by rank 0 and broadcast to every rank) parsed; `path` names it in
// errors. Throws when the archive is unreadable or not of this format and version.
Checkpoint parse_checkpoint(std::string bytes, const std::string& path);

// Model weights and optimizer state from a parsed checkpoint; throws naming `path` on a mismatch.
void restore_checkpoint(const Checkpoint& ck, const std::string& path, DynamicsModel& model,
                        torch::optim::Adam& optimizer);

}  // namespace flashnerd::train
