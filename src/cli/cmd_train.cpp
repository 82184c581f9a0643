// flashnerd train: fit a FlashNeRD or NeRD model to a dataset and export the model artifact.
#include <cmath>
#include <filesystem>

#include "cli/cli_common.h"
#include "core/atomic_file.h"
#include "core/dataset.h"
#include "core/error.h"
#include "train/trainer.h"

namespace flashnerd::cli {

namespace {

struct TrainArgs {
  CommonOptions common;
  std::string data;
  std::string arch = "flashnerd";
  std::string preset = "small";
  std::string activation;
  std::string norm;
  std::string out;
  int64_t updates = 2000;
  int batch = 64;
  double lr = 1e-3;
  double lr_final = 0;
  uint64_t seed = 0;
  bool resume = false;
  bool overwrite = false;
  int64_t valid_every = 200;
  int64_t checkpoint_every = 0;
  std::string probes = "auto";
  bool variable_contacts = false;
  std::string target = "increment";
  int window = 0;
  bool quiet = false;
};

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

void run_train(const TrainArgs& a) {
  FN_CHECK(std::filesystem::is_regular_file(a.data), "--data ", a.data,
           ": no such file; generate one with 'flashnerd gen'");
  FN_CHECK(!(a.resume && a.overwrite), "give one of --resume (continue the run in ", a.out,
           ") and --overwrite (start a new one over it), not both");
  for (const char* file : {"config.json", "weights.safetensors"})
    FN_CHECK(a.resume || a.overwrite || !std::filesystem::exists(std::filesystem::path(a.out) / file), "--out ",
             a.out, " already holds a model artifact (", file, "); pass --overwrite to replace it when the new "
             "run finishes, --resume to continue its training, or choose another --out");
  ensure_writable_directory(a.out);  // fail before the (long) dataset load
  train::TrainOptions o;
  o.arch = parse_arch(a.arch);
  ModelConfig preset_check;
  apply_preset(a.preset, preset_check);  // an unknown preset fails here, listing the names
  o.preset = a.preset;
  if (!a.activation.empty()) parse_activation(a.activation);  // fail before the dataset load
  if (!a.norm.empty()) parse_norm(a.norm);
  o.activation = a.activation;
  o.norm = a.norm;
  o.out_dir = a.out;
  o.data_path = std::filesystem::absolute(a.data).string();
  o.updates = a.updates;
  o.batch = a.batch;
  o.lr = a.lr;
  o.lr_final = a.lr_final;
  o.seed = a.seed;
  o.resume = a.resume;
  o.overwrite = a.overwrite;
  o.valid_every = a.valid_every;
  o.checkpoint_every = a.checkpoint_every;
  o.window = a.window;
  o.progress = !a.quiet;
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
  Dataset data = load_dataset(a.data);
  train::TrainResult r = train::train_model(data, o);
  nlohmann::json summary = {{"updates", r.updates},
                            {"parameters", r.parameters},
                            {"train_loss", {number_or_null(r.first_loss), number_or_null(r.last_loss)}},
                            {"valid_loss", number_or_null(r.valid_loss)},
                            {"valid_rollout_nrmse", number_or_null(r.valid_rollout_nrmse)},
                            {"seconds", r.seconds},
                            {"windows_per_second", r.windows_per_second},
                            {"gflops", r.gflops},
                            {"window", r.window},
                            {"artifact", r.artifact_dir}};
  print_summary(a.common, "train", summary);
}

}  // namespace

void register_train(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  auto* sub = app.add_subcommand(
      "train", "Train a FlashNeRD or NeRD model on a dataset and write the model artifact (--out)");
  add_common_options(*sub, args->common);
  sub->add_option("--data", args->data, "Dataset (HDF5) from 'flashnerd gen'")->required();
  sub->add_option("--arch", args->arch, "Architecture: flashnerd or nerd")->capture_default_str();
  sub->add_option("--preset", args->preset,
                  "Model size: tiny, small, paper-cartpole, paper-franka, paper-g1, paper-anymal")
      ->capture_default_str();
  sub->add_option("--activation", args->activation,
                  "FlashNeRD's FFN gate: swiglu, geglu, reglu, glu or mishglu (default: the preset's, swiglu)");
  sub->add_option("--norm", args->norm, "FlashNeRD's norm: rmsnorm or layernorm (default: the preset's, rmsnorm)");
  sub->add_option("--out", args->out,
                  "Output directory: config.json, weights.safetensors, checkpoint.pt, train_log.csv, loss.png")
      ->required();
  sub->add_option("--updates", args->updates, "Total updates of the run (a resume continues to it)")
      ->capture_default_str();
  sub->add_option("--batch", args->batch, "Windows per update")->capture_default_str();
  sub->add_option("--lr", args->lr, "Initial learning rate (linear decay to lr/10)")->capture_default_str();
  sub->add_option("--lr-final", args->lr_final, "Final learning rate (default lr/10)");
  sub->add_option("--seed", args->seed, "Seed of initialization, split and batches")->capture_default_str();
  sub->add_flag("--resume", args->resume, "Continue the checkpoint in --out");
  sub->add_flag("--overwrite", args->overwrite,
                "Start a new run in an --out that holds a model or checkpoint; each file is replaced "
                "(atomically) only when the new run writes its own, the artifact only at the end");
  sub->add_option("--valid-every", args->valid_every, "Validate every K updates (0: only at the end)")
      ->capture_default_str();
  sub->add_option("--checkpoint-every", args->checkpoint_every,
                  "Checkpoint every K updates (default: --valid-every)");
  sub->add_option("--target", args->target, "What the model predicts: increment, or free_velocity (coupling)")
      ->check(CLI::IsMember({"increment", "free_velocity"}))->capture_default_str();
  sub->add_option("--probes", args->probes, "Fixed-probe inputs: auto (when recorded), on, off")
      ->capture_default_str();
  sub->add_flag("--variable-contacts", args->variable_contacts,
                "FlashNeRD reads the detector's contact rows through the set encoder (no fixed probes)");
  sub->add_option("--window", args->window, "Training window in frames (default: the model's history)");
  sub->add_flag("--quiet", args->quiet, "No progress line");
  sub->callback([args] { run_train(*args); });
}

}  // namespace flashnerd::cli
