// What a finished fit reports: provenance.json (what models/ ships beside a model) and the
// summary table (rollout NRMSE against horizon for each member, the mean and the start,
// calibration, time per stage, where things are and what to run next).
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "cli/fit_run.h"
#include "core/error.h"
#include "core/json_file.h"
#include "core/progress.h"
#include "engine/cpu/cpu_features.h"
#include "engine/isa.h"

namespace flashnerd::cli {

namespace fs = std::filesystem;

namespace {

// eval's rows: one object per evaluated model (a single model's summary is its only row).
std::vector<nlohmann::json> eval_rows(const nlohmann::json& eval) {
  if (!eval.contains("models")) return {eval};
  return eval.at("models").get<std::vector<nlohmann::json>>();
}

// The row that stands for the fitted model: the members' mean, or the one model.
nlohmann::json fitted_row(const std::vector<nlohmann::json>& rows, const std::string& model_dir) {
  for (const auto& r : rows)
    if (r.at("model").get<std::string>().find(model_dir + " (mean of") == 0) return r;
  for (const auto& r : rows)
    if (r.at("model").get<std::string>() == model_dir) return r;
  throw Error(str_cat("fit: no evaluation of ", model_dir, " in its eval summary"));
}

std::string today() {
  char buf[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%F", std::gmtime(&now));
  return buf;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : " ") + p;
  return s;
}

}  // namespace

void Fit::run() {
  const OutputLock lock(dir_, "out");
  stage_data();
  stage_budget();
  stage_members();
  stage_evaluation();
  write_provenance();
  print_result();
}

void Fit::write_provenance() {
  const std::string model_dir = at("model");
  const nlohmann::json eval = read_json_file(at("eval.json")), check = read_json_file(at("check.json"));
  const std::vector<nlohmann::json> rows = eval_rows(eval);
  const nlohmann::json fitted = fitted_row(rows, model_dir);
  nlohmann::json members = nlohmann::json::array();
  double rate = 0;
  int64_t trained_updates = 0;  // early-stopped members trained fewer than planned
  std::string precision;
  for (int i = 0; i < plan_.members; ++i) {
    const nlohmann::json t = read_json_file(at(str_cat("logs/train_member_", i, ".json")));
    nlohmann::json m = {{"seed", plan_.seed + uint64_t(i)}, {"updates", t.at("updates")},
                        {"valid_loss", t.at("valid_loss")}, {"seconds", t.at("seconds")},
                        {"windows_per_second", t.at("windows_per_second")}};
    for (const auto& r : rows)
      if (r.at("model").get<std::string>() == member_dir(i)) m["rollout_nrmse"] = r.at("nrmse");
    members.push_back(m);
    rate += t.at("windows_per_second").get<double>();
    trained_updates += t.at("updates").get<int64_t>();
    precision = t.value("precision", "");
  }
  const engine::CpuFeatures& cpu = engine::cpu_features();
  const std::string gen_check = join(gen_args("check"));
  const std::vector<std::string> argv = own_command_line();  // the fit command as the user typed it
  nlohmann::json record = {
      {"name", fs::path(dir_).filename().string()},
      {"robot", plan_.robot},
      {"commands",
       {{"fit", "flashnerd " + join(std::vector<std::string>(argv.begin() + 1, argv.end()))},
        {"gen_train", "flashnerd gen --mjcf robot.json " + join(gen_args(plan_.data.policy.empty() ? "train" : "random"))},
        {"gen_test", "flashnerd gen --mjcf robot.json " + join(gen_args("test"))}}},
      {"plan", to_json(plan_)},
      {"trained_on",
       {{"cpu", cpu.model}, {"isa", engine::isa_name(cpu.best)}, {"precision", precision}, {"date", today()}}},
      {"members", plan_.members},
      {"updates", updates()},
      {"batch", plan_.training.batch},
      {"windows", updates() * plan_.training.batch},
      {"windows_total", trained_updates * plan_.training.batch},
      {"windows_per_second", rate},
      {"seconds", fs::exists(at("timing.json")) ? read_json_file(at("timing.json")) : nlohmann::json::object()},
      {"member_training", members},
      {"rollout_nrmse",
       {{"horizons", plan_.horizons}, {"nrmse", fitted.at("nrmse")}, {"trajectories", fitted.at("trajectories")}}},
      // the shipped-models test regenerates this set ({model}: the directory holding robot.json)
      {"check",
       {{"gen", "--mjcf {model}/robot.json " + gen_check},
        {"horizons", plan_.check_horizons()},
        {"nrmse", fitted_row(eval_rows(check), model_dir).at("nrmse")},
        {"relative_tolerance", 0.1}}}};
  if (fs::exists(at("calibrate.json"))) {
    const nlohmann::json c = read_json_file(at("calibrate.json"));
    record["calibration"] = {{"spearman", c.at("spearman")}, {"frames", c.at("frames")}};
  }
  if (!plan_.init_from.empty()) {
    const fs::path parent = fs::path(plan_.init_from) / "provenance.json";
    record["init_from"] = plan_.init_from;
    if (fs::exists(parent)) {
      record["history"] = read_json_file(parent.string());
      const int64_t before = record["history"].value("windows_total", int64_t(0));
      record["windows_total"] = record["windows_total"].get<int64_t>() + before;  // the chain that led here
    }
    for (const auto& r : rows)
      if (r.at("model").get<std::string>().find(plan_.init_from) == 0) record["init_from_rollout_nrmse"] = r.at("nrmse");
  }
  write_json_file(at("provenance.json"), record);
}

void Fit::print_result() {
  const nlohmann::json record = read_json_file(at("provenance.json"));
  const nlohmann::json eval = read_json_file(at("eval.json"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  nlohmann::json summary = {{"model", at("model")},
                            {"members", plan_.members},
                            {"windows_per_member", record.at("windows")},
                            {"horizons", plan_.horizons},
                            {"nrmse", record.at("rollout_nrmse").at("nrmse")},
                            {"seconds", record.at("seconds")},
                            {"this_run_seconds", seconds},
                            {"provenance", at("provenance.json")},
                            {"plots", at("eval")}};
  if (record.contains("calibration")) summary["spearman"] = record.at("calibration").at("spearman");
  if (args_.common.json) {
    std::printf("%s\n", summary.dump().c_str());
    return;
  }
  std::vector<std::string> header = {"model"};
  for (int64_t h : plan_.horizons) header.push_back(str_cat("H=", h));
  std::vector<std::vector<std::string>> table;
  for (const auto& r : eval_rows(eval)) {
    std::string name = r.at("model").get<std::string>();
    if (name.find(dir_) == 0) name = name.substr(dir_.size() + (dir_.back() == '/' ? 0 : 1));
    std::vector<std::string> row = {name};
    for (const auto& v : r.at("nrmse")) row.push_back(v.is_number() ? format_number(v.get<double>()) : "diverged");
    table.push_back(row);
  }
  std::printf("\nflashnerd fit: %s, %d member%s x %lld windows\n", plan_.robot.c_str(), plan_.members,
              plan_.members > 1 ? "s" : "", (long long)record.at("windows").get<int64_t>());
  std::printf("Held-out rollout NRMSE (%lld trajectories, fp32):\n%s",
              (long long)record.at("rollout_nrmse").at("trajectories").get<int64_t>(),
              format_table(header, table).c_str());
  if (record.contains("calibration"))
    std::printf("Calibration: members' disagreement ranks the mean's one-step error with Spearman %.3f\n",
                record.at("calibration").at("spearman").get<double>());
  std::string stages;
  for (const auto& [stage, s] : record.at("seconds").items())
    stages += str_cat(stages.empty() ? "" : ", ", stage, " ", format_duration(s.get<double>()));
  std::printf("Time: %s (this invocation %s)\n", stages.c_str(), format_duration(seconds).c_str());
  std::printf("Model: %s   plots: %s   provenance: %s\n", at("model").c_str(), at("eval").c_str(),
              at("provenance.json").c_str());
  std::printf("Next: flashnerd ppo --task %s --backend flashnerd --model %s%s\n",
              plan_.task.empty() ? "TASK" : plan_.task.c_str(), at("model").c_str(),
              plan_.members > 1 ? " --uncertainty-penalty LAMBDA" : "");
}

}  // namespace flashnerd::cli
