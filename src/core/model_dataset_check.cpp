#include "core/model_dataset_check.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd {

std::vector<std::string> check_model_source(const ModelConfig& model, const std::string& model_dir,
                                            const ModelSource& src, bool allow_other_mjcf) {
  const double scale = std::max(std::abs(model.timestep), std::abs(src.timestep));
  FN_CHECK(std::abs(model.timestep - src.timestep) <= 1e-9 * scale, "model ", model_dir, " steps ",
           model.timestep, " s (robot.timestep in config.json) but ", src.what, " steps ", src.timestep,
           " s (", src.timestep_field, "); a model runs only at the control step it was trained on: ",
           src.timestep_fix);
  std::vector<std::string> warnings;
  if (model.mjcf_hash.empty()) {
    warnings.push_back(str_cat("model ", model_dir, " stores no MJCF hash (robot.mjcf_hash in config.json; trained "
                               "by an older flashnerd): cannot check that ", src.what,
                               " comes from the same MJCF; retrain it to record the hash"));
  } else if (model.mjcf_hash != src.mjcf_hash) {
    const std::string what = str_cat("model ", model_dir, " was trained on MJCF ", model.mjcf_hash,
                                     " (robot.mjcf_hash in config.json) but ", src.what, " is MJCF ",
                                     src.mjcf_hash, ": the robot files differ");
    FN_CHECK_OPTION(allow_other_mjcf, "", what, "; use the model's MJCF, or pass ", option_ref("allow_other_mjcf"),
                    " to run anyway");
    warnings.push_back(what + kOtherMjcfAllowed);
  }
  return warnings;
}

std::vector<std::string> check_model_dataset(const ModelConfig& model, const std::string& model_dir,
                                             const Dataset& data, const std::string& data_path,
                                             bool allow_other_mjcf) {
  check_dataset_robot(data, model.robot, model.layout, "dataset " + data_path);
  ModelSource src;
  src.what = "dataset " + data_path;
  src.timestep = data.timestep;
  src.timestep_field = "attribute 'timestep'";
  src.timestep_fix = str_cat("generate the data with a control step of ", model.timestep,
                             " s, or train a model on this dataset");
  src.mjcf_hash = data.mjcf_hash;
  return check_model_source(model, model_dir, src, allow_other_mjcf);
}

}  // namespace flashnerd
