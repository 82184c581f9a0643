// Timestamped samples onto a fixed control grid (flashnerd import). The log's time column
// must increase strictly. A step longer than gap_factor x max(median step, dt) is a gap, which
// ends one segment and starts the next. A log coarser than the control step (mean step between
// gaps > 1.5 dt: a rate, which jitter does not move) is refused, as is one whose steps are too
// irregular (more than 5% of them off the median by more than max_jitter of it). Each
// segment is sampled at t0 + k dt: linear interpolation for states, the last sample at or
// before the grid time (zero-order hold) for commands.
#pragma once

#include <cstdint>
#include <vector>

namespace flashnerd {

struct ResampleOptions {
  double dt = 0;              // control step (s)
  double max_jitter = 0.5;    // fraction of the median step
  double gap_factor = 3.0;
};

struct ResampledSegment {
  int64_t frames = 0;
  std::vector<std::vector<double>> columns;  // per input column, `frames` values
};

struct ResampleReport {
  double median_step = 0;     // s, of the log
  int64_t gaps = 0;
  int64_t dropped_rows = 0;   // rows in segments too short for one transition
};

// columns: the signals (time excluded); hold[i]: column i is a command (zero-order hold).
// Throws flashnerd::Error naming the row or the measured figure.
std::vector<ResampledSegment> resample_log(const std::vector<double>& time,
                                           const std::vector<const std::vector<double>*>& columns,
                                           const std::vector<bool>& hold, const ResampleOptions& o,
                                           ResampleReport* report);

}  // namespace flashnerd
