#include "rl/observation_normalizer.h"

#include <cmath>

#include "core/error.h"

namespace flashnerd::rl {

ObservationNormalizer::ObservationNormalizer(int dim)
    : mean_(size_t(dim), 0.0), var_(size_t(dim), 1.0), batch_mean_(size_t(dim)), batch_m2_(size_t(dim)) {}

void ObservationNormalizer::update(const float* obs, int rows) {
  if (rows <= 0) return;
  const size_t D = mean_.size();
  std::fill(batch_mean_.begin(), batch_mean_.end(), 0.0);
  std::fill(batch_m2_.begin(), batch_m2_.end(), 0.0);
  for (int r = 0; r < rows; ++r)
    for (size_t i = 0; i < D; ++i) batch_mean_[i] += obs[size_t(r) * D + i];
  for (size_t i = 0; i < D; ++i) batch_mean_[i] /= rows;
  for (int r = 0; r < rows; ++r)
    for (size_t i = 0; i < D; ++i) {
      const double d = obs[size_t(r) * D + i] - batch_mean_[i];
      batch_m2_[i] += d * d;
    }
  const double n0 = double(count_), n1 = double(rows), n = n0 + n1;
  for (size_t i = 0; i < D; ++i) {
    const double delta = batch_mean_[i] - mean_[i];
    const double m2 = (count_ ? var_[i] * n0 : 0.0) + batch_m2_[i] + delta * delta * n0 * n1 / n;
    mean_[i] += delta * n1 / n;
    var_[i] = m2 / n;
  }
  count_ += rows;
}

void ObservationNormalizer::normalize(const float* obs, int rows, float* out) const {
  const size_t D = mean_.size();
  for (int r = 0; r < rows; ++r)
    for (size_t i = 0; i < D; ++i) {
      const size_t k = size_t(r) * D + i;
      out[k] = float((obs[k] - mean_[i]) / (std::sqrt(var_[i]) + kEpsilon));
    }
}

void ObservationNormalizer::set(std::vector<double> mean, std::vector<double> variance, int64_t count) {
  FN_CHECK(mean.size() == variance.size() && count >= 0, "observation normalizer: inconsistent statistics");
  mean_ = std::move(mean);
  var_ = std::move(variance);
  batch_mean_.assign(mean_.size(), 0.0);
  batch_m2_.assign(mean_.size(), 0.0);
  count_ = count;
}

}  // namespace flashnerd::rl
