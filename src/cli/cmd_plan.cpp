// flashnerd plan: closed-loop DIAL-MPC trials (paper IV-C). The planner rolls its samples out
// on MuJoCo or on a trained artifact (contacts or probes re-detected by MuJoCo at every
// predicted state); the "real" robot is always MuJoCo. Tasks: climb (quadruped_platform onto
// a terrain of the list) and swingup (cartpole). Prints success, the median planning time per
// decision split into model, contact detection and planner overhead, and what the model
// read; --out keeps the whole trial (states, commands, timings) for plan-video and scripts.
#include <cmath>
#include <filesystem>
#include <optional>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/output_policy.h"
#include "core/progress.h"
#include "env/factory.h"
#include "env/mujoco_backend.h"
#include "mpc/cartpole_swingup_task.h"
#include "mpc/climb_task.h"
#include "mpc/plan_divergence.h"
#include "mpc/terrains.h"
#include "mpc/trial.h"

namespace flashnerd::cli {

namespace {

enum class PlanTaskKind { Climb, Swingup };
constexpr EnumName<PlanTaskKind> kPlanTaskNames[] = {{PlanTaskKind::Climb, "climb"},
                                                    {PlanTaskKind::Swingup, "swingup"}};

struct PlanArgs {
  CommonOptions common;
  ThreadOptions threads;
  PlanTaskKind task = PlanTaskKind::Climb;
  env::BackendKind backend = env::BackendKind::Mujoco;
  std::string model;
  engine::Precision precision = engine::Precision::FP32;
  bool allow_other_mjcf = false;
  std::string terrains;
  int terrain = 3;
  bool terrain_given = false;  // --terrain or --terrains on the command line
  int frames = 100;
  double action_scale = 0.8;
  mpc::DialOptions dial;
  std::string out;
  bool overwrite = false;
  bool progress = true;
  bool diagnose = false;
  double diagnose_gap = 0.05;  // m of base position between the model's plan and MuJoCo's
};

nlohmann::json trial_json(const PlanArgs& a, const mpc::TrialResult& r, const mpc::PlanTask& task,
                          const mpc::Terrain* terrain, const sim::Robot& robot) {
  const mpc::PlannerTimings& t = r.timings;
  const double decisions = std::max<int64_t>(1, t.decisions);
  const double steps = std::max<int64_t>(1, t.rollout_steps);
  nlohmann::json terms;
  for (size_t i = 0; i < r.term_sums.size(); ++i) terms[task.reward_terms()[i].name] = r.term_sums[i];
  nlohmann::json j = {
      {"task", enum_name(kPlanTaskNames, a.task)}, {"robot", robot.name()},
      {"backend", env::backend_kind_name(a.backend)}, {"model", a.model}, {"frames", r.frames},
      {"success", r.success}, {"success_frame", r.success_frame}, {"world_failed", r.world_failed},
      {"median_decision_ms", 1e3 * mpc::median_seconds(r.decision_seconds)},
      {"first_decision_ms", r.decision_seconds.empty() ? 0.0 : 1e3 * r.decision_seconds.front()},
      {"model_ms_per_decision", 1e3 * t.model_seconds / decisions},
      {"contact_detection_ms_per_decision", 1e3 * t.sensing_seconds / decisions},
      {"planner_overhead_ms_per_decision", 1e3 * t.overhead_seconds() / decisions},
      {"rollout_steps", t.rollout_steps},
      {"rollout_steps_per_second", t.total_seconds > 0 ? double(t.rollout_steps) / t.total_seconds : 0.0},
      {"contact_rows_per_step", double(t.contact_rows) / steps},
      {"contact_rows_max", t.max_contact_rows}, {"contact_capacity", t.contact_capacity},
      {"contact_rows_dropped", t.contact_rows_dropped},
      {"active_probes_per_step", double(t.active_probes) / steps}, {"reward_terms", terms},
      {"dial",
       {{"samples", a.dial.samples}, {"horizon", a.dial.horizon}, {"knots", a.dial.knots},
        {"iterations", a.dial.iterations}, {"first_iterations", a.dial.first_iterations},
        {"sigma0", a.dial.sigma0}, {"horizon_diffuse_factor", a.dial.horizon_diffuse_factor},
        {"trajectory_diffuse_factor", a.dial.trajectory_diffuse_factor}, {"temperature", a.dial.temperature},
        {"seed", a.dial.seed}}},
  };
  if (a.dial.risk_penalty > 0) j["dial"]["risk_penalty"] = a.dial.risk_penalty;
  const int nq = robot.layout().nq;
  const double* last = r.qpos.data() + size_t(r.frames) * size_t(nq);
  if (terrain) {
    j["terrain"] = {{"index", a.terrain}, {"name", terrain->name}, {"height", terrain->platform.height},
                    {"distance", terrain->platform.distance}};
    j["final_base"] = {{"past_edge", last[0] - terrain->platform.distance},
                       {"above_top", last[2] - terrain->platform.height},
                       {"up_z", mpc::up_z(last + 3)}};
  } else {
    j["final_qpos"] = std::vector<double>(last, last + nq);
  }
  return j;
}

// The plan-divergence diagnosis (mpc/plan_divergence.h) in brief for the summary; with the
// whole trial (--out) also its per-decision arrays. Distances in m for a floating base.
nlohmann::json diagnosis_json(const mpc::PlanDivergence& d, const mpc::Terrain* terrain, const sim::Robot& robot,
                              double gap, bool arrays) {
  const int H = d.horizon;
  double one_step = 0, one_step_max = 0, at_horizon = 0;
  for (int k = 0; k < d.decisions; ++k) {
    one_step += d.one_step_error[size_t(k)] * d.one_step_error[size_t(k)];
    one_step_max = std::max(one_step_max, d.one_step_error[size_t(k)]);
    at_horizon += d.gap[size_t(k) * size_t(H) + size_t(H - 1)];
  }
  const double n = std::max(1, d.decisions);
  // a floating base's position in m; a fixed robot's whole qpos
  nlohmann::json j = {{"gap_threshold", gap},
                      {"one_step_rmse", std::sqrt(one_step / n)},
                      {"one_step_max", one_step_max},
                      {"plan_gap_at_horizon_mean", at_horizon / n}};
  if (d.first_decision >= 0) {
    const double* q = d.first_qpos.data();
    nlohmann::json first = {{"decision", d.first_decision}, {"step", d.first_step}, {"up_z", mpc::up_z(q + 3)}};
    if (terrain) {
      first["base_past_edge"] = q[0] - terrain->platform.distance;
      first["base_above_surface"] = q[2] - sim::surface_height(terrain->platform, q[0]);
      nlohmann::json touching = nlohmann::json::array();
      for (const sim::PlatformOverlap& t : sim::platform_contacts(robot, terrain->platform, q))
        touching.push_back({{"geom", t.geom}, {"depth", t.depth}});
      first["touching_platform"] = touching;
    }
    j["first_divergence"] = first;
  }
  if (arrays) {
    j["one_step_error"] = d.one_step_error;
    j["plan_gap"] = d.gap;
    j["position_dims"] = d.dims;
    j["plan_model_position"] = d.model_position;
    j["plan_mujoco_position"] = d.mujoco_position;
  }
  return j;
}

void run_plan(const PlanArgs& a) {
  mpc::validate(a.dial);
  FN_CHECK(a.backend != env::BackendKind::Mujoco || a.model.empty(), "--model ", a.model,
           " is not used by --backend mujoco; drop it, or plan with --backend flashnerd / nerd");
  FN_CHECK(!a.diagnose || a.backend != env::BackendKind::Mujoco,
           "--diagnose compares a learned planning model's plans with MuJoCo; plan with --backend flashnerd / nerd");
  FN_CHECK(a.task == PlanTaskKind::Climb || !a.terrain_given,
           "--terrain / --terrains belong to --task climb; swingup has no terrain");
  std::optional<OutputLock> lock;
  if (!a.out.empty()) {
    check_output_not_input(a.out, "--out", {{"--terrains", a.terrains}, {"--model", a.model}});
    check_output_file(a.out, "--out", a.overwrite);
    lock.emplace(a.out, "--out");
  }
  std::optional<mpc::TerrainList> terrains;
  const mpc::Terrain* terrain = nullptr;
  if (a.task == PlanTaskKind::Climb) {
    terrains = mpc::load_terrains(a.terrains.empty() ? mpc::default_terrains_path() : a.terrains);
    FN_CHECK(a.terrain >= 0 && a.terrain < int(terrains->terrains.size()), "--terrain ", a.terrain,
             " is not in the list (", terrains->terrains.size(), " terrains, 0-based)");
    terrain = &terrains->terrains[size_t(a.terrain)];
  }
  auto robot = sim::Robot::load(a.task == PlanTaskKind::Climb ? terrains->robot : "cartpole");
  ThreadPool pool(checked_threads(a.threads.threads, a.threads.force_threads));

  env::BackendRequest request;
  request.kind = a.backend;
  request.model_dir = a.model;
  request.allow_other_mjcf = a.allow_other_mjcf;
  request.envs = mpc::Planner::backend_envs(a.dial);
  request.gemm = engine::GemmBackend::RowInvariant;
  if (a.backend != env::BackendKind::Mujoco) request.model_options = model_options(a.precision);
  std::vector<std::string> warnings;
  std::unique_ptr<env::Backend> planning = env::make_backend(request, robot, pool, &warnings);
  print_warnings(warnings);
  env::MujocoBackend world(robot, 1, pool);

  std::unique_ptr<mpc::PlanTask> task;
  mpc::SuccessRule rule;
  std::vector<double> q0 = robot->nominal_qpos(), v0(size_t(robot->layout().nv), 0.0);
  if (terrain) {
    mpc::ClimbOptions co;
    co.action_scale = a.action_scale;
    auto climb = std::make_unique<mpc::ClimbTask>(*robot, co);
    mpc::check_start_clear(*robot, *terrain, q0.data());
    climb->set_platform(terrain->platform);
    env::platform_scene(*planning).set_platform(terrain->platform);
    world.set_platform(terrain->platform);
    const mpc::ClimbTask* c = climb.get();
    rule.frame_ok = [c](const double* q) { return c->climbed(q); };
    rule.frames_in_a_row = co.success_frames;
    task = std::move(climb);
  } else {
    task = std::make_unique<mpc::CartpoleSwingupTask>(*robot);
    q0 = {0.0, M_PI};  // hanging
    // swung up: the pole within 18° of upright for one second
    rule.frame_ok = [](const double* q) { return std::cos(q[1]) > 0.95; };
    rule.frames_in_a_row = int(std::lround(1.0 / robot->control_timestep()));
  }
  mpc::Planner planner(*planning, *task, a.dial, pool);
  ProgressLine progress(str_cat("plan ", enum_name(kPlanTaskNames, a.task), " (", env::backend_kind_name(a.backend), ")"), a.frames, "decisions", a.progress);
  mpc::TrialResult r = run_trial(planner, world, *task, q0.data(), v0.data(), a.frames, a.dial.seed, rule,
                                 [&](int f) { progress.update(f + 1); });
  progress.finish(r.success ? str_cat("climbed at frame ", r.success_frame) : "");

  nlohmann::json summary = trial_json(a, r, *task, terrain, *robot);
  std::optional<mpc::PlanDivergence> divergence;
  if (a.diagnose) {
    env::MujocoBackend reference(robot, planning->envs(), pool);
    if (terrain) reference.set_platform(terrain->platform);
    divergence = mpc::measure_plan_divergence(*planning, reference, r, a.dial.horizon, robot->floating_base(),
                                              a.diagnose_gap);
    summary["diagnosis"] = diagnosis_json(*divergence, terrain, *robot, a.diagnose_gap, false);
  }
  if (!a.out.empty()) {
    nlohmann::json full = summary;
    if (divergence) full["diagnosis"] = diagnosis_json(*divergence, terrain, *robot, a.diagnose_gap, true);
    full["qpos"] = r.qpos;
    full["ctrl"] = r.ctrl;
    full["decision_seconds"] = r.decision_seconds;
    full["plan_returns"] = r.plan_returns;
    full["nq"] = robot->layout().nq;
    full["control_timestep"] = robot->control_timestep();
    write_file_atomic(a.out, full.dump(1));
    summary["out"] = a.out;
  }
  print_summary(a.common, "plan", summary);
}

}  // namespace

void register_plan(CLI::App& app) {
  Command<PlanArgs> c = add_command<PlanArgs>(
      app, "plan", "Closed-loop DIAL-MPC trials in MuJoCo, planning with MuJoCo or a trained model", run_plan);
  CLI::App& sub = c.sub;
  PlanArgs& a = c.args;
  add_enum_option(sub, "--task", a.task, names_of(kPlanTaskNames),
                  "climb (quadruped_platform onto a terrain) or swingup (cartpole)");
  add_enum_option(sub, "--backend", a.backend,
                  names_of({env::BackendKind::Mujoco, env::BackendKind::FlashNeRD, env::BackendKind::NeRD},
                           env::backend_kind_name),
                  "Planning dynamics: mujoco, flashnerd or nerd");
  sub.add_option("--model", a.model, "Trained artifact for --backend flashnerd / nerd");
  add_precision_option(sub, a.precision);
  sub.add_flag("--allow-other-mjcf", a.allow_other_mjcf, "Plan with a model trained on another MJCF of the robot");
  const auto terrain_given = [&a](const std::string&) { a.terrain_given = true; };
  sub.add_option("--terrains", a.terrains, "Terrain list (default: robots/terrains/climb.json)")->each(terrain_given);
  sub.add_option("--terrain", a.terrain, "Index of the terrain in the list (0-based)")->check(at_least(0))
      ->each(terrain_given)->capture_default_str();
  sub.add_option("--frames", a.frames, "Control frames of the trial")->check(at_least(1))->capture_default_str();
  sub.add_option("--action-scale", a.action_scale, "climb: rad of joint target per action unit")->capture_default_str();
  sub.add_option("--samples", a.dial.samples, "Rollouts per iteration, the current plan among them")->capture_default_str();
  sub.add_option("--horizon", a.dial.horizon, "Control steps per rollout")->capture_default_str();
  sub.add_option("--knots", a.dial.knots, "Spline knots over the horizon")->capture_default_str();
  sub.add_option("--iterations", a.dial.iterations, "Annealing iterations per decision")->capture_default_str();
  sub.add_option("--first-iterations", a.dial.first_iterations, "Annealing iterations at the first decision")
      ->capture_default_str();
  sub.add_option("--sigma0", a.dial.sigma0, "Noise at the last knot of the first iteration (action units)")
      ->capture_default_str();
  sub.add_option("--horizon-diffuse-factor", a.dial.horizon_diffuse_factor, "Noise factor per knot nearer now")
      ->capture_default_str();
  sub.add_option("--trajectory-diffuse-factor", a.dial.trajectory_diffuse_factor, "Noise factor per iteration")
      ->capture_default_str();
  sub.add_option("--temperature", a.dial.temperature, "Softmax temperature on standardized returns")
      ->capture_default_str();
  sub.add_option("--seed", a.dial.seed, "Seed of the planner's sampling")->capture_default_str();
  sub.add_option("--risk-penalty", a.dial.risk_penalty,
                 "Per step, subtract this x the ensemble's disagreement from a sample's reward (an ensemble --model)")
      ->capture_default_str();
  sub.add_option("--out", a.out, "Write the whole trial as JSON (states, commands, timings)");
  sub.add_flag("--overwrite", a.overwrite, "Replace an existing --out");
  sub.add_flag("--diagnose", a.diagnose,
               "After the trial, roll every decision's plan out on the model and on MuJoCo from the executed state: "
               "where the plans part from MuJoCo (a learned --backend)");
  sub.add_option("--diagnose-gap", a.diagnose_gap,
                 "--diagnose: gap that counts as parting (m of base position; a fixed robot's qpos distance)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  add_quiet_flag(sub, a.progress);
}

}  // namespace flashnerd::cli
