#include "cli/fit_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <thread>

#include "core/atomic_file.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/json_file.h"
#include "core/output_policy.h"
#include "core/progress.h"

namespace flashnerd::cli {

namespace fs = std::filesystem;

Fit::Fit(const FitArgs& a, const CLI::App& sub) : args_(a), dir_(a.out), start_(std::chrono::steady_clock::now()) {
  plan_ = settle_plan(sub);
  // what earlier invocations spent per stage: the budget subtracts the data stage's time
  timing_ = fs::exists(at("timing.json")) ? read_json_file(at("timing.json")) : nlohmann::json::object();
}

namespace {

// The flags that set plan fields, as fit.json names them: on a resumed fit each one given must
// agree with the recorded plan.
const std::vector<std::pair<const char*, const char*>> kPlanFlags = {
    {"--robot", "/robot"}, {"--task", "/task"}, {"--init-from", "/init_from"}, {"--members", "/members"},
    {"--jobs", "/jobs"}, {"--workers", "/workers"}, {"--seed", "/seed"}, {"--trajectories", "/data/train_trajectories"},
    {"--steps", "/data/steps"}, {"--test-trajectories", "/data/test_trajectories"}, {"--contacts", "/data/contacts"},
    {"--climbing-probes", "/data/climbing_probes"},
    {"--policy-data", "/data/policy"}, {"--policy-trajectories", "/data/policy_trajectories"},
    {"--arch", "/training/arch"}, {"--preset", "/training/preset"}, {"--batch", "/training/batch"},
    {"--lr", "/training/lr"}, {"--precision", "/training/precision"}, {"--patience", "/training/patience"},
    {"--valid-every", "/training/valid_every"}, {"--variable-contacts", "/training/variable_contacts"},
    {"--windows", "/windows"}, {"--budget", "/budget_seconds"}, {"--horizons", "/horizons"}};

}  // namespace

FitPlan Fit::settle_plan(const CLI::App& sub) {
  const std::string plan_path = at("fit.json");
  FitPlan given = args_.plan;
  if (!args_.mjcf.empty()) given.robot = args_.mjcf;
  if (!args_.budget.empty()) given.budget_seconds = parse_duration(args_.budget);
  if (fs::exists(plan_path)) {  // a fit in progress (or done): its plan rules
    FitPlan recorded = fit_plan_from_json(read_json_file(plan_path), plan_path);
    const nlohmann::json want = to_json(given), have = to_json(recorded);
    for (const auto& [flag, pointer] : kPlanFlags) {
      const bool named = sub.count(flag) > 0 || (std::string(flag) == "--robot" && sub.count("--mjcf") > 0);
      if (!named) continue;
      const nlohmann::json::json_pointer p(pointer);
      FN_CHECK(want.at(p) == have.at(p), flag, " ", want.at(p).dump(), " disagrees with the plan in ", plan_path,
               " (", pointer + 1, " = ", have.at(p).dump(), "); leave the flag out to continue that fit, edit ",
               plan_path, " before its stage runs, or fit into another --out");
    }
    return recorded;
  }
  FN_CHECK(!given.robot.empty(), "give --robot NAME (or a robot spec .json) or --mjcf FILE");
  FN_CHECK(given.budget_seconds == 0 || given.windows == 0, "give one of --budget and --windows, not both");
  auto robot = sim::Robot::load(given.robot, args_.overrides);
  given.complete(robot->floating_base(), robot->spec().trajectory_steps, std::thread::hardware_concurrency());
  if (!given.init_from.empty()) model_member_dirs(given.init_from);  // a bad --init-from fails now
  fs::create_directories(dir_);
  // the robot as gen reads it: sampler ranges, command process and timestep, overrides applied
  write_json_file(at("robot.json"), robot->spec().to_json());
  write_json_file(plan_path, to_json(given));
  return given;
}

ChildCommand Fit::command(std::vector<std::string> args, const std::string& summary, const std::string& log) const {
  ChildCommand c;
  c.args = std::move(args);
  c.args.push_back("--json");
  c.stdout_path = summary + ".tmp";
  c.stderr_path = at("logs/" + log + ".log");
  return c;
}

namespace {

// The last "update N" a train child's progress line reports in its log (0: none yet).
int64_t last_update_in_log(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return 0;
  const std::streamoff size = f.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 4096);
  f.seekg(from);
  std::string tail(size_t(size - from), '\0');
  f.read(tail.data(), size - from);
  static const std::regex update(R"(update (\d+),)");
  int64_t last = 0;
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), update); it != std::sregex_iterator(); ++it)
    last = std::stoll((*it)[1]);
  return last;
}

// Windows per second between update `from` and the last row of a train_log.csv: the rate
// once the first updates' warm-up is over.
double steady_rate(const std::string& csv, int from, int batch) {
  std::ifstream f(csv);
  FN_CHECK(f.good(), "fit: the rate measurement wrote no ", csv);
  std::string line;
  std::getline(f, line);  // header: update,lr,train_loss,valid_loss,valid_rollout_nrmse,seconds
  double t_from = -1, t_last = -1;
  int64_t last = 0;
  while (std::getline(f, line)) {
    const int64_t update = std::stoll(line.substr(0, line.find(',')));
    const double seconds = std::stod(line.substr(line.rfind(',') + 1));
    if (update == from) t_from = seconds;
    last = update;
    t_last = seconds;
  }
  FN_CHECK(t_from >= 0 && t_last > t_from, "fit: ", csv, " holds no timed updates after ", from);
  return double(last - from) * batch / (t_last - t_from);
}

// The last lines of a child's log, for the error that reports its failure.
std::string log_tail(const std::string& path, int lines) {
  std::ifstream f(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(f, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > size_t(lines) ? all.size() - size_t(lines) : 0; i < all.size(); ++i)
    out += "\n  | " + all[i];
  return out;
}

}  // namespace

void Fit::run_jobs(const std::string& stage, std::vector<Job> jobs, int parallel, const std::function<void()>& poll) {
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const Job& j) { return fs::exists(j.summary); }), jobs.end());
  if (jobs.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::pair<const Job*, std::unique_ptr<ChildProcess>>> running;
  size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && int(running.size()) < parallel) {
      running.push_back({&jobs[next], std::make_unique<ChildProcess>(jobs[next].command)});
      ++next;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    for (size_t i = 0; i < running.size();) {
      ChildProcess& child = *running[i].second;
      if (!child.finished()) {
        ++i;
        continue;
      }
      const Job& job = *running[i].first;
      FN_CHECK(child.succeeded(), "fit ", stage, ": ", job.label, " (flashnerd ", job.command.args[0], ") ",
               child.describe(), "; its log ", job.command.stderr_path, " ends:", log_tail(job.command.stderr_path, 8),
               "\nRerun the same fit command to continue from what finished.");
      fs::rename(job.command.stdout_path, job.summary);  // the summary marks the job finished
      running.erase(running.begin() + std::ptrdiff_t(i));
    }
    poll();
  }
  record_seconds(stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

void Fit::record_seconds(const std::string& stage, double seconds) {
  timing_[stage] = timing_.value(stage, 0.0) + seconds;  // a stage resumed in several runs adds up
  write_json_file(at("timing.json"), timing_);
}

std::vector<std::string> Fit::gen_args(const std::string& which) const {
  const FitData& d = plan_.data;
  const bool train = which == "train" || which == "random";
  const int64_t trajectories = which == "test" ? d.test_trajectories : which == "check" ? d.check_trajectories
                                                                      : which == "policy" ? d.policy_trajectories
                                                                                          : d.train_trajectories;
  const int steps = which == "test" ? plan_.test_steps() : which == "check" ? int(plan_.check_horizons().back()) + 20
                                                                            : d.steps;
  const uint64_t seed = plan_.seed + (train ? 0 : which == "test" ? 1 : which == "check" ? 2 : 3);
  std::vector<std::string> a = {"--trajectories", std::to_string(trajectories), "--steps", std::to_string(steps),
                                "--seed", std::to_string(seed), "--contacts", d.contacts ? "on" : "off"};
  if (d.climbing_probes) a.push_back("--climbing-probes");
  if (which == "policy") a.insert(a.end(), {"--policy", d.policy});
  return a;
}

void Fit::stage_data() {
  fs::create_directories(at("data"));
  fs::create_directories(at("logs"));
  const bool policy = !plan_.data.policy.empty();
  std::vector<Job> jobs;
  for (const std::string which : {policy ? "random" : "train", "test", "check", policy ? "policy" : ""}) {
    if (which.empty()) continue;
    const std::string h5 = at("data/" + which + ".h5"), summary = at("data/gen_" + which + ".json");
    if (fs::exists(h5) && !fs::exists(summary)) fs::remove(h5);  // killed between its rename and its summary
    std::vector<std::string> a = {"gen", "--mjcf", at("robot.json"), "--resume", "--out", h5};
    for (const auto& x : gen_args(which)) a.push_back(x);
    jobs.push_back({which + ".h5", command(a, summary, "gen_" + which), summary});
  }
  if (!args_.common.json && args_.progress)
    std::fprintf(stderr, "fit: data: %lld training trajectories of %d steps, %lld held out%s\n",
                 (long long)plan_.data.train_trajectories, plan_.data.steps, (long long)plan_.data.test_trajectories,
                 policy ? str_cat(", ", plan_.data.policy_trajectories, " of policy ", plan_.data.policy).c_str() : "");
  run_jobs("data", jobs, 1);
  if (policy) {
    const std::string summary = at("data/merge.json");
    run_jobs("data", {{"train.h5", command({"merge", "--concat", at("data/random.h5"), at("data/policy.h5"),
                                             "--overwrite", "--out", at("data/train.h5")},
                                            summary, "merge"),
                       summary}},
             1);
  }
}

// --budget: the members' training rate, measured side by side as they will run, turns the
// wall time left after the data into updates per member, once (budget.json), so a resumed fit
// trains exactly as far as the uninterrupted one.
void Fit::stage_budget() {
  if (plan_.windows > 0 || fs::exists(at("budget.json"))) return;
  const FitTraining& t = plan_.training;
  std::vector<Job> probes;
  const int n = std::min(plan_.jobs, plan_.members);
  constexpr int kProbeUpdates = 40, kProbeWarmup = 10;
  for (int i = 0; i < n; ++i) {
    const std::string out = at(str_cat("budget/probe_", i)), summary = at(str_cat("budget/probe_", i, ".json"));
    fs::create_directories(at("budget"));
    std::vector<std::string> a = {"train", "--data", at("data/train.h5"), "--out", out, "--overwrite", "--quiet",
                                  "--arch", arch_name(t.arch), "--preset", preset_name(t.preset),
                                  "--batch", std::to_string(t.batch), "--precision",
                                  train::training_precision_name(t.precision), "--updates", std::to_string(kProbeUpdates),
                                  "--valid-every", "0", "--seed", std::to_string(plan_.seed + uint64_t(i))};
    if (t.variable_contacts) a.push_back("--variable-contacts");
    if (plan_.workers > 1) a.insert(a.end(), {"--workers", std::to_string(plan_.workers)});
    ChildCommand c = command(a, summary, str_cat("budget_probe_", i));
    c.env = {{"OPENBLAS_NUM_THREADS", "1"}};
    probes.push_back({str_cat("probe_", i), c, summary});
  }
  if (!args_.common.json && args_.progress) std::fprintf(stderr, "fit: budget: measuring the training rate\n");
  run_jobs("budget", probes, n);
  double rate = 0;
  for (int i = 0; i < n; ++i) {
    const double r = steady_rate(at(str_cat("budget/probe_", i, "/train_log.csv")), kProbeWarmup, t.batch);
    rate = rate == 0 ? r : std::min(rate, r);
  }
  const double data_seconds = timing_.value("data", 0.0);
  // evaluation and calibration: measured at about 5% of a fit, at least a minute
  const double reserve = std::max(60.0, 0.05 * plan_.budget_seconds);
  const double train_seconds = plan_.budget_seconds - data_seconds - timing_.value("budget", 0.0) - reserve;
  FN_CHECK(train_seconds > 0, "fit --budget ", format_duration(plan_.budget_seconds), " is spent before training: ",
           "data ", format_duration(data_seconds), ", the rate measurement ", format_duration(timing_.value("budget", 0.0)),
           " and the evaluation's reserve ", format_duration(reserve), ". Give a larger --budget");
  const int rounds = (plan_.members + plan_.jobs - 1) / plan_.jobs;
  // validation and checkpoints take about a tenth of a member's time
  const int64_t per_member = int64_t(0.9 * train_seconds / rounds * rate / t.batch);
  FN_CHECK(per_member >= 50, "fit --budget ", format_duration(plan_.budget_seconds), " leaves ",
           format_duration(train_seconds), " for training ", plan_.members, " members at ", format_number(rate),
           " windows/s each: fewer than 50 updates of ", t.batch,
           " windows. Give a larger --budget, fewer --members or less --trajectories");
  write_json_file(at("budget.json"), {{"windows_per_second_per_member", rate}, {"data_seconds", data_seconds},
                                      {"train_seconds", train_seconds}, {"rounds", rounds},
                                      {"updates", per_member}, {"windows", per_member * t.batch}});
  fs::remove_all(at("budget"));
}

int64_t Fit::updates() const {
  if (plan_.windows > 0) return std::max<int64_t>(1, plan_.windows / plan_.training.batch);
  return read_json_file(at("budget.json")).at("updates").get<int64_t>();
}

int Fit::valid_every() const {
  if (plan_.training.valid_every > 0) return plan_.training.valid_every;
  return int(std::min<int64_t>(updates(), std::max<int64_t>(50, updates() / 25)));
}

void Fit::stage_members() {
  const FitTraining& t = plan_.training;
  const int64_t u = updates();
  std::vector<std::string> parents;
  if (!plan_.init_from.empty()) parents = model_member_dirs(plan_.init_from);
  // members side by side share the cores; libtorch keeps one intra-op thread each
  const unsigned blas_threads =
      std::max(1u, std::thread::hardware_concurrency() / unsigned(plan_.jobs * plan_.workers));
  std::vector<Job> jobs;
  std::vector<std::string> names;
  for (int i = 0; i < plan_.members; ++i) {
    const std::string out = member_dir(i), summary = at(str_cat("logs/train_member_", i, ".json"));
    names.push_back(str_cat("member_", i));
    std::vector<std::string> a = {"train", "--data", at("data/train.h5"), "--out", out, "--arch", arch_name(t.arch),
                                  "--preset", preset_name(t.preset), "--batch", std::to_string(t.batch), "--lr",
                                  str_cat(t.lr), "--precision", train::training_precision_name(t.precision), "--updates", std::to_string(u), "--valid-every",
                                  std::to_string(valid_every()), "--patience", std::to_string(t.patience),
                                  "--seed", std::to_string(plan_.seed + uint64_t(i))};
    if (t.variable_contacts) a.push_back("--variable-contacts");
    if (!parents.empty()) a.insert(a.end(), {"--init-from", parents[size_t(i) % parents.size()]});
    if (plan_.workers > 1) a.insert(a.end(), {"--workers", std::to_string(plan_.workers)});
    // a checkpoint continues; a member killed before its first one starts again
    a.push_back(fs::exists(fs::path(out) / "checkpoint.pt") ? "--resume" : "--overwrite");
    ChildCommand c = command(a, summary, str_cat("train_member_", i));
    c.env = {{"OPENBLAS_NUM_THREADS", std::to_string(blas_threads)}};
    jobs.push_back({names.back(), c, summary});
  }
  if (plan_.members > 1) fs::create_directories(at("model"));
  auto done_updates = [&] {
    int64_t done = 0;
    for (const Job& j : jobs) done += fs::exists(j.summary) ? u : std::min(u, last_update_in_log(j.command.stderr_path));
    return done;
  };
  ProgressLine progress(str_cat("fit: train ", plan_.members, plan_.members > 1 ? " members" : " model"),
                        u * plan_.members, "updates", args_.progress && !args_.common.json);
  progress.resume_from(done_updates());
  run_jobs("train", jobs, plan_.jobs, [&] {
    const int64_t done = done_updates();
    if (done < u * plan_.members)  // the last members' exports are waited for without a line each
      progress.update(done, str_cat(plan_.jobs, " at a time, ", u, " updates of ", t.batch, " windows each"));
  });
  progress.finish();
  if (plan_.members > 1) write_ensemble_manifest(at("model"), names);
}

void Fit::stage_evaluation() {
  std::string horizons, check;
  for (int64_t h : plan_.horizons) horizons += str_cat(horizons.empty() ? "" : ",", h);
  for (int64_t h : plan_.check_horizons()) check += str_cat(check.empty() ? "" : ",", h);
  std::vector<std::string> eval = {"eval", "--model", at("model")};
  if (!plan_.init_from.empty()) eval.insert(eval.end(), {"--model", plan_.init_from});  // the start, for comparison
  eval.insert(eval.end(), {"--data", at("data/test.h5"), "--horizons", horizons, "--precision", "fp32", "--plots",
                           at("eval")});
  std::vector<Job> jobs = {
      {"eval", command(eval, at("eval.json"), "eval"), at("eval.json")},
      {"check", command({"eval", "--model", at("model"), "--data", at("data/check.h5"), "--horizons", check,
                         "--precision", "fp32"},
                        at("check.json"), "check"),
       at("check.json")}};
  if (plan_.members > 1)
    jobs.push_back({"calibrate",
                    command({"calibrate", "--model", at("model"), "--data", at("data/test.h5"), "--out",
                             at("calibrate"), "--overwrite"},
                            at("calibrate.json"), "calibrate"),
                    at("calibrate.json")});
  if (!args_.common.json && args_.progress)
    std::fprintf(stderr, "fit: evaluation: rollouts on %lld held-out trajectories%s\n",
                 (long long)plan_.data.test_trajectories, plan_.members > 1 ? ", calibration" : "");
  run_jobs("evaluation", jobs, 1);
}

}  // namespace flashnerd::cli
