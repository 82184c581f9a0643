// Whether a trained model may be run on a dataset (eval, rollout): the same robot and state
// layout, the same control timestep (a model steps only at the rate it was trained on), and
// the same MJCF (its hash: masses, gains and geometry are not in the layout). Another MJCF is
// refused unless allowed, then reported as a warning; a model that stores no hash (trained
// before flashnerd recorded it) cannot be checked and gets a warning.
#pragma once

#include <string>
#include <vector>

#include "core/dataset.h"
#include "core/model_config.h"

namespace flashnerd {

// The suffix of the warning check_model_source returns when another MJCF was allowed.
constexpr const char* kOtherMjcfAllowed = " (another MJCF allowed)";

// What a model is about to run on: a dataset, or a robot's MJCF in an environment.
struct ModelSource {
  std::string what;            // "dataset d.h5", "robot quadruped (robots/quadruped.xml)"
  double timestep = 0;         // its control step (s)
  std::string timestep_field;  // where that step comes from, for the message
  std::string timestep_fix;    // what the user can do about a mismatch
  std::string mjcf_hash;
};
// Timestep refused on a mismatch; another MJCF refused unless allowed, else a warning.
std::vector<std::string> check_model_source(const ModelConfig& model, const std::string& model_dir,
                                            const ModelSource& src, bool allow_other_mjcf);

// Throws flashnerd::Error naming both values and the fix on a mismatch; returns the warnings
// to show the user (one line each, without a "warning:" prefix).
std::vector<std::string> check_model_dataset(const ModelConfig& model, const std::string& model_dir,
                                             const Dataset& data, const std::string& data_path,
                                             bool allow_other_mjcf);

}  // namespace flashnerd
