// The disagreement of an ensemble's predictions for one environment: the mean over increment
// channels of the standard deviation across members of the predicted increment, in one
// member's standardized units (its target_std). The learned backend and eval's calibration
// both compute it here.
#pragma once

#include <cmath>
#include <cstddef>

namespace flashnerd {

// outputs: member m's increment (dout floats) at outputs + m·member_stride.
inline float ensemble_disagreement(const float* outputs, size_t member_stride, int members, int dout,
                                   const float* target_std) {
  double total = 0;
  for (int i = 0; i < dout; ++i) {
    double mean = 0, sq = 0;
    for (int m = 0; m < members; ++m) mean += outputs[size_t(m) * member_stride + size_t(i)];
    mean /= members;
    for (int m = 0; m < members; ++m) {
      const double d = (outputs[size_t(m) * member_stride + size_t(i)] - mean) / target_std[i];
      sq += d * d;
    }
    total += std::sqrt(sq / members);
  }
  return float(total / dout);
}

}  // namespace flashnerd
