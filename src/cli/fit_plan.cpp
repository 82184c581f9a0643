#include "cli/fit_plan.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace flashnerd::cli {

void FitPlan::complete(bool floating_base, int trajectory_steps, unsigned cores) {
  if (data.train_trajectories == 0) data.train_trajectories = floating_base ? 20000 : 8000;
  if (data.steps == 0) data.steps = trajectory_steps;
  if (!data.policy.empty() && data.policy_trajectories == 0)
    data.policy_trajectories = std::max<int64_t>(1, data.train_trajectories / 4);
  if (horizons.empty())
    horizons = floating_base ? std::vector<int64_t>{1, 15, 50, 100, 200} : std::vector<int64_t>{1, 15, 100, 200};
  if (jobs == 0) jobs = std::max(1, std::min(members, int(std::max(1u, cores))));
  if (workers == 0) {
    workers = std::max(1, int(std::max(1u, cores)) / jobs);
    while (training.batch % workers != 0) --workers;  // each worker takes an equal slice of a batch
  }
  if (budget_seconds == 0 && windows == 0) budget_seconds = 30 * 60;
}

int64_t FitPlan::max_horizon() const { return *std::max_element(horizons.begin(), horizons.end()); }

std::vector<int64_t> FitPlan::check_horizons() const {
  std::vector<int64_t> h;
  for (int64_t x : horizons)
    if (x <= 100) h.push_back(x);
  return h;
}

nlohmann::json to_json(const FitPlan& p) {
  return {{"format", "flashnerd-fit"},
          {"version", 1},
          {"robot", p.robot},
          {"task", p.task},
          {"init_from", p.init_from},
          {"members", p.members},
          {"jobs", p.jobs},
          {"workers", p.workers},
          {"seed", p.seed},
          {"data",
           {{"train_trajectories", p.data.train_trajectories},
            {"steps", p.data.steps},
            {"test_trajectories", p.data.test_trajectories},
            {"check_trajectories", p.data.check_trajectories},
            {"contacts", p.data.contacts},
            {"climbing_probes", p.data.climbing_probes},
            {"policy", p.data.policy},
            {"policy_trajectories", p.data.policy_trajectories}}},
          {"training",
           {{"arch", arch_name(p.training.arch)},
            {"preset", preset_name(p.training.preset)},
            {"batch", p.training.batch},
            {"lr", p.training.lr},
            {"precision", train::training_precision_name(p.training.precision)},
            {"patience", p.training.patience},
            {"valid_every", p.training.valid_every},
            {"variable_contacts", p.training.variable_contacts}}},
          {"budget_seconds", p.budget_seconds},
          {"windows", p.windows},
          {"horizons", p.horizons}};
}

FitPlan fit_plan_from_json(const nlohmann::json& j, const std::string& origin) {
  FN_CHECK(j.value("format", "") == "flashnerd-fit" && j.value("version", 0) == 1, origin,
           ": not a fit plan (format flashnerd-fit, version 1)");
  FitPlan p;
  try {
    p.robot = j.at("robot").get<std::string>();
    p.task = j.at("task").get<std::string>();
    p.init_from = j.at("init_from").get<std::string>();
    p.members = j.at("members").get<int>();
    p.jobs = j.at("jobs").get<int>();
    p.workers = j.value("workers", 1);  // plans written before fit trained data-parallel members
    p.seed = j.at("seed").get<uint64_t>();
    const auto& d = j.at("data");
    p.data.train_trajectories = d.at("train_trajectories").get<int64_t>();
    p.data.steps = d.at("steps").get<int>();
    p.data.test_trajectories = d.at("test_trajectories").get<int64_t>();
    p.data.check_trajectories = d.at("check_trajectories").get<int64_t>();
    p.data.contacts = d.at("contacts").get<bool>();
    p.data.climbing_probes = d.value("climbing_probes", false);
    p.data.policy = d.at("policy").get<std::string>();
    p.data.policy_trajectories = d.at("policy_trajectories").get<int64_t>();
    const auto& t = j.at("training");
    p.training.arch = parse_arch(t.at("arch").get<std::string>());
    p.training.preset = parse_enum(kModelPresetNames, t.at("preset").get<std::string>(), "training.preset");
    p.training.batch = t.at("batch").get<int>();
    p.training.lr = t.at("lr").get<double>();
    p.training.precision =
        parse_enum(train::kTrainingPrecisionNames, t.at("precision").get<std::string>(), "training.precision");
    p.training.patience = t.at("patience").get<int>();
    p.training.valid_every = t.at("valid_every").get<int>();
    p.training.variable_contacts = t.at("variable_contacts").get<bool>();
    p.budget_seconds = j.at("budget_seconds").get<double>();
    p.windows = j.at("windows").get<int64_t>();
    p.horizons = j.at("horizons").get<std::vector<int64_t>>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(str_cat(origin, ": ", e.what()));
  } catch (const Error& e) {  // a name outside its table
    throw Error(str_cat(origin, ": ", e.what()));
  }
  FN_CHECK(p.members >= 1 && p.members <= 16, origin, ": members must be in [1, 16], got ", p.members);
  FN_CHECK(p.jobs >= 1 && p.workers >= 1, origin, ": jobs and workers must be at least 1, got ", p.jobs, " and ",
           p.workers);
  FN_CHECK(p.training.batch % p.workers == 0, origin, ": training.batch ", p.training.batch,
           " must be divisible by the ", p.workers, " workers");
  FN_CHECK(p.data.train_trajectories > 0 && p.data.steps > 0 && p.data.test_trajectories > 0 &&
               p.data.check_trajectories > 0,
           origin, ": data.train_trajectories, steps, test_trajectories and check_trajectories must be positive");
  FN_CHECK(p.training.batch > 0 && p.training.lr > 0, origin, ": training.batch and lr must be positive");
  FN_CHECK((p.budget_seconds > 0) != (p.windows > 0), origin, ": give exactly one of budget_seconds and windows");
  FN_CHECK(!p.horizons.empty() && *std::min_element(p.horizons.begin(), p.horizons.end()) >= 1, origin,
           ": horizons must be positive");
  return p;
}

double parse_duration(const std::string& text) {
  double total = 0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    FN_CHECK(j > i && j < text.size(), "--budget: expected a duration such as 20m, 1h30m or 90s, got '", text, "'");
    const double value = std::stod(text.substr(i, j - i));
    const char unit = text[j];
    FN_CHECK(unit == 'h' || unit == 'm' || unit == 's', "--budget: unit '", unit, "' in '", text,
             "' is not h, m or s");
    total += value * (unit == 'h' ? 3600 : unit == 'm' ? 60 : 1);
    any = true;
    i = j + 1;
  }
  FN_CHECK(any && total > 0, "--budget: expected a positive duration such as 20m, 1h30m or 90s, got '", text, "'");
  return total;
}

}  // namespace flashnerd::cli
