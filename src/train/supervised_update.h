// One supervised update of a dynamics model, apart from the run around it (train/trainer.h):
// the masked loss over a batch of windows (teacher-forced, or a forecast with gradients
// through the model's own steps, train/unrolled_loss.h), the all-reduce of a data-parallel
// run, gradient clipping and the Adam step at the schedule's learning rate. The trainer owns
// the data, validation, checkpoints and the log; `train`, `fit`, `finetune` and the model
// refreshes of model-based PPO all update through this one class.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "train/batch_source.h"
#include "train/data_parallel.h"
#include "train/fused_flash_pass.h"
#include "train/lr_schedule.h"
#include "train/models.h"
#include "train/own_states.h"
#include "train/unrolled_loss.h"

namespace flashnerd::train {

struct SupervisedUpdateOptions {
  LinearSchedule schedule;  // the learning rate of each update
  double grad_clip = 1.0;   // global gradient-norm bound
  bool bf16 = false;        // matrix products in bf16 (train/precision.h); the loss in fp32
  uint64_t seed = 0;        // the forecast's feedback noise: a pure function of (seed, update, rank)
  OwnStateOptions own;      // the forecast's steps, decay and feedback (own.unroll_gradient)
  // The loss and gradient through the fused pass (train/fused_flash_pass.h) instead of autograd,
  // its elementwise work and products on fused_threads threads; refused, naming the reason,
  // for a model it cannot train.
  bool fused = false;
  int fused_threads = 1;
};

// Seconds of one update by phase (the trainer's TrainResult::Split).
struct UpdatePhases {
  double forward = 0, backward = 0, allreduce = 0, clip = 0, optimizer = 0;
};

struct UpdateOutcome {
  double loss = 0;       // the global batch's masked mean loss
  double grad_norm = 0;  // before clipping
  bool finite() const;   // false: no optimizer step was taken
};

class SupervisedUpdate {
 public:
  // A fresh Adam over model's parameters (a resumed run then loads its state into optimizer()).
  // forecast: the loss of gradient-carrying unrolls (null: teacher forcing only); it must
  // outlive this object, as must model and dp.
  SupervisedUpdate(DynamicsModel& model, DataParallel& dp, const SupervisedUpdateOptions& options,
                   UnrolledLoss* forecast);

  torch::optim::Adam& optimizer() { return optimizer_; }
  const std::vector<torch::Tensor>& parameters() const { return params_; }
  double learning_rate(int64_t update) const { return o_.schedule.at(update); }

  // Update `update` on this rank's `batch`, whose first `unrolled` windows (`windows`) are
  // forecast when a forecast loss is set; adds each phase's seconds to `phases` (the fused
  // pass's forward and backward both count as backward). A non-finite
  // loss or gradient norm leaves the weights and the optimizer as they were.
  UpdateOutcome step(int64_t update, const WindowBatch& batch, const std::vector<WindowRef>& windows, int unrolled,
                     UpdatePhases& phases);

 private:
  std::vector<double> fused_loss(const WindowBatch& batch);

  DynamicsModel& model_;
  DataParallel& dp_;
  const SupervisedUpdateOptions o_;
  UnrolledLoss* forecast_;
  std::vector<torch::Tensor> params_;
  torch::optim::Adam optimizer_;
  std::optional<FusedFlashPass> fused_;  // made for the first batch's shape (options.fused)
};

}  // namespace flashnerd::train
