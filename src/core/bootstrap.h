// Percentile bootstrap confidence interval of a mean (policy evaluations over episodes).
#pragma once

#include <cstdint>
#include <vector>

namespace flashnerd {

struct MeanInterval {
  double mean = 0, low = 0, high = 0;  // the sample mean and the interval's bounds
};

// `resamples` means of n draws with replacement from an RNG seeded by `seed` (same inputs,
// same interval); the (1 − level)/2 and (1 + level)/2 quantiles of those means.
MeanInterval bootstrap_mean(const std::vector<double>& values, double level = 0.95, int resamples = 2000,
                            uint64_t seed = 0);

}  // namespace flashnerd
