// An ensemble artifact: a directory holding ensemble.json and one complete model artifact per
// member (member_0/, member_1/, ...: config.json + weights.safetensors each). Members are
// independent trainings (their own seeds, splits, data order and normalization) of one
// architecture and preset on one robot; their disagreement marks where the model is wrong.
//   ensemble.json = {"format": "flashnerd-ensemble", "version": 1,
//                    "members": ["member_0", ...]}   (paths relative to the directory)
// A plain model directory reads as an ensemble of one, so every loader takes both.
#pragma once

#include <string>
#include <vector>

#include "core/model_config.h"

namespace flashnerd {

constexpr const char* kEnsembleManifest = "ensemble.json";

// True when dir holds ensemble.json; throws when dir cannot be examined (a symlink loop).
bool is_ensemble_dir(const std::string& dir);

// The member directories of an ensemble (checked: each exists, none twice, at most 64), or
// {dir} for a plain model.
std::vector<std::string> model_member_dirs(const std::string& dir);

// Writes dir/ensemble.json (atomically) naming `members`, relative to dir.
void write_ensemble_manifest(const std::string& dir, const std::vector<std::string>& members);

// Refuses members that cannot step side by side: another robot, state layout, timestep,
// actuator model, architecture, preset, target, widths, probes or contact capacity; names the
// member and the field.
void check_ensemble_members(const std::vector<ModelConfig>& configs, const std::vector<std::string>& dirs);

}  // namespace flashnerd
