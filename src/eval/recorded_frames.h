// Teacher forcing over recorded data, for the one-step measures (eval/one_step.h,
// eval/ensemble_calibration.h): a batch of trajectories whose model inputs and contact rows
// at frame t come from the dataset, checked once against the model's probes and contacts.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dataset.h"
#include "core/frame_features.h"
#include "core/state_codec.h"
#include "eval/rollout.h"

namespace flashnerd::eval {

class RecordedFrames {
 public:
  // Throws naming the mismatch when the dataset lacks the model's probes or contact rows.
  RecordedFrames(const StepModel& model, const Dataset& data, int batch);

  int batch() const { return batch_; }
  const StateCodec& codec() const { return codec_; }
  // Fills the inputs (and contact rows) of frame t of trajectories[first .. first+b) and
  // clears alive[e] at an invalid transition.
  void load(const std::vector<int64_t>& trajectories, size_t first, int b, int64_t t, std::vector<uint8_t>& alive);
  const float* inputs() const { return inputs_.data(); }
  const engine::ContactBatch* contacts() const { return capacity_ > 0 ? &contacts_ : nullptr; }

 private:
  const Dataset& data_;
  StateCodec codec_;
  int capacity_, probe_count_, input_dim_, batch_;
  FrameFeatures features_;
  std::vector<float> inputs_, rows_;
  std::vector<int32_t> counts_, links_;
  engine::ContactBatch contacts_;
};

}  // namespace flashnerd::eval
