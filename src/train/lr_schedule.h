// The learning-rate schedule: linear from `initial` at update 0 to `final` at the last update
// of the run (final 0 means initial / 10). A pure function of the update, so a resumed run
// continues the schedule where it stopped.
#pragma once

#include <cstdint>

namespace flashnerd::train {

struct LinearSchedule {
  double initial = 1e-3;
  double final = 0;     // 0: initial / 10
  int64_t updates = 1;  // updates of the whole run

  double final_value() const { return final > 0 ? final : initial / 10; }
  double at(int64_t update) const {
    const double frac = updates > 1 ? double(update) / double(updates - 1) : 0.0;
    return initial + (final_value() - initial) * frac;
  }
};

}  // namespace flashnerd::train
