// flashnerd gen: task-independent MuJoCo data for a built-in robot or any MJCF.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli/cli_common.h"
#include "cli/env_options.h"
#include "cli/option_values.h"
#include "cli/robot_options.h"
#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/error.h"
#include "core/output_policy.h"
#include "core/thread_pool.h"
#include "env/vec_env.h"
#include "rl/policy_command_recording.h"
#include "sim/contact_rows.h"
#include "sim/generator.h"
#include "sim/recording_report.h"
#include "sim/resumable_generation.h"
#include "sim/robot.h"

namespace flashnerd::cli {

namespace {

struct GenArgs : DatasetOutput {
  CommonOptions common;
  std::string robot;
  std::string mjcf;
  ThreadOptions threads;
  sim::GenerateOptions gen;  // the flags bind to its fields: one default each, the library's
  std::string shard;  // "i/n"
  std::string policy;  // on-policy data: the policy's commands in MuJoCo, replayed
  double policy_noise = 1.0;
  int policy_envs = 256;
  bool resume = false;
  int64_t checkpoint_every = 2048;  // trajectories per block
  sim::RobotOverrides overrides;
};

// gen --policy: the policy acts in MuJoCo on its own task; its start states and commands
// become the plan the generator replays on `robot`.
sim::CommandPlan policy_plan(const GenArgs& a, const sim::Robot& robot, const sim::GenerateOptions& o,
                             ThreadPool& pool) {
  const rl::Policy policy = rl::Policy::load(a.policy);
  EnvOptions eo;
  eo.task = policy.info().task;
  const int envs = int(std::min<int64_t>(a.policy_envs, o.trajectories));
  EnvParts parts = make_env_parts(eo, env::BackendKind::Mujoco, envs, pool);
  FN_CHECK(parts.robot->mjcf_hash() == robot.mjcf_hash() && parts.robot->layout() == robot.layout() &&
               parts.robot->control_timestep() == robot.control_timestep(),
           "--policy: task '", eo.task, "' runs on robot '", parts.robot->name(), "' as built in; the generated "
           "robot '", robot.name(), "' differs (another MJCF, layout or --control-dt)");
  if (!policy.info().mjcf_hash.empty() && policy.info().mjcf_hash != robot.mjcf_hash())
    print_warnings({str_cat("policy ", a.policy, " was trained on MJCF ", policy.info().mjcf_hash, "; robot '",
                            robot.name(), "' is MJCF ", robot.mjcf_hash())});
  env::VecEnv env(*parts.task, *parts.backend, pool, a.gen.seed);
  rl::PolicyRecordingOptions po;
  po.trajectories = o.trajectories;
  po.steps = o.steps > 0 ? o.steps : robot.spec().trajectory_steps;
  po.noise = a.policy_noise;
  po.seed = a.gen.seed;
  sim::CommandPlan plan = rl::record_policy_commands(env, policy, po);
  plan.source["policy"] = a.policy;
  return plan;
}

// --shard i/n: this process makes trajectories [N i / n, N (i+1) / n) of the N-trajectory run.
void apply_shard(const std::string& text, sim::GenerateOptions& o) {
  int i = -1, n = 0;
  char slash = 0, extra = 0;
  FN_CHECK(std::sscanf(text.c_str(), "%d %c %d %c", &i, &slash, &n, &extra) == 3 && slash == '/' && n >= 1 && i >= 0 &&
               i < n,
           "--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '", text, "'");
  FN_CHECK(n <= o.trajectories, "--shard ", text, ": more shards than the ", o.trajectories, " trajectories");
  o.total_trajectories = o.trajectories;
  o.first_trajectory = o.trajectories * i / n;
  o.trajectories = o.trajectories * (i + 1) / n - o.first_trajectory;
  o.shard_index = i;
  o.shard_count = n;
}

// "R of T": recorded out of the model's total
std::string of(int recorded, int total) { return str_cat(recorded, " of ", total); }

void run_gen(const GenArgs& a) {
  const int threads = checked_threads(a.threads.threads, a.threads.force_threads);
  FN_CHECK(a.robot.empty() != a.mjcf.empty(), "give exactly one of --robot NAME or --mjcf PATH");
  FN_CHECK(!(a.resume && a.overwrite), "give one of --resume and --overwrite, not both");
  const auto lock = claim_dataset_output(a, {{"--policy", a.policy}, {"--mjcf", a.mjcf}});  // before generating
  if (a.overwrite) std::filesystem::remove_all(sim::parts_directory(a.out));
  auto robot = sim::Robot::load(a.robot.empty() ? a.mjcf : a.robot, a.overrides);
  sim::GenerateOptions o = a.gen;
  FN_CHECK(a.policy.empty() || a.shard.empty(), "--policy and --shard cannot be combined (a plan is recorded "
           "as a whole; generate smaller files with other --seed and join them with 'flashnerd merge --concat')");
  if (!a.shard.empty()) apply_shard(a.shard, o);
  o.progress = !a.common.json;
  ThreadPool pool(threads);
  sim::CommandPlan plan;
  if (!a.policy.empty()) {
    plan = policy_plan(a, *robot, o, pool);
    o.plan = &plan;
  }
  const int collision_geoms = sim::robot_collision_geoms(*robot);
  // what is and is not recorded, said before minutes of simulation
  sim::RecordingReport report = sim::describe_recording(*robot);
  if (o.contacts && collision_geoms == 0)
    report.warnings.push_back(str_cat("robot '", robot->name(), "' has no collision geometry (every robot geom has "
                                      "contype = conaffinity = 0): its contact rows will all be empty, and a "
                                      "variable-contact model cannot be trained on them"));
  if (!a.common.json) {
    for (const auto& n : report.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    print_warnings(report.warnings);
  }
  sim::GenerateSummary s;
  sim::ResumableOptions ro;
  ro.out = a.out;
  ro.block_trajectories = a.checkpoint_every;
  ro.resume = a.resume;
  ro.progress = o.progress;
  Dataset d = sim::generate_resumable(*robot, o, pool, ro, &s);
  save_dataset(a.out, d);
  std::filesystem::remove_all(sim::parts_directory(a.out));  // the blocks are in the file now
  nlohmann::json j = {{"robot", robot->name()},
                      {"file", a.out}, {"trajectories", d.trajectories},
                      {"shard", a.shard.empty() ? nlohmann::json() : nlohmann::json(a.shard)}, {"steps", d.steps},
                      {"actuator_delay", a.gen.actuator_delay},
                      {"policy", a.policy.empty() ? nlohmann::json() : nlohmann::json(a.policy)},
                      {"transitions", s.transitions}, {"valid_fraction", s.valid_fraction},
                      {"contacts_min", s.contacts_min}, {"contacts_mean", s.contacts_mean},
                      {"contacts_max", s.contacts_max}, {"contact_overflow", s.overflow_total},
                      {"robot_collision_geoms", collision_geoms}, {"actuator_model", robot->spec().actuator_model},
                      {"bodies_recorded", of(report.bodies, report.bodies_total)},
                      {"qpos_recorded", of(report.nq, report.nq_total)},
                      {"dofs_recorded", of(report.nv, report.nv_total)},
                      {"actuators_recorded", of(report.actuators, report.actuators_total)},
                      {"activations_recorded", of(report.activations_recorded, report.activations_total)},
                      {"equality_constraints_on_robot", of(report.equalities, report.equalities_total)},
                      {"warnings", a.common.json ? nlohmann::json(report.warnings)  // printed above for humans
                                                 : nlohmann::json(report.warnings.size())},
                      {"probes", d.probe_count},
                      {"threads", pool.size()},
                      {"seconds", s.seconds},
                      {"transitions_per_second", s.transitions_per_second}};
  print_summary(a.common, "flashnerd gen: " + a.out, j);
}

}  // namespace

void register_gen(CLI::App& app) {
  auto [sub, a] = add_command<GenArgs>(app, "gen", "Generate task-independent MuJoCo transitions (HDF5)", run_gen);
  sub.add_option("--robot", a.robot, "Built-in robot: " + [] {
    std::string s;
    try {
      for (const auto& n : sim::builtin_robot_names()) s += (s.empty() ? "" : ", ") + n;
    } catch (const Error& e) {
      s = str_cat("none (", e.what(), ")");  // the help still shows; a run names the problem
    }
    return s;
  }());
  sub.add_option("--mjcf", a.mjcf, "Any MJCF file (defaults from the model; a NAME.json beside it refines them)");
  add_dataset_output_options(sub, a, "Output HDF5 file (written to a temporary name, then renamed)",
                             "Replace --out if it exists");
  sub.add_flag("--resume", a.resume, "Continue an interrupted run from the blocks it finished (--out.parts/)");
  sub.add_option("--checkpoint-every", a.checkpoint_every,
                 "Trajectories per block: each finished block is saved, so a killed run resumes from it")
      ->check(at_least(1))->capture_default_str();
  sim::GenerateOptions& g = a.gen;
  sub.add_option("--trajectories", g.trajectories, "Number of trajectories")->check(positive())->capture_default_str();
  sub.add_option("--steps", g.steps, "Control steps per trajectory (default: the robot's, usually 100)")
      ->check(positive());
  sub.add_option("--seed", g.seed, "Seed; same seed, same file, whatever --threads")->capture_default_str();
  add_enum_option(sub, "--contacts", g.contacts, on_off(), "Record contact rows");
  add_enum_option(sub, "--probes", g.probes, on_off(), "Record fixed-probe features");
  sub.add_flag("--climbing-probes", g.climbing_probes, "Use the robot's climbing probe set (quadruped)");
  sub.add_flag("--free-dynamics", g.free_dynamics, "Also record qacc_smooth*dt (coupling targets)");
  sub.add_option("--actuator-delay", g.actuator_delay,
                 "Control steps before a command takes effect (a robot with latency; the data records the commands sent)")
      ->capture_default_str();
  sub.add_option("--shard", a.shard,
                 "I/N: generate only shard I of N of the run (--trajectories is the run's total); "
                 "'flashnerd merge' joins the N files into the file one run writes, byte for byte");
  sub.add_option("--policy", a.policy,
                 "On-policy data: run this policy (flashnerd ppo's policy/) in MuJoCo on its task and record "
                 "the states it visits under the commands it sends (windows of --steps, falls kept)");
  sub.add_option("--policy-noise", a.policy_noise, "Action noise of --policy, in units of its action std")
      ->capture_default_str();
  sub.add_option("--policy-envs", a.policy_envs, "Environments the policy runs in at once (--policy)")
      ->check(in_range(1, 1 << 20))->capture_default_str();
  add_robot_override_options(sub, a.overrides);
}

}  // namespace flashnerd::cli
