// flashnerd fit's run: the plan settled, then its stages (data, budget, members, evaluation,
// provenance), each a flashnerd subcommand run as a child process and finished when its
// summary exists in the fit's directory (layout: cmd_fit.cpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/child_process.h"
#include "cli/cli_common.h"
#include "cli/fit_plan.h"
#include "sim/robot.h"
#include "train/precision.h"

namespace flashnerd::cli {

struct FitArgs {
  CommonOptions common;
  FitPlan plan;
  std::string mjcf;
  std::string out;
  std::string budget;
  bool progress = true;
  sim::RobotOverrides overrides;
};

// A child's job: its command and the summary (its stdout) that marks it finished.
struct Job {
  std::string label;  // "member_2", "test.h5": how messages and the progress name it
  ChildCommand command;
  std::string summary;
};

class Fit {
 public:
  Fit(const FitArgs& a, const CLI::App& sub);
  void run();

 private:
  FitPlan settle_plan(const CLI::App& sub);
  std::vector<std::string> gen_args(const std::string& which) const;  // train, random, test, check, policy
  std::string at(const std::string& rel) const { return (std::filesystem::path(dir_) / rel).string(); }
  ChildCommand command(std::vector<std::string> args, const std::string& summary, const std::string& log) const;
  // Runs the unfinished jobs, `parallel` at a time; `poll` is called about once a second.
  void run_jobs(const std::string& stage, std::vector<Job> jobs, int parallel,
                const std::function<void()>& poll = [] {});
  void stage_data();
  void stage_budget();
  void stage_members();
  void stage_evaluation();
  void write_provenance();
  void print_result();
  int64_t updates() const;
  int valid_every() const;
  std::string member_dir(int i) const { return plan_.members == 1 ? at("model") : at(str_cat("model/member_", i)); }
  void record_seconds(const std::string& stage, double seconds);

  const FitArgs& args_;
  std::string dir_;
  FitPlan plan_;
  std::chrono::steady_clock::time_point start_;
  nlohmann::json timing_;
};

}  // namespace flashnerd::cli
