#include "core/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"

namespace flashnerd {

MeanInterval bootstrap_mean(const std::vector<double>& values, double level, int resamples, uint64_t seed) {
  FN_CHECK(!values.empty(), "bootstrap: no values");
  FN_CHECK(level > 0 && level < 1 && resamples >= 10, "bootstrap: level must be in (0, 1) and resamples >= 10");
  const size_t n = values.size();
  MeanInterval r;
  r.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(n);
  Rng rng(seed);
  std::vector<double> means(static_cast<size_t>(resamples));
  for (auto& m : means) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += values[size_t(rng.below(n))];
    m = sum / double(n);
  }
  std::sort(means.begin(), means.end());
  auto quantile = [&](double p) {
    const double x = p * double(resamples - 1);
    const size_t i = size_t(std::floor(x));
    const double f = x - double(i);
    return i + 1 < means.size() ? means[i] * (1 - f) + means[i + 1] * f : means[i];
  };
  r.low = quantile((1 - level) / 2);
  r.high = quantile((1 + level) / 2);
  return r;
}

}  // namespace flashnerd
