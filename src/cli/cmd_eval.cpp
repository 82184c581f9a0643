// flashnerd eval: prefix-averaged rollout NRMSE of one or more models on held-out
// trajectories, per horizon and per channel group, with plots.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "cli/plot_drawing.h"
#include "core/error.h"
#include "core/atomic_file.h"
#include "core/ensemble_manifest.h"
#include "core/model_artifact.h"
#include "core/model_dataset_check.h"
#include "core/plot_spec.h"
#include "core/state_codec.h"
#include "engine/engine.h"
#include "eval/engine_step_model.h"
#include "eval/metrics.h"
#include "eval/one_step.h"
#include "sim/mj_names.h"
#include "sim/robot.h"
#include "sim/scene.h"

namespace flashnerd::cli {

namespace {

struct EvalArgs : ModelDataOptions {
  CommonOptions common;
  std::string horizons = "1,15,100,200";
  int64_t trajectories = 0;
  ThreadOptions threads;
  int batch = 512;
  std::string plots;
  bool by_start = false;
  std::vector<double> input_noise = {0};  // scales of the noise on fed-back states (RolloutOptions)
  uint64_t noise_seed = 1;
};

// The table's "input noise" column: every row carries it, and it is shown only when a
// scale other than 0 was asked for, so the plain table stays as it was.
constexpr size_t kNoiseColumn = 2;

bool asks_for_noise(const EvalArgs& a) {
  return std::any_of(a.input_noise.begin(), a.input_noise.end(), [](double s) { return s > 0; });
}

// Start kind (ground / edge / top) of each trajectory from its platform and first frame.
std::vector<sim::StartKind> start_kinds(const sim::Robot& robot, const Dataset& data,
                                        const std::vector<int64_t>& trajectories) {
  mjModel* m = robot.copy_model();
  std::vector<sim::StartKind> kinds;
  for (int64_t n : trajectories)
    kinds.push_back(sim::classify_start(sim::apply_trajectory_scene(robot, m, data.seed, n), data.q(n, 0)));
  mj_deleteModel(m);
  return kinds;
}

const uint32_t kColors[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd, 0xff7f0e};

// Prefix-averaged NRMSE for every h = 1..H from the per-step NRMSE.
PlotSeries prefix_curve(const std::vector<double>& step_nrmse, const std::string& label, uint32_t rgb) {
  PlotSeries s;
  s.label = label;
  s.rgb = rgb;
  double acc = 0;
  for (size_t h = 0; h < step_nrmse.size(); ++h) {
    acc += step_nrmse[h] * step_nrmse[h];
    s.x.push_back(double(h + 1));
    s.y.push_back(std::sqrt(acc / double(h + 1)));
  }
  return s;
}

// What eval measures: each --model directory, and for an ensemble each member and the
// members' mean, which steps them all.
struct EvalEntry {
  std::string label_dir;  // names it in the table and plots
  std::vector<std::shared_ptr<const engine::Model>> members;
};

std::vector<EvalEntry> eval_entries(const std::vector<std::string>& dirs, const engine::ModelOptions& options) {
  std::vector<EvalEntry> entries;
  for (const auto& dir : dirs) {
    auto members = engine::Model::load_members(dir, options);
    if (members.size() == 1) {
      entries.push_back({dir, members});
      continue;
    }
    const std::vector<std::string> member_dirs = model_member_dirs(dir);
    for (size_t m = 0; m < members.size(); ++m) entries.push_back({member_dirs[m], {members[m]}});
    entries.push_back({str_cat(dir, " (mean of ", members.size(), ")"), members});
  }
  return entries;
}

std::unique_ptr<eval::StepModel> step_model_of(const EvalEntry& e, int batch, ThreadPool& pool) {
  if (e.members.size() == 1) return std::make_unique<eval::EngineStepModel>(e.members[0], batch, &pool);
  return std::make_unique<eval::EnsembleStepModel>(e.members, batch, &pool);
}

// Plots of one rollout's first channels against MuJoCo: the first trajectory no model
// diverged on. Returns the specs written.
std::vector<std::string> channel_plots(const std::string& dir, const Dataset& data,
                                       const std::vector<eval::RolloutResult>& rollouts,
                                       const std::vector<std::string>& labels) {
  std::vector<std::string> files;
  const StateCodec codec(data.layout);
  const auto& r0 = rollouts[0];
  int64_t pick = 0;
  while (pick < r0.trajectories && r0.diverged_at[size_t(pick)] >= 0) ++pick;
  if (pick == r0.trajectories) return files;
  const int64_t n = r0.source[size_t(pick)];
  const int C = codec.channel_dim(), nq = data.layout.nq, nv = data.layout.nv, na = data.layout.na;
  std::vector<double> ch(static_cast<size_t>(C));
  for (int c = 0; c < std::min(C, 4); ++c) {
    std::vector<PlotSeries> series;
    PlotSeries truth;
    truth.label = "MuJoCo";
    truth.rgb = 0x000000;
    for (int h = 0; h < r0.horizon; ++h) {
      codec.channels(data.q(n, r0.start_frame + h), data.v(n, r0.start_frame + h), data.a(n, r0.start_frame + h),
                     ch.data());
      truth.x.push_back(h + 1);
      truth.y.push_back(ch[size_t(c)]);
    }
    series.push_back(truth);
    for (size_t mi = 0; mi < rollouts.size(); ++mi) {
      const auto& r = rollouts[mi];
      if (r.diverged_at[size_t(pick)] >= 0) continue;
      PlotSeries s;
      s.label = labels[mi];
      s.rgb = kColors[mi % 5];
      for (int h = 0; h < r.horizon; ++h) {
        const size_t row = size_t(pick * r.horizon + h);
        codec.channels(r.qpos.data() + row * size_t(nq), r.qvel.data() + row * size_t(nv),
                       na > 0 ? r.act.data() + row * size_t(na) : nullptr, ch.data());
        s.x.push_back(h + 1);
        s.y.push_back(ch[size_t(c)]);
      }
      series.push_back(s);
    }
    PlotOptions pc;
    pc.title = "Trajectory " + std::to_string(n) + ": " + codec.channel_name(c);
    pc.x_label = "step";
    pc.y_label = codec.channel_name(c);
    files.push_back(dir + "/rollout_channel_" + std::to_string(c) + ".plot.json");
    write_plot_spec(files.back(), series, pc);
  }
  return files;
}

// --plots DIR: NRMSE against horizon (overall and by start kind) and one rollout's channels,
// written as specs and drawn. Returns the PNGs drawn.
std::vector<std::string> write_plots(const std::string& dir, const Dataset& data,
                                     const std::vector<PlotSeries>& nrmse_curves,
                                     const std::vector<PlotSeries> (&start_curves)[sim::kStartKinds],
                                     const std::vector<eval::RolloutResult>& rollouts,
                                     const std::vector<std::string>& labels) {
  ensure_writable_directory(dir);
  PlotOptions po;
  po.title = "Rollout NRMSE vs horizon (" + data.robot + ")";
  po.x_label = "horizon H (steps)";
  po.y_label = "prefix-averaged NRMSE";
  po.log_y = true;
  std::vector<std::string> files = {dir + "/nrmse_vs_horizon.plot.json"};
  write_plot_spec(files.back(), nrmse_curves, po);
  for (int k = 0; k < sim::kStartKinds; ++k) {
    if (start_curves[k].empty()) continue;
    const std::string kind = sim::start_kind_name(sim::StartKind(k));
    PlotOptions pk = po;
    pk.title = "Rollout NRMSE vs horizon, " + kind + " starts (" + data.robot + ")";
    files.push_back(dir + "/nrmse_vs_horizon_" + kind + ".plot.json");
    write_plot_spec(files.back(), start_curves[k], pk);
  }
  for (const auto& f : channel_plots(dir, data, rollouts, labels)) files.push_back(f);
  return draw_plots(files);
}

// Names of a floating-base robot's joint coordinates after the free joint (qpos 7..nq−1).
std::vector<std::string> joint_coordinate_names(const sim::Robot& robot) {
  const mjModel* m = robot.model();
  std::vector<std::string> names(size_t(std::max(0, robot.layout().nq - 7)));
  for (int j = 0; j < m->njnt; ++j) {
    const int at = m->jnt_qposadr[j] - robot.qpos_offset() - 7;
    if (at >= 0 && at < int(names.size()) && (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE))
      names[size_t(at)] = sim::object_name(m, mjOBJ_JOINT, j);
  }
  return names;
}

// --by-start: the same rollouts' errors grouped by where each trajectory started (ground,
// edge, top), into the model's JSON, the table and the per-start curves; for a floating base
// also the one-step errors of the base and of every joint (which parts of the body a model
// gets wrong at the edge).
void report_by_start(const sim::Robot& robot, const Dataset& data, const std::vector<int64_t>& eligible,
                     const eval::RolloutResult& rollout, const ModelConfig& cfg, const std::string& label,
                     const std::vector<int>& horizons, const eval::OneStepErrors& one_step, uint32_t color,
                     nlohmann::json& j, std::vector<std::vector<std::string>>& table,
                     std::vector<PlotSeries> (&start_curves)[sim::kStartKinds]) {
  const auto kinds = start_kinds(robot, data, eligible);
  for (int k = 0; k < sim::kStartKinds; ++k) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < kinds.size(); ++i)
      if (int(kinds[i]) == k) rows.push_back(i);
    if (rows.empty()) continue;
    const char* name = sim::start_kind_name(sim::StartKind(k));
    auto part = eval::rollout_errors(data, eval::select_rollouts(rollout, rows, data.layout.nq, data.layout.nv, data.layout.na),
                                     cfg.norm.channel_std, horizons);
    nlohmann::json pn = nlohmann::json::array();
    std::vector<std::string> prow = {label, name, "0", std::to_string(part.trajectories), std::to_string(part.diverged)};
    for (const auto& he : part.horizons) {
      pn.push_back(he.nrmse);
      prow.push_back(format_number(he.nrmse));
    }
    j["by_start"][name] = {{"trajectories", part.trajectories}, {"diverged", part.diverged}, {"nrmse", pn}};
    start_curves[k].push_back(prefix_curve(part.step_nrmse, label, color));
    if (data.layout.floating_base) {
      j["by_start"][name]["one_step_base_rmse_mm"] = one_step.base_rmse_mm(rows);
      const std::vector<double> joints = one_step.joint_rmse(rows);
      const std::vector<std::string> joint_names = joint_coordinate_names(robot);
      for (size_t i = 0; i < joints.size() && i < joint_names.size(); ++i)
        j["by_start"][name]["one_step_joint_rmse"][joint_names[i]] = joints[i];
      prow.push_back(format_number(one_step.base_rmse_mm(rows)));
    }
    table.push_back(prow);
  }
}

// A table row of rollout errors: the model, all starts, the input noise, counts and NRMSE per horizon.
std::vector<std::string> rollout_row(const std::string& label, double noise, const eval::RolloutErrors& e) {
  std::vector<std::string> row = {label, "all", format_number(noise), std::to_string(e.trajectories),
                                  std::to_string(e.diverged)};
  for (const auto& he : e.horizons) row.push_back(format_number(he.nrmse));
  return row;
}

// --input-noise: the rollouts again with noise on every fed-back state, one run per scale (0 is
// the clean rollout already measured), into the model's JSON ("input_noise") and one table row
// per scale above 0.
void report_input_noise(const EvalArgs& a, eval::StepModel& step_model, const Dataset& data,
                        const std::vector<int64_t>& eligible, eval::RolloutOptions options, ThreadPool& pool,
                        const eval::RolloutErrors& clean, const std::vector<double>& channel_std,
                        const std::vector<int>& horizons, const std::string& label, nlohmann::json& j,
                        std::vector<std::vector<std::string>>& table) {
  nlohmann::json by_scale = nlohmann::json::array();
  for (double scale : a.input_noise) {
    eval::RolloutErrors noisy;
    if (scale > 0) {
      options.input_noise = scale;
      options.noise_seed = a.noise_seed;
      noisy = eval::rollout_errors(data, eval::run_rollouts(step_model, data, eligible, options, pool), channel_std,
                                   horizons);
    }
    const eval::RolloutErrors& e = scale > 0 ? noisy : clean;
    nlohmann::json nrmse = nlohmann::json::array();
    for (const auto& he : e.horizons) nrmse.push_back(he.nrmse);
    by_scale.push_back({{"scale", scale}, {"trajectories", e.trajectories}, {"diverged", e.diverged}, {"nrmse", nrmse}});
    if (scale == 0) continue;
    std::vector<std::string> row = rollout_row(label, scale, e);
    if (data.layout.floating_base) row.push_back("");  // one-step errors read no fed-back state
    table.push_back(row);
  }
  j["input_noise"] = {{"seed", a.noise_seed}, {"relative_to", "state component std over the evaluated trajectories"},
                      {"by_scale", by_scale}};
}

// The summary: one JSON object (--json), or the error table with contact-row statistics.
void print_eval_summary(const EvalArgs& a, const Dataset& data, const std::vector<int>& horizons,
                        const nlohmann::json& results, const std::vector<std::vector<std::string>>& table,
                        const std::vector<std::string>& plot_files) {
  if (a.common.json) {
    nlohmann::json out = results.size() == 1 ? results[0] : nlohmann::json{{"horizons", horizons}, {"models", results}};
    out["plots"] = plot_files;
    out["robot"] = data.robot;
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  std::vector<std::string> header = {"model", "starts", "input noise", "trajectories", "diverged"};
  for (int h : horizons) header.push_back("NRMSE@" + std::to_string(h));
  if (data.layout.floating_base) header.push_back("1-step base mm");
  std::vector<std::vector<std::string>> shown = table;
  if (!asks_for_noise(a)) {
    header.erase(header.begin() + kNoiseColumn);
    for (auto& row : shown) row.erase(row.begin() + kNoiseColumn);
  }
  std::printf("\nRollout error on %s (%s)\n%s", a.data.c_str(), data.robot.c_str(), format_table(header, shown).c_str());
  for (const auto& r : results)
    if (r.contains("contact_rows")) {
      const auto& c = r["contact_rows"];
      std::printf("%s: contact rows per predicted step min %lld mean %.2f max %lld, overflow %lld, "
                  "MuJoCo contact list full %lld; time in model %.2f s, in detection %.2f s\n",
                  r["model"].get<std::string>().c_str(), c["min"].get<long long>(), c["mean"].get<double>(),
                  c["max"].get<long long>(), c["overflow"].get<long long>(),
                  c["mujoco_buffer_full_frames"].get<long long>(), r["model_seconds"].get<double>(),
                  r["sensing_seconds"].get<double>());
    }
  for (const auto& p : plot_files) std::printf("plot: %s\n", p.c_str());
}

void run_eval(const EvalArgs& a) {
  FN_CHECK(!a.models.empty(), "give at least one --model DIR");
  const int threads = checked_threads(a.threads.threads, a.threads.force_threads);
  std::vector<int> horizons;
  for (int64_t h : parse_int_list(a.horizons, "--horizons")) {
    FN_CHECK(h >= 1, "--horizons: every horizon must be >= 1, got ", h);
    horizons.push_back(int(h));
  }
  const int H = *std::max_element(horizons.begin(), horizons.end());
  Dataset data = load_dataset(a.data);
  ThreadPool pool(threads);

  nlohmann::json results = nlohmann::json::array();
  std::vector<PlotSeries> nrmse_curves;
  std::vector<PlotSeries> start_curves[sim::kStartKinds];  // --by-start: per start kind
  std::vector<std::vector<std::string>> table;
  std::vector<eval::RolloutResult> rollouts;
  std::vector<std::string> labels;
  int64_t common_trajectories = -1;
  const std::vector<EvalEntry> entries = eval_entries(a.models, model_options(a.precision));
  for (size_t mi = 0; mi < entries.size(); ++mi) {
    const EvalEntry& entry = entries[mi];
    const std::string& model_dir = entry.label_dir;
    const engine::Model& model = *entry.members[0];
    const ModelConfig& cfg = model.config();
    print_warnings(check_model_dataset(cfg, model_dir, data, a.data, a.allow_other_mjcf));
    FN_CHECK(!cfg.norm.channel_std.empty(), model_dir, "/config.json has no state channel stds "
             "(normalization.channel_std); retrain it with this flashnerd");
    std::shared_ptr<const sim::Robot> robot;
    if (cfg.probe_dim > 0 || cfg.contact.enabled() || a.by_start) {
      robot = sim::Robot::from_spec(sim::RobotSpec::from_json(data.generator.at("spec"), a.data));
    }
    FN_CHECK(!a.by_start || sim::randomizes_scene(*robot), "--by-start needs a dataset of a platform scene "
             "(robot ", data.robot, " has none)");
    auto eligible = eval::eligible_trajectories(data, cfg.history(), H);
    FN_CHECK(!eligible.empty(), "no trajectory of ", a.data, " has ", cfg.history() + H - 1,
             " valid steps for horizon ", H, " after ", cfg.history(), " priming frames (the file has ",
             data.steps, " steps per trajectory); generate longer held-out data or lower --horizons");
    if (a.trajectories > 0 && int64_t(eligible.size()) > a.trajectories) eligible.resize(size_t(a.trajectories));
    // every model is measured on the same trajectories: the smallest eligible prefix
    if (common_trajectories < 0 || int64_t(eligible.size()) < common_trajectories)
      common_trajectories = int64_t(eligible.size());
    eligible.resize(size_t(common_trajectories));
    auto step_model = step_model_of(entry, std::min<int>(a.batch, int(eligible.size())), pool);
    eval::RolloutOptions ro;
    ro.horizon = H;
    ro.batch = a.batch;
    ro.robot = robot.get();
    ro.climbing_probes = data.generator.value("climbing_probes", false);
    auto rollout = eval::run_rollouts(*step_model, data, eligible, ro, pool);
    auto errors = eval::rollout_errors(data, rollout, cfg.norm.channel_std, horizons);
    nlohmann::json nrmse = nlohmann::json::array(), groups = nlohmann::json::object();
    for (const auto& he : errors.horizons) {
      nrmse.push_back(he.nrmse);
      for (const auto& g : he.group_rmse) groups[g.first].push_back(g.second);
    }
    nlohmann::json j = {{"model", model_dir}, {"precision", engine::precision_name(model.precision())},
                        {"arch", arch_name(cfg.arch)}, {"parameters", parameter_count(cfg)},
                        {"contacts", cfg.contact.enabled() ? "variable" : cfg.probe_dim > 0 ? "fixed probes" : "none"},
                        {"trajectories", errors.trajectories}, {"diverged", errors.diverged}, {"horizons", horizons},
                        {"nrmse", nrmse}, {"groups", groups}, {"model_seconds", rollout.model_seconds},
                        {"sensing_seconds", rollout.sensing_seconds}};
    if (cfg.contact.enabled())
      j["contact_rows"] = {{"min", rollout.contact_rows_min}, {"mean", rollout.contact_rows_mean},
                           {"max", rollout.contact_rows_max}, {"overflow", rollout.contact_overflow},
                           {"mujoco_buffer_full_frames", rollout.contact_buffer_full}};
    std::vector<std::string> row = rollout_row(model_label(cfg, model_dir), 0.0, errors);
    eval::OneStepErrors one_step;
    if (data.layout.floating_base) {
      auto teacher = step_model_of(entry, std::min<int>(a.batch, int(eligible.size())), pool);
      one_step = eval::one_step_errors(*teacher, data, eligible, a.batch);
      j["one_step_base_rmse_mm"] = one_step.base_rmse_mm();
      row.push_back(format_number(one_step.base_rmse_mm()));
    }
    table.push_back(row);
    report_input_noise(a, *step_model, data, eligible, ro, pool, errors, cfg.norm.channel_std, horizons,
                       model_label(cfg, model_dir), j, table);
    if (a.by_start)
      report_by_start(*robot, data, eligible, rollout, cfg, model_label(cfg, model_dir), horizons, one_step,
                      kColors[mi % 5], j, table, start_curves);
    results.push_back(j);
    PlotSeries s = prefix_curve(errors.step_nrmse, model_label(cfg, model_dir), kColors[mi % 5]);
    nrmse_curves.push_back(s);
    rollouts.push_back(std::move(rollout));
    labels.push_back(s.label);
  }

  const std::vector<std::string> plot_files =
      a.plots.empty() ? std::vector<std::string>() : write_plots(a.plots, data, nrmse_curves, start_curves, rollouts, labels);

  print_eval_summary(a, data, horizons, results, table, plot_files);
}

}  // namespace

void register_eval(CLI::App& app) {
  auto [sub, a] = add_command<EvalArgs>(app, "eval", "Recursive-rollout NRMSE of trained models against MuJoCo data", run_eval);
  add_model_data_options(sub, a, "Model directory (repeat to compare models)", "Held-out dataset (HDF5) of the same robot",
                         "Evaluate")
      ->required();
  sub.add_option("--horizons", a.horizons, "Comma-separated horizons H")->capture_default_str();
  sub.add_option("--trajectories", a.trajectories, "Evaluate at most N trajectories (0 = all eligible)");
  sub.add_option("--batch", a.batch, "Rollouts stepped together")->capture_default_str();
  sub.add_option("--plots", a.plots, "Directory for PNG plots");
  sub.add_flag("--by-start", a.by_start, "Also report errors by start: ground / edge / top (platform scenes)");
  sub.add_option("--input-noise", a.input_noise,
                 "Comma-separated scales of Gaussian noise added to every predicted state before it is fed back, "
                 "relative to each state component's std over the evaluated trajectories (0 = clean)")
      ->delimiter(',')
      ->check(at_least(0))
      ->default_str("0");
  sub.add_option("--noise-seed", a.noise_seed, "Seed of the input noise (each trajectory draws its own stream)")
      ->capture_default_str();
}

}  // namespace flashnerd::cli
