#include "core/log_resample.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace flashnerd {

std::vector<ResampledSegment> resample_log(const std::vector<double>& time,
                                           const std::vector<const std::vector<double>*>& columns,
                                           const std::vector<bool>& hold, const ResampleOptions& o,
                                           ResampleReport* report) {
  const int64_t n = int64_t(time.size());
  FN_CHECK(o.dt > 0, "resample: the control step must be positive");
  FN_CHECK(n >= 2, "the log has ", n, " row(s); at least two are needed for one transition");
  for (int64_t i = 0; i < n; ++i) {
    FN_CHECK(std::isfinite(time[size_t(i)]), "column 'time', row ", i + 1, ": not a finite number");
    FN_CHECK(i == 0 || time[size_t(i)] > time[size_t(i - 1)], "column 'time', row ", i + 1, ": ", time[size_t(i)],
             " s is not after the previous row's ", time[size_t(i - 1)], " s (timestamps must increase)");
  }
  std::vector<double> steps(size_t(n - 1));
  for (int64_t i = 0; i + 1 < n; ++i) steps[size_t(i)] = time[size_t(i + 1)] - time[size_t(i)];
  std::vector<double> sorted = steps;
  std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double gap = o.gap_factor * std::max(median, o.dt);
  // the rate is judged on the mean step between gaps: jitter that splits the steps into short
  // and long ones moves the median, not the rate
  int64_t off = 0, regular = 0;
  double regular_seconds = 0;
  for (double s : steps) {
    if (s > gap) continue;
    ++regular;
    regular_seconds += s;
    if (std::fabs(s - median) > o.max_jitter * median) ++off;
  }
  const double mean_step = regular_seconds / double(regular);  // the median step is regular
  FN_CHECK(mean_step <= 1.5 * o.dt, "column 'time': the log is too coarse for the robot's control step: it is "
           "recorded at ", 1.0 / mean_step, " Hz (mean step ", mean_step, " s between gaps, median ", median,
           " s), the control step is ", o.dt, " s (", 1.0 / o.dt, " Hz) and a log needs steps of at most 1.5 "
           "control steps (", 1.0 / (1.5 * o.dt), " Hz or faster); record at ", 1.0 / o.dt, " Hz or faster");
  FN_CHECK(off <= regular / 20, "column 'time': the log is too irregular: ", off, " of ", regular,
           " steps differ from the median step ", median, " s by more than ", 100 * o.max_jitter,
           "%; fix the timestamps or resample the log first");
  ResampleReport rep;
  rep.median_step = median;
  std::vector<ResampledSegment> segments;
  for (int64_t first = 0; first < n;) {
    int64_t last = first;  // the segment is rows first..last
    while (last + 1 < n && steps[size_t(last)] <= gap) ++last;
    if (last + 1 < n) ++rep.gaps;
    const double t0 = time[size_t(first)];
    const int64_t frames = int64_t(std::floor((time[size_t(last)] - t0) / o.dt + 1e-9)) + 1;
    if (frames < 2) {
      rep.dropped_rows += last - first + 1;
    } else {
      ResampledSegment seg;
      seg.frames = frames;
      seg.columns.assign(columns.size(), std::vector<double>(size_t(frames)));
      int64_t row = first;  // the last row at or before the grid time
      for (int64_t k = 0; k < frames; ++k) {
        const double t = t0 + double(k) * o.dt;
        while (row + 1 <= last && time[size_t(row + 1)] <= t + 1e-12) ++row;
        const int64_t next = std::min(row + 1, last);
        const double span = time[size_t(next)] - time[size_t(row)];
        const double w = span > 0 ? std::clamp((t - time[size_t(row)]) / span, 0.0, 1.0) : 0.0;
        for (size_t c = 0; c < columns.size(); ++c) {
          const std::vector<double>& v = *columns[c];
          seg.columns[c][size_t(k)] =
              hold[c] || w == 0.0 ? v[size_t(row)] : v[size_t(row)] + w * (v[size_t(next)] - v[size_t(row)]);
        }
      }
      segments.push_back(std::move(seg));
    }
    first = last + 1;
  }
  if (report) *report = rep;
  return segments;
}

}  // namespace flashnerd
