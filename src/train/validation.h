// What the trainer measures on held-out trajectories: the masked one-step MSE of standardized
// increments over fixed validation windows, and the prefix-averaged NRMSE of short open-loop
// rollouts of the libtorch model (docs/DESIGN.md §6's formula, on the validation split).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/dataset.h"
#include "core/frame_features.h"
#include "core/model_config.h"
#include "core/state_codec.h"
#include "train/models.h"
#include "train/train_data.h"

namespace flashnerd::train {

// Windows b0 .. b0+nb−1 of a batch's contact rows as tensors (views of the batch's arrays);
// undefined tensors when the batch has none.
ContactWindow contact_tensors(const WindowBatch& b, int64_t b0, int64_t nb);

// The model on a window of standardized frames, with its contact rows when it reads them.
torch::Tensor predict(DynamicsModel& model, const torch::Tensor& x, const ContactWindow& contacts);

// Masked MSE of standardized increments over the fixed validation windows (NaN when none).
double validation_loss(DynamicsModel& model, const WindowBatch& windows);

// Prefix-averaged NRMSE of open-loop rollouts: history − 1 recorded frames, then `horizon`
// steps decoding predicted increments with the codec and re-encoding the predicted state
// with the recorded command (and recorded probe features or contact rows, an approximation:
// both need the simulator; flashnerd eval recomputes them). NaN when there are no starts.
double rollout_nrmse(DynamicsModel& model, const ModelConfig& c, const Dataset& d, const StateCodec& codec,
                     const TransitionArrays& standardized, const std::vector<WindowRef>& starts, int history,
                     int horizon);

}  // namespace flashnerd::train
