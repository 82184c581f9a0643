// Empirical observation normalization (rsl_rl's EmpiricalNormalization): running mean and
// variance over every observation seen in training, x̂ = (x − mean) / (std + 0.01). Part of
// the exported policy, frozen there.
#pragma once

#include <cstdint>
#include <vector>

namespace flashnerd::rl {

class ObservationNormalizer {
 public:
  static constexpr double kEpsilon = 1e-2;
  explicit ObservationNormalizer(int dim = 0);
  int dim() const { return int(mean_.size()); }
  int64_t count() const { return count_; }
  // Merges `rows` observations (rows, dim) into the statistics (Chan et al.'s parallel update).
  void update(const float* obs, int rows);
  // out (rows, dim) = normalized obs; out may alias obs.
  void normalize(const float* obs, int rows, float* out) const;
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& variance() const { return var_; }
  void set(std::vector<double> mean, std::vector<double> variance, int64_t count);

 private:
  std::vector<double> mean_, var_, batch_mean_, batch_m2_;
  int64_t count_ = 0;
};

}  // namespace flashnerd::rl
