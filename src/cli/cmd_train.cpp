// flashnerd train: fit a FlashNeRD or NeRD model to a dataset and export the model artifact.
// flashnerd finetune: continue a trained artifact on new (e.g. recorded) data.
#include <cmath>
#include <filesystem>
#include <memory>

#include "cli/cli_common.h"
#include "cli/option_values.h"
#include "cli/plot_drawing.h"
#include "core/plot_spec.h"
#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/ensemble_manifest.h"
#include "core/error.h"
#include "core/log_number.h"
#include "core/model_artifact.h"
#include "core/output_policy.h"
#include "cli/train_sensor.h"
#include "cli/worker_launcher.h"
#include "train/trainer.h"

namespace flashnerd::cli {

namespace {

// What train and finetune share: data, output, budget, seed, resume, validation period,
// precision, data parallelism. The flags bind to the library's TrainOptions, so each default
// is declared once, there; finetune sets its own budget.
struct RunArgs {
  std::string data;
  train::TrainOptions o;
  int workers = 1;
  double worker_timeout = 120;
};

void add_run_options(CLI::App& sub, RunArgs& r, const std::string& data_help, const std::string& out_help) {
  sub.add_option("--data", r.data, data_help)->required();
  sub.add_option("--out", r.o.out_dir, out_help)->required();
  sub.add_option("--updates", r.o.updates, "Total updates of the run (a resume continues to it)")->capture_default_str();
  sub.add_option("--batch", r.o.batch, "Windows per update")->capture_default_str();
  sub.add_option("--lr", r.o.lr, "Initial learning rate (linear decay to lr/10)")->capture_default_str();
  sub.add_option("--lr-warmup", r.o.lr_warmup,
                 "Updates over which the learning rate rises linearly to --lr before its decay (0: none); for "
                 "continuing trained weights with a fresh optimizer")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--seed", r.o.seed, "Seed of initialization, split, batches (and dropout)")->capture_default_str();
  sub.add_flag("--resume", r.o.resume, "Continue the checkpoint in --out");
  sub.add_flag("--allow-unsealed", r.o.allow_unsealed,
               "With --resume: accept a checkpoint written before checkpoints were sealed (damage undetectable)");
  sub.add_flag("--overwrite", r.o.overwrite,
               "Start a new run in an --out that holds a model or checkpoint; each file is replaced "
               "(atomically) only when the new run writes its own, the artifact only at the end");
  sub.add_option("--valid-every", r.o.valid_every, "Validate every K updates (0: only at the end)")
      ->capture_default_str();
  sub.add_option("--patience", r.o.patience,
                 "Stop after this many validations without a lower validation loss; the best validated weights "
                 "are exported (0: never)")
      ->check(at_least(0))->capture_default_str();
  add_quiet_flag(sub, r.o.progress);
  add_enum_option(sub, "--precision", r.o.precision, names_of(train::kTrainingPrecisionNames),
                  "Matrix products: fp32, bf16 (autocast; parameters, Adam, norms and loss stay fp32) or auto "
                  "(bf16 when a start-up measurement finds it faster)");
  sub.add_flag("--fused-update", r.o.fused_update,
               "Compute each update's loss and gradient with the fused pass (a few large oneDNN products, "
               "hand-written elementwise passes into buffers made once) instead of libtorch's autograd: "
               "FlashNeRD (variable contacts included) without dropout or --unroll-grad");
  sub.add_option("--threads", r.o.threads, "Threads of each worker's fused update (--fused-update)")
      ->check(positive())->capture_default_str();
  sub.add_option("--workers", r.workers,
                 "Data-parallel processes on this machine (c10d Gloo on loopback); --batch stays the global "
                 "batch. Multi-machine: start one process per rank with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT")
      ->capture_default_str();
  sub.add_option("--worker-timeout", r.worker_timeout,
                 "Seconds a worker waits for the others (rendezvous, every all-reduce) before the run stops")
      ->check(positive())->capture_default_str();
}

// Data parallelism: this process is a worker (RANK set, by --workers or an external launcher)
// or, with --workers N > 1, the launcher of N local workers. Returns true when it launched
// them (and they all finished); false when this process should train.
bool launch_or_join(const RunArgs& r, const char* command, train::TrainOptions& o) {
  if (!is_worker_process()) {
    if (r.workers <= 1) return false;
    FN_CHECK(r.o.batch % r.workers == 0, "the global --batch ", r.o.batch, " must be divisible by the ", r.workers,
             " workers (each takes an equal slice)");
    run_local_workers(r.workers, str_cat(command, " --out ", r.o.out_dir),
                      str_cat("The last checkpoint in ", r.o.out_dir, " is intact: continue with --resume (any --workers)"));
    return true;
  }
  o.distributed = train::distributed_from_environment();
  o.distributed.timeout_seconds = r.worker_timeout;
  FN_CHECK(r.workers <= 1 || r.workers == o.distributed.world_size, "--workers ", r.workers,
           " disagrees with WORLD_SIZE=", o.distributed.world_size, " of the launcher");
  return false;
}

bool is_root_worker(const train::TrainOptions& o) { return o.distributed.rank == 0; }

// The lock on --out for the run's life: taken by the launcher (its local workers run under
// it) or by rank 0 of an external launch; other ranks write nothing.
std::unique_ptr<OutputLock> lock_output(const RunArgs& r) {
  if (is_worker_process() && std::getenv("RANK") != std::string("0")) return nullptr;
  return std::make_unique<OutputLock>(r.o.out_dir, "--out");
}

struct TrainArgs {
  CommonOptions common;
  RunArgs run;
  int ensemble = 1;
};

// What a run and each ensemble member report: its updates, validation and speed.
nlohmann::json run_figures(const train::TrainResult& r) {
  return {{"updates", r.updates},
          {"valid_loss", finite_or_null(r.valid_loss)},
          {"valid_rollout_nrmse", finite_or_null(r.valid_rollout_nrmse)},
          {"seconds", r.seconds},
          {"windows_per_second", r.windows_per_second}};
}
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


// --resume continues the kind of run --out holds: members never go into a plain model's
// directory (they would shadow it), a single run never into an ensemble's.
void check_resumed_kind(const train::TrainOptions& o, int ensemble) {
  if (!o.resume) return;
  const bool plain = std::filesystem::exists(std::filesystem::path(o.out_dir) / "config.json");
  FN_CHECK(ensemble <= 1 || !plain, "--resume --ensemble ", ensemble, ": --out ", o.out_dir,
           " holds a single model (config.json), not an ensemble; resume it without --ensemble, or train the "
           "ensemble into another --out");
  FN_CHECK(ensemble > 1 || !is_ensemble_dir(o.out_dir), "--resume: --out ", o.out_dir,
           " holds an ensemble (", kEnsembleManifest, "); resume it with --ensemble N");
}

// The run's options from the flags: the data's absolute path recorded, the output locked and
// checked. Null when this process launched local workers that did the training.
std::unique_ptr<train::TrainOptions> prepare_run(const RunArgs& r, const char* command,
                                                 std::unique_ptr<OutputLock>& lock) {
  auto o = std::make_unique<train::TrainOptions>(r.o);
  check_output_not_input(r.o.out_dir, "--out", {{"--init-from", r.o.init_from}, {"--data", r.data}});
  lock = lock_output(r);
  if (lock) check_output_directory(r.o.out_dir, r.o.resume, r.o.overwrite);
  o->data_path = std::filesystem::absolute(r.data).string();
  if (launch_or_join(r, command, *o)) return nullptr;
  return o;
}

constexpr EnumName<train::ProbeUse> kProbeUseNames[] = {
    {train::ProbeUse::Auto, "auto"}, {train::ProbeUse::On, "on"}, {train::ProbeUse::Off, "off"}};

void run_train(const TrainArgs& a) {
  FN_CHECK(std::filesystem::is_regular_file(a.run.data), "--data ", a.run.data,
           ": no such file; generate one with 'flashnerd gen'");
  std::unique_ptr<OutputLock> lock;
  const std::unique_ptr<train::TrainOptions> run = prepare_run(a.run, "train", lock);
  if (!run) return;
  train::TrainOptions& o = *run;
  FN_CHECK(!o.variable_contacts || o.probes != train::ProbeUse::On,
           "--variable-contacts replaces fixed probes; drop --probes on");
  if (o.variable_contacts && o.probes == train::ProbeUse::Auto) o.probes = train::ProbeUse::Off;
  check_resumed_kind(o, a.ensemble);
  if (!o.init_from.empty()) {  // a trained artifact's config and weights, a fresh optimizer (resumable)
    const ModelConfig parent = load_model_config(o.init_from);  // fails early on a bad directory
    o.arch = parent.arch;
    if (const auto preset = recorded_preset(parent)) o.preset = *preset;
  }
  Dataset data = load_dataset(a.run.data);
  std::unique_ptr<MujocoStateSensor> sensor;
  if (o.own.any() && (data.probe_count > 0 || data.contact_capacity > 0)) {
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
    nlohmann::json member = run_figures(r);
    member.update({{"member", i}, {"seed", o.seed}});
    members.push_back(member);
  }
  write_ensemble_manifest(base.out_dir, names);
  print_summary(a.common, "train", {{"ensemble", a.ensemble}, {"members", members}, {"artifact", base.out_dir}});
}

void print_train_summary(const CommonOptions& common, const char* command, const train::TrainResult& r) {
  nlohmann::json summary = run_figures(r);
  summary.update({{"parameters", r.parameters},
                  {"train_loss", {finite_or_null(r.first_loss), finite_or_null(r.last_loss)}}, {"gflops", r.gflops},
                  {"window", r.window}, {"own_state_seconds", r.own_state_seconds}, {"workers", r.workers},
                  {"precision", train::training_precision_name(r.precision)}, {"precision_reason", r.precision_reason},
                  {"artifact", r.artifact_dir}});
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


// Training on the model's own states (--unroll, --input-noise; train/batch_source.h).
void add_own_state_options(CLI::App& sub, train::OwnStateOptions& own) {
  sub.add_option("--unroll", own.unroll,
                 "Train on the model's own rollouts: unrolled windows end in K frames the current weights "
                 "predicted (probes and contacts sensed again by MuJoCo), their targets lead back to the "
                 "recorded next states (0: teacher forcing only)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--unroll-ramp", own.unroll_ramp, "Updates over which K grows from 1 to --unroll (0: none)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--unroll-fraction", own.unroll_fraction, "Share of each batch that is unrolled")
      ->check(in_range(0, 1))->capture_default_str();
  sub.add_flag("--unroll-grad", own.unroll_gradient,
               "Back-propagate through the unroll, as the Robotic World Model trains: --unroll K counts forecast "
               "steps (the first from recorded frames, K-1 predicted frames fed back with their gradient); K = 1 "
               "is teacher forcing");
  sub.add_option("--unroll-decay", own.unroll_decay,
                 "With --unroll-grad: loss weight of forecast step i is DECAY^(i-1) (1: equal weights)")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  add_enum_option(sub, "--unroll-feedback", own.unroll_feedback, names_of(train::kUnrollFeedbackNames),
                  "With --unroll-grad: feed back the predicted mean, or the mean plus noise at the model's one-step "
                  "error scale per channel");
  sub.add_option("--input-noise", own.input_noise,
                 "Noise injection: perturb every frame of some windows by this many per-channel increment "
                 "standard deviations, targets leading back to the recorded next states (0: none)")
      ->check(at_least(0))->capture_default_str();
  sub.add_option("--noise-fraction", own.noise_fraction, "Share of each batch that is perturbed")
      ->check(in_range(0, 1))->capture_default_str();
}

struct FinetuneArgs {
  CommonOptions common;
  RunArgs run;
  std::string model;
  FinetuneArgs() {  // a shorter run at a lower rate, validated more often, with dropout and early stopping
    run.o.updates = 500;
    run.o.lr = 1e-4;
    run.o.valid_every = 50;
    run.o.dropout = 0.1;
    run.o.patience = 3;
  }
};

void run_finetune(const FinetuneArgs& a) {
  const std::string& out = a.run.o.out_dir;
  FN_CHECK(std::filesystem::is_regular_file(a.run.data), "--data ", a.run.data, ": no such file");
  FN_CHECK(!path_within(out, a.model) && !path_within(a.model, out), "--out ", out,
           " and --model ", a.model, " are the same directory or one holds the other (", resolved_path(out),
           "); fine-tuning never writes into its parent: choose another --out");
  const ModelConfig parent = load_model_config(a.model);  // fails early on a bad --model
  std::unique_ptr<OutputLock> lock;
  const std::unique_ptr<train::TrainOptions> run = prepare_run(a.run, "finetune", lock);
  if (!run) return;
  train::TrainOptions& o = *run;
  FN_CHECK(parent.target == PredictionTarget::Increment, "finetune: ", a.model, " predicts ", target_name(parent.target),
           "; only increment models are fine-tuned");
  o.init_from = a.model;
  o.arch = parent.arch;
  if (const auto preset = recorded_preset(parent)) o.preset = *preset;
  o.probes = parent.probe_dim > 0 ? train::ProbeUse::On : train::ProbeUse::Off;
  o.variable_contacts = parent.contact.enabled();
  o.target = parent.target;
  Dataset data = load_dataset(a.run.data);
  const train::TrainResult result = train::train_model(data, o);
  if (is_root_worker(o)) print_train_summary(a.common, "finetune", result);
}

}  // namespace

void register_train(CLI::App& app) {
  auto [sub, a] = add_command<TrainArgs>(
      app, "train", "Train a FlashNeRD or NeRD model on a dataset and write the model artifact (--out)", run_train);
  train::TrainOptions& o = a.run.o;
  add_run_options(sub, a.run, "Dataset (HDF5) from 'flashnerd gen'",
                  "Output directory: config.json, weights.safetensors, checkpoint.pt, train_log.csv, loss.png");
  add_enum_option(sub, "--arch", o.arch, names_of({Arch::FlashNeRD, Arch::NeRD}, arch_name), "Architecture: flashnerd or nerd");
  add_enum_option(sub, "--preset", o.preset, names_of(kModelPresetNames), "Model size")
      ->capture_default_str();
  add_enum_option(sub, "--activation", o.activation,
                  names_of(kAllActivations, activation_name),
                  "FlashNeRD's FFN gate (default: the preset's, swiglu)");
  add_enum_option(sub, "--norm", o.norm, names_of({NormKind::RMSNorm, NormKind::LayerNorm}, norm_name),
                  "FlashNeRD's norm (default: the preset's, rmsnorm)");
  sub.add_option("--lr-final", o.lr_final, "Final learning rate (default lr/10)");
  sub.add_option("--checkpoint-every", o.checkpoint_every, "Checkpoint every K updates (default: --valid-every)")
      ->check(at_least(1));
  add_enum_option(sub, "--target", o.target, names_of(kPredictionTargetNames),
                  "What the model predicts: increment, or free_velocity (coupling)");
  add_enum_option(sub, "--probes", o.probes, names_of(kProbeUseNames), "Fixed-probe inputs: auto (when recorded), on, off");
  sub.add_flag("--variable-contacts", o.variable_contacts,
               "FlashNeRD reads the detector's contact rows through the set encoder (no fixed probes)");
  sub.add_option("--window", o.window, "Training window in frames (default: the model's history)");
  sub.add_option("--init-from", o.init_from,
                 "Start from this trained model's config, normalization and weights (a shipped model in "
                 "models/, say) with a fresh optimizer: training accumulates across runs and machines");
  sub.add_option("--ensemble", a.ensemble,
                 "Train N independent members (seeds --seed .. --seed+N-1) into --out/member_I and write "
                 "--out/ensemble.json: environments step them all and report their disagreement")
      ->check(in_range(1, 16))->capture_default_str();
  add_own_state_options(sub, o.own);
  sub.add_option("--profile-ops", o.profile_updates,
                 "Profile this many updates (after 5 of warm-up) op by op; self time per op kind in the summary");
}

void register_finetune(CLI::App& app) {
  auto [sub, a] = add_command<FinetuneArgs>(
      app, "finetune", "Continue a trained model on new data (e.g. recorded trajectories): its weights and, by "
                       "default, its normalization; lower learning rate, dropout, early stopping", run_finetune);
  sub.add_option("--model", a.model, "The trained model directory to start from (left unchanged)")->required();
  add_run_options(sub, a.run, "Dataset of the same robot (flashnerd gen or flashnerd import)",
                  "Output model directory (records its parent and the data)");
  sub.add_option("--dropout", a.run.o.dropout, "Dropout on every residual branch while training")
      ->check(in_range_below(0, 1))->capture_default_str();
  sub.add_flag("--refit-normalization", a.run.o.refit_normalization,
               "Refit input/target normalization on the new data (default: keep the parent's)");
}

}  // namespace flashnerd::cli
