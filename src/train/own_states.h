// Options of training on states other than the recorded ones (train/batch_source.h says how
// each kind of window is made): the model's own K-step predictions (--unroll) and noise
// injection (--input-noise). No libtorch here: the CLI and tests set these.
#pragma once

#include <cstdint>

namespace flashnerd::train {

struct OwnStateOptions {
  int unroll = 0;                // K: predicted frames at the end of an unrolled window (0: none)
  int64_t unroll_ramp = 0;       // updates over which K grows linearly from 1 to `unroll` (0: none)
  double unroll_fraction = 0.5;  // share of each batch that is unrolled
  double input_noise = 0;        // σ, in per-channel increment standard deviations (0: none)
  double noise_fraction = 0.5;   // share of each batch that is perturbed
  bool any() const { return unroll > 0 || input_noise > 0; }
};

// K at `update` (the ramp's schedule).
int unroll_steps_at(const OwnStateOptions& o, int64_t update);

}  // namespace flashnerd::train
