// Options of training on states other than the recorded ones (train/batch_source.h says how
// each kind of window is made): the model's own K-step predictions (--unroll) and noise
// injection (--input-noise). No libtorch here: the CLI and tests set these.
#pragma once

#include <cstdint>

#include "core/enum_names.h"

namespace flashnerd::train {

// What a gradient-carrying unroll feeds back (train/unrolled_loss.h): the predicted mean, or
// the mean plus noise of the model's own one-step error scale per channel (the Robotic World
// Model feeds back a sample of its predicted distribution).
enum class UnrollFeedback { Mean, Noise };
inline constexpr EnumName<UnrollFeedback> kUnrollFeedbackNames[] = {{UnrollFeedback::Mean, "mean"},
                                                                   {UnrollFeedback::Noise, "noise"}};

struct OwnStateOptions {
  int unroll = 0;                // K: predicted frames at the end of an unrolled window (0: none);
                                 // with unroll_gradient, forecast steps (K−1 predicted frames)
  int64_t unroll_ramp = 0;       // updates over which K grows linearly from 1 to `unroll` (0: none)
  double unroll_fraction = 0.5;  // share of each batch that is unrolled
  double input_noise = 0;        // σ, in per-channel increment standard deviations (0: none)
  double noise_fraction = 0.5;   // share of each batch that is perturbed
  // Back-propagation through the unroll (train/unrolled_loss.h): the unrolled windows end in
  // a K-step forecast whose K−1 predicted frames keep their gradient, forecast step i
  // weighted unroll_decay^(i−1). K = 1 is teacher forcing.
  bool unroll_gradient = false;
  double unroll_decay = 1.0;
  UnrollFeedback unroll_feedback = UnrollFeedback::Mean;
  bool any() const { return unroll > 0 || input_noise > 0; }
};

// K at `update` (the ramp's schedule).
int unroll_steps_at(const OwnStateOptions& o, int64_t update);

}  // namespace flashnerd::train
