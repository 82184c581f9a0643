// Where the windows of an update come from (the trainer's storage, as rsl_rl's runner has one):
//   recorded  the windows of (seed, update) drawn from the training split; this rank's slice.
//   unrolled  (--unroll K) the first ⌈unroll_fraction·B⌉ windows end in the model's own
//             predictions: frames W−K .. W−1 hold states the current weights predicted from the
//             recorded frames before them (recorded commands; probes and contacts sensed again
//             at each predicted state when a StateSensor is given), and each of their targets
//             is the increment from the predicted state to the recorded next state, so the
//             model learns to steer its own drift back to the data. No gradient flows through
//             the unrolled steps (they are data, regenerated with the current weights every
//             update). With unroll_gradient the loss makes them instead, with gradient
//             (train/unrolled_loss.h), and next() leaves them recorded.
//   noisy     (--input-noise σ) the next ⌈noise_fraction·B⌉ windows: every frame's state is
//             the recorded one advanced by a random increment of σ per-channel increment
//             standard deviations, re-encoded, and its target again leads to the recorded
//             next state.
// With unroll 0 and input_noise 0 the batches are the recorded windows, bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/dataset.h"
#include "core/model_config.h"
#include "core/state_codec.h"
#include "train/models.h"
#include "train/own_states.h"
#include "train/state_sensor.h"
#include "train/train_data.h"

namespace flashnerd::train {

// The predicted states of an unroll, for tests and diagnostics: (count, K, n) each.
struct UnrolledStates {
  int count = 0, steps = 0;
  std::vector<double> q, v, a;
  std::vector<uint8_t> finite;  // (count, K) 0 from the first non-finite prediction on
};

// Rewrites frames W−k .. W−1 of the first `count` windows of `batch` (gathered from `windows`
// of `standardized`) with the model's own predictions, as described above.
void unroll_windows(DynamicsModel& model, const Dataset& d, const ModelConfig& c, const std::vector<WindowRef>& windows,
                    int count, int k, StateSensor* sensor, WindowBatch& batch, UnrolledStates* states = nullptr);

// Writes frames from states other than the recorded ones (inputs sensed at the state, targets
// to the recorded next state); its buffers are made once and reused every update.
class FrameRewriter;
// The same with a rewriter made beforehand.
void unroll_windows(FrameRewriter& rewriter, DynamicsModel& model, const Dataset& d, const ModelConfig& c,
                    const std::vector<WindowRef>& windows, int count, int k, WindowBatch& batch,
                    UnrolledStates* states = nullptr);

class BatchSource {
 public:
  // window: frames per training window; global_batch: windows per update over every rank.
  BatchSource(const Dataset& d, const ModelConfig& c, const TransitionArrays& standardized, const WindowIndex& index,
              int window, const OwnStateOptions& own, uint64_t seed, int rank, int world, int global_batch,
              StateSensor* sensor);
  ~BatchSource();

  // This rank's windows of update `update`; `model` (current weights) predicts unrolled frames.
  void next(DynamicsModel& model, int64_t update, WindowBatch& out);
  // Seconds spent unrolling and perturbing (inside next()), since construction.
  double own_state_seconds() const { return own_seconds_; }
  // The windows of the last next() and how many of them are unrolled; with unroll_gradient
  // they stay recorded here and the loss unrolls them (train/unrolled_loss.h).
  const std::vector<WindowRef>& windows() const { return slice_; }
  int unrolled_count() const;

 private:
  const Dataset& data_;
  const ModelConfig& config_;
  const TransitionArrays& standardized_;
  const WindowIndex& index_;
  int window_;
  OwnStateOptions own_;
  uint64_t seed_;
  int rank_, world_, global_batch_;
  StateSensor* sensor_;
  std::vector<WindowRef> slice_;
  std::unique_ptr<FrameRewriter> rewriter_;  // own-state training only
  double own_seconds_ = 0;
};

}  // namespace flashnerd::train
