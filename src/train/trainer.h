// Training a FlashNeRD or NeRD model on a dataset, with checkpoints, resume and export to a
// model artifact. This header does not include libtorch (the CLI includes it).
//
// Lifecycle of one run (train_model, a Trainer with these steps):
//   config    ModelConfig from the dataset's robot + preset (+ customize hook)
//   split     5% of trajectories held out (core split_trajectories, seeded)
//   normalize NeRD normalization fitted on the training split's valid transitions
//   loop      update u = start..updates-1: batch = pure function of (seed, u) (and of the
//             weights for unrolled windows, train/batch_source.h); the update itself
//             (train/supervised_update.h): masked MSE on standardized increments over every
//             window position, all-reduce, clip 1.0, Adam at a linear LR
//   validate  every valid_every updates: one-step loss and a short open-loop rollout
//   persist   <out>/checkpoint.pt atomically every checkpoint_every updates; train_log.csv,
//             loss.plot.json; at the end config.json + weights.safetensors (the artifact)
// A non-finite loss stops the run with an Error and leaves the last good checkpoint alone.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "core/dataset.h"
#include "core/model_config.h"
#include "train/data_parallel.h"
#include "train/op_profile.h"
#include "train/own_states.h"
#include "train/precision.h"
#include "train/state_sensor.h"

namespace flashnerd::train {

enum class ProbeUse { Auto, On, Off };  // Auto: use fixed probes when the dataset has them

struct TrainOptions {
  Arch arch = Arch::FlashNeRD;
  ModelPreset preset = ModelPreset::Small;  // model size (core apply_preset); the CLI default too
  std::optional<FfnActivation> activation;  // FlashNeRD's FFN gate; none: the preset's
  std::optional<NormKind> norm;             // FlashNeRD's norm; none: the preset's
  std::string out_dir;              // artifact, checkpoint, log and plot
  std::string data_path;            // recorded in config.json (informational)
  int64_t updates = 2000;           // total updates of the run (a resume continues to it)
  int batch = 64;                   // windows per update
  double lr = 1e-3;                 // initial learning rate
  double lr_final = 0;              // final learning rate; 0 = lr / 10
  int64_t lr_warmup = 0;            // updates of linear warm-up to lr (train/lr_schedule.h)
  uint64_t seed = 0;                // initialization, split and batch sampling
  bool resume = false;              // continue <out>/checkpoint.pt
  bool allow_unsealed = false;      // resume from a checkpoint older flashnerd wrote unsealed
  bool overwrite = false;           // start a new run even when <out> holds a checkpoint
  int64_t valid_every = 200;        // validation period in updates (0: only at the end)
  int64_t checkpoint_every = 0;     // checkpoint period in updates (0: = valid_every)
  double valid_fraction = 0.05;     // trajectories held out
  int valid_windows = 256;          // windows of the one-step validation set
  int rollout_steps = 10;           // open-loop validation horizon
  int rollout_count = 64;           // validation rollouts
  ProbeUse probes = ProbeUse::Auto;
  PredictionTarget target = PredictionTarget::Increment;  // FreeVelocity needs free_dv in the data
  bool variable_contacts = false;   // FlashNeRD reads the dataset's contact rows (set encoder)
  int window = 0;                   // training window in frames; 0 = the model's history
  double grad_clip = 1.0;
  TrainingPrecision precision = TrainingPrecision::FP32;  // matrix products (train/precision.h)
  // Each update's loss and gradient through the fused pass (train/fused_flash_pass.h) on
  // `threads` threads instead of libtorch's autograd (FlashNeRD, without dropout
  // or --unroll-grad).
  bool fused_update = false;
  int threads = 1;
  bool progress = true;             // progress line on stderr
  int profile_updates = 0;          // op-level profile of this many updates after 5 of warm-up (0: none)
  bool write_plot = true;           // loss.plot.json
  // Continuing a trained artifact (flashnerd finetune, train --init-from): start from its
  // config and weights instead of a preset, with a fresh optimizer. Its normalization is kept unless refit_normalization (then refitted on the
  // new data's training split, which shifts what every weight sees: documented in
  // docs/FINETUNE.md). dropout applies to every residual branch while training.
  std::string init_from;
  bool refit_normalization = false;
  double dropout = 0;
  // Early stopping: after `patience` validations without a lower one-step validation loss
  // the run stops and the best validated weights are exported (0 = run every update).
  int patience = 0;
  // Training on the model's own states (--unroll, --input-noise; train/batch_source.h), and
  // what senses probes and contact rows at those states (null: the recorded ones are kept, an
  // approximation; the CLI passes MuJoCo's detector). The sensor must outlive the run.
  OwnStateOptions own;
  StateSensor* sensor = nullptr;
  // Adjusts the model config after the preset is applied (tests, experiments).
  std::function<void(ModelConfig&)> customize;
  // Data-parallel training (train/data_parallel.h): this process is rank `distributed.rank`
  // of `distributed.world_size`; `batch` stays the global batch (divisible by the world
  // size). Rank 0 validates and writes the checkpoints, logs and the artifact.
  DistributedConfig distributed;
  // Stops after this many updates of the run (checkpoint written, no export), as if the
  // process had been killed right after a checkpoint; 0 = never. For resume tests.
  int64_t stop_at = 0;
};

struct TrainResult {
  int64_t updates = 0;     // updates done in total (before and after a resume)
  int64_t parameters = 0;
  double first_loss = std::numeric_limits<double>::quiet_NaN();  // first update of the run
  double last_loss = std::numeric_limits<double>::quiet_NaN();
  double valid_loss = std::numeric_limits<double>::quiet_NaN();  // last one-step validation MSE
  double valid_rollout_nrmse = std::numeric_limits<double>::quiet_NaN();
  int64_t best_update = 0;   // early stopping: the update whose weights were exported (0: the last)
  bool stopped_early = false;
  double seconds = 0;             // wall time of this invocation
  double windows_per_second = 0;  // training windows per second (validation excluded)
  double gflops = 0;              // achieved training GFLOP/s (3 x forward FLOPs)
  // Where the updates of this invocation spent their time (seconds): batch gathering, the
  // forward pass with the loss, the backward pass, the all-reduces of loss and gradients
  // (waiting for the slowest rank included; 0 with one process), gradient clipping, the Adam step; and
  // validation and checkpoints, which are outside windows_per_second.
  struct Split {
    double gather = 0, forward = 0, backward = 0, allreduce = 0, clip = 0, optimizer = 0, validation = 0,
           checkpoint = 0;
  } split;
  double own_state_seconds = 0;   // of the updates' time, making unrolled and perturbed windows
  int window = 0;                 // training window length
  int workers = 1;                // data-parallel world size
  std::vector<OpTime> op_profile; // profile_updates > 0: op kinds by self time over those updates
  int64_t profiled_updates = 0;
  TrainingPrecision precision = TrainingPrecision::FP32;  // FP32 or BF16, as chosen
  std::string precision_reason;   // the start-up measurement behind it
  std::string artifact_dir;       // empty when stopped by stop_at
};

// ModelConfig for a dataset: robot identity, layout, timestep, actuator model, input and
// output widths from the codec (+ probes), then the preset's sizes.
// With use_contacts the FlashNeRD contact encoder reads the dataset's K contact rows.
ModelConfig make_model_config(const Dataset& d, Arch arch, ModelPreset preset, bool use_probes,
                              PredictionTarget target = PredictionTarget::Increment, bool use_contacts = false);

// Runs (or resumes) training; throws flashnerd::Error with a clear message on bad input,
// I/O failure or divergence.
TrainResult train_model(const Dataset& data, const TrainOptions& opts);

// Useful floating-point operations of one training window of `window` frames (forward at
// every position, backward counted as twice the forward).
double training_flops_per_window(const ModelConfig& c, int window);

}  // namespace flashnerd::train
