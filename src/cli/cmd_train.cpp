// flashnerd train: fit a FlashNeRD or NeRD model to a dataset and export the model artifact.
// flashnerd finetune: continue a trained artifact on new (e.g. recorded) data.
#include <cmath>
#include <filesystem>
#include <memory>

#include "cli/cli_common.h"
#include "cli/plot_drawing.h"
#include "core/plot_spec.h"
#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/model_artifact.h"
#include "core/output_policy.h"
#include "cli/train_sensor.h"
#include "cli/worker_launcher.h"
#include "train/trainer.h"

namespace flashnerd::cli {

namespace {

// What train and finetune share: data, output, budget, seed, resume, validation period.
struct RunArgs {
  std::string data, out;
  int64_t updates;
  int batch = 64;
  double lr;
  uint64_t seed = 0;
  bool resume = false, overwrite = false, quiet = false;
  int64_t valid_every;
  std::string precision = "fp32";
  int workers = 1;
  double worker_timeout = 120;
};

void add_run_options(CLI::App& sub, RunArgs& r, const std::string& data_help, const std::string& out_help) {
  sub.add_option("--data", r.data, data_help)->required();
  sub.add_option("--out", r.out, out_help)->required();
  sub.add_option("--updates", r.updates, "Total updates of the run (a resume continues to it)")->capture_default_str();
  sub.add_option("--batch", r.batch, "Windows per update")->capture_default_str();
  sub.add_option("--lr", r.lr, "Initial learning rate (linear decay to lr/10)")->capture_default_str();
  sub.add_option("--seed", r.seed, "Seed of initialization, split, batches (and dropout)")->capture_default_str();
  sub.add_flag("--resume", r.resume, "Continue the checkpoint in --out");
  sub.add_flag("--overwrite", r.overwrite,
               "Start a new run in an --out that holds a model or checkpoint; each file is replaced "
               "(atomically) only when the new run writes its own, the artifact only at the end");
  sub.add_option("--valid-every", r.valid_every, "Validate every K updates (0: only at the end)")->capture_default_str();
  sub.add_flag("--quiet", r.quiet, "No progress line");
  sub.add_option("--precision", r.precision,
                 "Matrix products: fp32, bf16 (autocast; parameters, Adam, norms and loss stay fp32) or auto "
                 "(bf16 when a start-up measurement finds it faster)")
      ->capture_default_str();
  sub.add_option("--workers", r.workers,
                 "Data-parallel processes on this machine (c10d Gloo on loopback); --batch stays the global "
                 "batch. Multi-machine: start one process per rank with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT")
      ->capture_default_str();
  sub.add_option("--worker-timeout", r.worker_timeout,
                 "Seconds a worker waits for the others (rendezvous, every all-reduce) before the run stops")
      ->capture_default_str();
}

// Data parallelism: this process is a worker (RANK set, by --workers or an external launcher)
// or, with --workers N > 1, the launcher of N local workers. Returns true when it launched
// them (and they all finished); false when this process should train.
bool launch_or_join(const RunArgs& r, const char* command, train::TrainOptions& o) {
  FN_CHECK(r.worker_timeout > 0, "--worker-timeout must be positive, got ", r.worker_timeout);
  if (!is_worker_process()) {
    if (r.workers <= 1) return false;
    FN_CHECK(r.batch % r.workers == 0, "the global --batch ", r.batch, " must be divisible by the ", r.workers,
             " workers (each takes an equal slice)");
    run_local_workers(r.workers, str_cat(command, " --out ", r.out),
                      str_cat("The last checkpoint in ", r.out, " is intact: continue with --resume (any --workers)"));
    return true;
  }
  o.distributed = train::distributed_from_environment();
  o.distributed.timeout_seconds = r.worker_timeout;
  FN_CHECK(r.workers <= 1 || r.workers == o.distributed.world_size, "--workers ", r.workers,
           " disagrees with WORLD_SIZE=", o.distributed.world_size, " of the launcher");
  return false;
}

void apply_run_options(const RunArgs& r, train::TrainOptions& o) {
  o.out_dir = r.out;
  o.data_path = std::filesystem::absolute(r.data).string();
  o.updates = r.updates;
  o.batch = r.batch;
  o.lr = r.lr;
  o.seed = r.seed;
  o.resume = r.resume;
  o.overwrite = r.overwrite;
  o.valid_every = r.valid_every;
  o.progress = !r.quiet;
  o.precision = r.precision;
}

bool is_root_worker(const train::TrainOptions& o) { return o.distributed.rank == 0; }

// The lock on --out for the run's life: taken by the launcher (its local workers run under
// it) or by rank 0 of an external launch; other ranks write nothing.
std::unique_ptr<OutputLock> lock_output(const RunArgs& r) {
  if (is_worker_process() && std::getenv("RANK") != std::string("0")) return nullptr;
  return std::make_unique<OutputLock>(r.out, "--out");
}

struct TrainArgs {
  CommonOptions common;
  RunArgs run{"", "", 2000, 64, 1e-3, 0, false, false, false, 200};
  std::string arch = "flashnerd";
  std::string preset = "small";
  std::string activation;
  std::string norm;
  double lr_final = 0;
  int64_t checkpoint_every = 0;
  int profile_ops = 0;
  std::string probes = "auto";
  bool variable_contacts = false;
  std::string target = "increment";
  int window = 0;
  std::string init_from;
  train::OwnStateOptions own;
  int ensemble = 1;
};

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
void print_train_summary(const CommonOptions& common, const char* command, const train::TrainResult& r);
void train_ensemble(const TrainArgs& a, const Dataset& data, const train::TrainOptions& base);

// A finished artifact in --out is never replaced by accident: --overwrite or --resume, not both;
// a PPO run's directory is never a model's.
void check_output_directory(const std::string& out, bool resume, bool overwrite) {
  FN_CHECK(!(resume && overwrite), "give one of --resume (continue the run in ", out,
           ") and --overwrite (start a new one over it), not both");
  FN_CHECK(!std::filesystem::exists(std::filesystem::path(out) / "policy"), "--out ", out,
           " holds a PPO run (policy/); a model needs a directory of its own");
  for (const char* file : {"config.json", "weights.safetensors", kEnsembleManifest})
    FN_CHECK(resume || overwrite || !std::filesystem::exists(std::filesystem::path(out) / file), "--out ", out,
             " already holds a model artifact (", file, "); pass --overwrite to replace it when the new "
             "run finishes, --resume to continue its training, or choose another --out");
  ensure_writable_directory(out);  // fail before the (long) dataset load
}

void run_train(const TrainArgs& a) {
  FN_CHECK(std::filesystem::is_regular_file(a.run.data), "--data ", a.run.data,
           ": no such file; generate one with 'flashnerd gen'");
  train::TrainOptions o;
  const auto lock = lock_output(a.run);
  if (lock) check_output_directory(a.run.out, a.run.resume, a.run.overwrite);
  apply_run_options(a.run, o);
  if (launch_or_join(a.run, "train", o)) return;
  o.arch = parse_arch(a.arch);
  ModelConfig preset_check;
  apply_preset(a.preset, preset_check);  // an unknown preset fails here, listing the names
  o.preset = a.preset;
  if (!a.activation.empty()) parse_activation(a.activation);  // fail before the dataset load
  if (!a.norm.empty()) parse_norm(a.norm);
  o.activation = a.activation;
  o.norm = a.norm;
  o.lr_final = a.lr_final;
  o.checkpoint_every = a.checkpoint_every;
  o.profile_updates = a.profile_ops;
  o.window = a.window;
  o.target = a.target;
  o.variable_contacts = a.variable_contacts;
  FN_CHECK(!a.variable_contacts || a.probes != "on", "--variable-contacts replaces fixed probes; drop --probes on");
  if (a.variable_contacts && a.probes == "auto") o.probes = train::ProbeUse::Off;
  if (a.probes == "on") {
    o.probes = train::ProbeUse::On;
  } else if (a.probes == "off") {
    o.probes = train::ProbeUse::Off;
  } else {
    FN_CHECK(a.probes == "auto", "--probes: expected on, off or auto, got '", a.probes, "'");
  }
  o.own = a.own;
  if (!a.init_from.empty()) {  // a trained artifact's config and weights, a fresh optimizer (resumable)
    const ModelConfig parent = load_model_config(a.init_from);  // fails early on a bad directory
    o.init_from = a.init_from;
    o.arch = parent.arch;
    o.preset = parent.preset;
  }
  Dataset data = load_dataset(a.run.data);
  std::unique_ptr<MujocoStateSensor> sensor;
  if (a.own.any() && (data.probe_count > 0 || data.contact_capacity > 0)) {
    sensor = std::make_unique<MujocoStateSensor>(data, a.run.data);
    o.sensor = sensor.get();
  }
  if (a.ensemble > 1) {
    train_ensemble(a, data, o);
    return;
  }
  const train::TrainResult result = train::train_model(data, o);
  if (is_root_worker(o)) print_train_summary(a.common, "train", result);
}

// --ensemble N: N independent trainings (seeds seed..seed+N−1: their own initialization,
// validation split and data order) into OUT/member_I, then OUT/ensemble.json. A rerun with
// --resume continues the unfinished member and skips finished ones.
void train_ensemble(const TrainArgs& a, const Dataset& data, const train::TrainOptions& base) {
  FN_CHECK(base.distributed.world_size <= 1, "--ensemble trains its members one after another in this process; "
           "drop --workers");
  nlohmann::json members = nlohmann::json::array();
  std::vector<std::string> names;
  for (int i = 0; i < a.ensemble; ++i) {
    train::TrainOptions o = base;
    o.seed = base.seed + uint64_t(i);
    names.push_back(str_cat("member_", i));
    o.out_dir = (std::filesystem::path(base.out_dir) / names.back()).string();
    const bool finished = std::filesystem::exists(std::filesystem::path(o.out_dir) / "config.json");
    if (base.resume && finished) {
      members.push_back({{"member", i}, {"seed", o.seed}, {"skipped", "finished before"}});
      continue;
    }
    o.resume = base.resume && std::filesystem::exists(std::filesystem::path(o.out_dir) / "checkpoint.pt");
    std::filesystem::create_directories(o.out_dir);
    const train::TrainResult r = train::train_model(data, o);
    if (std::filesystem::exists(o.out_dir + "/loss.plot.json")) draw_plots({o.out_dir + "/loss.plot.json"});
    members.push_back({{"member", i}, {"seed", o.seed}, {"updates", r.updates},
                       {"valid_loss", number_or_null(r.valid_loss)},
                       {"valid_rollout_nrmse", number_or_null(r.valid_rollout_nrmse)}, {"seconds", r.seconds},
                       {"windows_per_second", r.windows_per_second}});
  }
  write_ensemble_manifest(base.out_dir, names);
  print_summary(a.common, "train", {{"ensemble", a.ensemble}, {"members", members}, {"artifact", base.out_dir}});
}

void print_train_summary(const CommonOptions& common, const char* command, const train::TrainResult& r) {
  nlohmann::json summary = {{"updates", r.updates},
                            {"parameters", r.parameters},
                            {"train_loss", {number_or_null(r.first_loss), number_or_null(r.last_loss)}},
                            {"valid_loss", number_or_null(r.valid_loss)},
                            {"valid_rollout_nrmse", number_or_null(r.valid_rollout_nrmse)},
                            {"seconds", r.seconds},
                            {"windows_per_second", r.windows_per_second},
                            {"gflops", r.gflops},
                            {"window", r.window},
                            {"own_state_seconds", r.own_state_seconds},
                            {"workers", r.workers},
                            {"precision", r.precision},
                            {"precision_reason", r.precision_reason},
                            {"artifact", r.artifact_dir}};
  summary["seconds_split"] = {{"gather", r.split.gather},       {"forward", r.split.forward},
                              {"backward", r.split.backward},   {"allreduce", r.split.allreduce},
                              {"clip", r.split.clip},
                              {"optimizer", r.split.optimizer}, {"validation", r.split.validation},
                              {"checkpoint", r.split.checkpoint}};
  if (r.profiled_updates > 0) {  // op kinds by self time per update, the top 20 and the rest
    double total = 0;
    for (const auto& op : r.op_profile) total += op.self_ms;
    nlohmann::json ops = nlohmann::json::array();
    double rest = 0;
    for (size_t i = 0; i < r.op_profile.size(); ++i) {
      const auto& op = r.op_profile[i];
      if (i < 20) {
        ops.push_back({{"op", op.name},
                       {"ms_per_update", op.self_ms / double(r.profiled_updates)},
                       {"share", op.self_ms / total},
                       {"calls_per_update", double(op.calls) / double(r.profiled_updates)}});
      } else {
        rest += op.self_ms;
      }
    }
    ops.push_back({{"op", "(other ops)"}, {"ms_per_update", rest / double(r.profiled_updates)}, {"share", rest / total}});
    summary["op_profile"] = {{"updates", r.profiled_updates},
                             {"ms_per_update", total / double(r.profiled_updates)},
                             {"ops", ops}};
  }
  if (r.stopped_early) summary["stopped_early"] = true;
  if (r.best_update > 0) summary["exported_update"] = r.best_update;
  const std::string loss_spec = r.artifact_dir + "/loss.plot.json";
  if (std::filesystem::exists(loss_spec) && !draw_plots({loss_spec}).empty()) summary["plot"] = plot_png_path(loss_spec);
  print_summary(common, command, summary);
}

struct FinetuneArgs {
  CommonOptions common;
  RunArgs run{"", "", 500, 64, 1e-4, 0, false, false, false, 50};
  std::string model;
  double dropout = 0.1;
  int patience = 3;
  bool refit_normalization = false;
};

void run_finetune(const FinetuneArgs& a) {
  FN_CHECK(std::filesystem::is_regular_file(a.run.data), "--data ", a.run.data, ": no such file");
  FN_CHECK(!path_within(a.run.out, a.model) && !path_within(a.model, a.run.out), "--out ", a.run.out,
           " and --model ", a.model, " are the same directory or one holds the other (", resolved_path(a.run.out),
           "); fine-tuning never writes into its parent: choose another --out");
  FN_CHECK(a.dropout >= 0 && a.dropout < 1, "--dropout must be in [0, 1), got ", a.dropout);
  const ModelConfig parent = load_model_config(a.model);  // fails early on a bad --model
  train::TrainOptions o;
  const auto lock = lock_output(a.run);
  if (lock) check_output_directory(a.run.out, a.run.resume, a.run.overwrite);
  apply_run_options(a.run, o);
  if (launch_or_join(a.run, "finetune", o)) return;
  FN_CHECK(parent.target == "increment", "finetune: ", a.model, " predicts ", parent.target,
           "; only increment models are fine-tuned");
  o.init_from = a.model;
  o.arch = parent.arch;
  o.preset = parent.preset;
  o.dropout = a.dropout;
  o.patience = a.patience;
  o.refit_normalization = a.refit_normalization;
  o.probes = parent.probe_dim > 0 ? train::ProbeUse::On : train::ProbeUse::Off;
  o.variable_contacts = parent.contact.enabled();
  o.target = parent.target;
  Dataset data = load_dataset(a.run.data);
  const train::TrainResult result = train::train_model(data, o);
  if (is_root_worker(o)) print_train_summary(a.common, "finetune", result);
}

}  // namespace

void register_train(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  auto* sub = app.add_subcommand(
      "train", "Train a FlashNeRD or NeRD model on a dataset and write the model artifact (--out)");
  add_common_options(*sub, args->common);
  add_run_options(*sub, args->run, "Dataset (HDF5) from 'flashnerd gen'",
                  "Output directory: config.json, weights.safetensors, checkpoint.pt, train_log.csv, loss.png");
  sub->add_option("--arch", args->arch, "Architecture: flashnerd or nerd")->capture_default_str();
  sub->add_option("--preset", args->preset,
                  "Model size: tiny, small, paper-cartpole, paper-franka, paper-g1, paper-anymal")
      ->capture_default_str();
  sub->add_option("--activation", args->activation,
                  "FlashNeRD's FFN gate: swiglu, geglu, reglu, glu or mishglu (default: the preset's, swiglu)");
  sub->add_option("--norm", args->norm, "FlashNeRD's norm: rmsnorm or layernorm (default: the preset's, rmsnorm)");
  sub->add_option("--lr-final", args->lr_final, "Final learning rate (default lr/10)");
  sub->add_option("--checkpoint-every", args->checkpoint_every,
                  "Checkpoint every K updates (default: --valid-every)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--target", args->target, "What the model predicts: increment, or free_velocity (coupling)")
      ->check(CLI::IsMember({"increment", "free_velocity"}))->capture_default_str();
  sub->add_option("--probes", args->probes, "Fixed-probe inputs: auto (when recorded), on, off")
      ->capture_default_str();
  sub->add_flag("--variable-contacts", args->variable_contacts,
                "FlashNeRD reads the detector's contact rows through the set encoder (no fixed probes)");
  sub->add_option("--window", args->window, "Training window in frames (default: the model's history)");
  sub->add_option("--init-from", args->init_from,
                  "Start from this trained model's config, normalization and weights (a shipped model in "
                  "models/, say) with a fresh optimizer: training accumulates across runs and machines");
  sub->add_option("--ensemble", args->ensemble,
                  "Train N independent members (seeds --seed .. --seed+N-1) into --out/member_I and write "
                  "--out/ensemble.json: environments step them all and report their disagreement")
      ->check(CLI::Range(1, 16))->capture_default_str();
  sub->add_option("--unroll", args->own.unroll,
                  "Train on the model's own rollouts: unrolled windows end in K frames the current weights "
                  "predicted (probes and contacts sensed again by MuJoCo), their targets lead back to the "
                  "recorded next states (0: teacher forcing only)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--unroll-ramp", args->own.unroll_ramp, "Updates over which K grows from 1 to --unroll (0: none)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--unroll-fraction", args->own.unroll_fraction, "Share of each batch that is unrolled")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  sub->add_option("--input-noise", args->own.input_noise,
                  "Noise injection: perturb every frame of some windows by this many per-channel increment "
                  "standard deviations, targets leading back to the recorded next states (0: none)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--noise-fraction", args->own.noise_fraction, "Share of each batch that is perturbed")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  sub->add_option("--profile-ops", args->profile_ops,
                  "Profile this many updates (after 5 of warm-up) op by op; self time per op kind in the summary");
  sub->callback([args] { run_train(*args); });
}

void register_finetune(CLI::App& app) {
  auto args = std::make_shared<FinetuneArgs>();
  auto* sub = app.add_subcommand(
      "finetune", "Continue a trained model on new data (e.g. recorded trajectories): its weights and, by "
                  "default, its normalization; lower learning rate, dropout, early stopping");
  add_common_options(*sub, args->common);
  sub->add_option("--model", args->model, "The trained model directory to start from (left unchanged)")->required();
  add_run_options(*sub, args->run, "Dataset of the same robot (flashnerd gen or flashnerd import)",
                  "Output model directory (records its parent and the data)");
  sub->add_option("--dropout", args->dropout, "Dropout on every residual branch while training")->capture_default_str();
  sub->add_option("--patience", args->patience,
                  "Stop after this many validations without improvement; the best is exported (0: never)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_flag("--refit-normalization", args->refit_normalization,
                "Refit input/target normalization on the new data (default: keep the parent's)");
  sub->callback([args] { run_finetune(*args); });
}

}  // namespace flashnerd::cli
