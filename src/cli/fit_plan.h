// What `flashnerd fit` will do, as the user can read and change it: fit.json in the run's
// directory. Written once from the flags and the robot (defaults derived from its MJCF and
// spec); every later invocation on the directory continues with the recorded plan, and a flag
// that disagrees with it is refused by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model_config.h"
#include "train/precision.h"

namespace flashnerd::cli {

struct FitData {
  int64_t train_trajectories = 0;  // 0: from the robot (8 000 fixed base, 20 000 floating)
  int steps = 0;                   // 0: the robot's trajectory length
  int64_t test_trajectories = 256;
  int64_t check_trajectories = 32;
  bool contacts = false;           // record contact rows (variable-contact models)
  bool climbing_probes = false;    // the robot's climbing probe set instead of its foot probes
  std::string policy;              // on-policy data: a policy whose MuJoCo trajectories join the training data
  int64_t policy_trajectories = 0;  // 0: a quarter of train_trajectories
};

struct FitTraining {
  Arch arch = Arch::FlashNeRD;
  ModelPreset preset = ModelPreset::Small;
  int batch = 256;
  double lr = 1e-3;
  train::TrainingPrecision precision = train::TrainingPrecision::Auto;
  int patience = 8;     // validations without a lower validation loss before a member stops (a third of a run)
  int valid_every = 0;  // 0: a 25th of the updates, at least 50
  bool variable_contacts = false;
};

struct FitPlan {
  std::string robot;  // a built-in robot, a robot spec (.json) or an MJCF, as given
  std::string task;   // the task policies will learn on the model (named in the summary)
  std::string init_from;
  int members = 4;
  int jobs = 0;  // members trained at once; 0: one per core
  int workers = 0;  // data-parallel processes per member; 0: the cores the jobs leave (one member on 2 cores: 2)
  uint64_t seed = 1;
  FitData data;
  FitTraining training;
  double budget_seconds = 0;  // the whole fit's wall time; or
  int64_t windows = 0;        // windows per member
  std::vector<int64_t> horizons;  // empty: from the robot (1,15,100,200; floating base 1,15,50,100,200)

  // Fills what the user left open from the robot; `floating_base`, `trajectory_steps`: its own.
  void complete(bool floating_base, int trajectory_steps, unsigned cores);
  int64_t max_horizon() const;
  int test_steps() const { return int(max_horizon()) + 20; }
  std::vector<int64_t> check_horizons() const;  // the horizons up to 100
};

nlohmann::json to_json(const FitPlan& p);
FitPlan fit_plan_from_json(const nlohmann::json& j, const std::string& origin);

// "20m", "1h30m", "90s", "2h": seconds; throws naming --budget on anything else.
double parse_duration(const std::string& text);

}  // namespace flashnerd::cli
