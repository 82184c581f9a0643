#include "core/model_dataset_check.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace flashnerd {

std::vector<std::string> check_model_dataset(const ModelConfig& model, const std::string& model_dir,
                                             const Dataset& data, const std::string& data_path,
                                             bool allow_other_mjcf) {
  check_dataset_robot(data, model.robot, model.layout, "dataset " + data_path);
  const double scale = std::max(std::abs(model.timestep), std::abs(data.timestep));
  FN_CHECK(std::abs(model.timestep - data.timestep) <= 1e-9 * scale, "model ", model_dir, " steps ",
           model.timestep, " s (robot.timestep in config.json) but dataset ", data_path, " steps ", data.timestep,
           " s (attribute 'timestep'); a model runs only at the control step it was trained on: generate the "
           "data with --control-dt ", model.timestep, ", or train a model on this dataset");
  std::vector<std::string> warnings;
  if (model.mjcf_hash.empty()) {
    warnings.push_back(str_cat("model ", model_dir, " stores no MJCF hash (robot.mjcf_hash in config.json; trained "
                               "by an older flashnerd): cannot check that dataset ", data_path,
                               " comes from the same MJCF; retrain it to record the hash"));
  } else if (model.mjcf_hash != data.mjcf_hash) {
    const std::string what = str_cat("model ", model_dir, " was trained on MJCF ", model.mjcf_hash,
                                     " (robot.mjcf_hash in config.json) but dataset ", data_path,
                                     " was generated from MJCF ", data.mjcf_hash,
                                     " (attribute 'mjcf_hash'): the robot files differ");
    FN_CHECK(allow_other_mjcf, what, "; use data of the model's MJCF, or pass --allow-other-mjcf to run anyway");
    warnings.push_back(what + " (--allow-other-mjcf given)");
  }
  return warnings;
}

}  // namespace flashnerd
