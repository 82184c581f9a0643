// The training loss with gradients through the model's own steps (train --unroll-grad), as
// the Robotic World Model trains its forecasts: the first `count` windows of a batch end in a
// K-step forecast. Step 1 predicts frame W−K+1 from the recorded frames; its prediction is
// applied to the recorded state, encoded (probes sensed again at the new state when a
// StateSensor is given) and fed back as the next frame, and so on; step i's target is the
// increment from its input state to the recorded next state, weighted decay^(i−1). Nothing is
// detached: the loss of step i reaches the weights through every earlier step, through the
// inputs and the targets alike. The other windows, and the positions before the forecast,
// are teacher-forced. With K = 1 the loss is one-step training's, bit for bit.
//
// Cost: forecast step i runs the model once on W−K+i frames of the unrolled windows, all of
// them kept for the backward pass, then one pass runs over the whole batch.
#pragma once

#include <vector>

#include <torch/torch.h>

#include "core/dataset.h"
#include "core/model_config.h"
#include "core/rng.h"
#include "train/batch_source.h"
#include "train/models.h"
#include "train/own_states.h"
#include "train/state_sensor.h"
#include "train/torch_codec.h"
#include "train/train_data.h"

namespace flashnerd::train {

struct WeightedLoss {
  torch::Tensor sse;      // Σ weight · mask · (ŷ − y)² over windows, positions and channels
  torch::Tensor weights;  // Σ weight · mask over windows and positions
};

// Masked SSE of the recorded windows of `batch`, teacher-forced (one-step training's loss).
WeightedLoss teacher_forced_loss(DynamicsModel& model, const WindowBatch& batch);

struct ForecastSettings {
  int steps = 1;        // K
  double decay = 1.0;   // weight of forecast step i: decay^(i−1)
  UnrollFeedback feedback = UnrollFeedback::Mean;
};

class UnrolledLoss {
 public:
  UnrolledLoss(const Dataset& d, const ModelConfig& c, StateSensor* sensor);

  // `batch` holds the recorded windows `windows`; the first `count` end in the forecast.
  // rng draws the feedback noise; states (optional) receives the predicted states of the
  // forecast's K−1 fed-back frames, (count, K−1, ·) each.
  WeightedLoss operator()(DynamicsModel& model, const WindowBatch& batch, const std::vector<WindowRef>& windows,
                          int count, const ForecastSettings& forecast, Rng& rng, UnrolledStates* states = nullptr);

 private:
  TorchState recorded_state(const std::vector<WindowRef>& windows, int count, int64_t position) const;
  torch::Tensor standardized_frame(const TorchState& s, const std::vector<WindowRef>& windows, int count,
                                   const torch::Tensor& recorded_frame);

  const Dataset& data_;
  const ModelConfig& config_;
  StateSensor* sensor_;
  TorchCodec codec_;
  torch::Tensor input_mean_, input_std_, target_mean_, target_std_;  // double
  std::vector<float> probes_;
};

}  // namespace flashnerd::train
