// The learning-rate schedule: linear from `initial` at update `warmup` to `final` at the last
// update of the run (final 0 means initial / 10), after a linear warm-up from initial / warmup
// over the first `warmup` updates. The warm-up is for continuing trained weights with a fresh
// Adam, whose first steps move every parameter by about the full learning rate. A pure function
// of the update, so a resumed run continues the schedule where it stopped.
#pragma once

#include <cstdint>

namespace flashnerd::train {

struct LinearSchedule {
  double initial = 1e-3;
  double final = 0;     // 0: initial / 10
  int64_t updates = 1;  // updates of the whole run
  int64_t warmup = 0;   // updates of the warm-up (0: none)

  double final_value() const { return final > 0 ? final : initial / 10; }
  double at(int64_t update) const {
    if (update < warmup) return initial * double(update + 1) / double(warmup);
    const int64_t span = updates - 1 - warmup;
    const double frac = span > 0 ? double(update - warmup) / double(span) : 0.0;
    return initial + (final_value() - initial) * frac;
  }
};

}  // namespace flashnerd::train
