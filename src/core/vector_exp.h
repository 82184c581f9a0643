// exp(x) in plain arithmetic that loops vectorize (glibc's expf is a call per element):
// Cephes' range reduction x = n·ln2 + r and degree-6 polynomial, within 2 ulp of expf on
// [-87, 88]; below, 0; above, +inf; NaN stays NaN.
#pragma once

#include <cstdint>
#include <cstring>

namespace flashnerd {

inline float vector_exp(float x) {
  const float clamped = x < -87.33f ? -87.33f : (x > 88.72f ? 88.72f : x);
  const float n = __builtin_floorf(clamped * 1.44269504088896341f + 0.5f);
  const float r = clamped - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float poly = p * r * r + r + 1.0f;
  const uint32_t bits = uint32_t(int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  const float y = poly * scale;
  return x > 88.72f ? __builtin_inff() : (x < -87.33f ? 0.0f : (x != x ? x : y));
}

}  // namespace flashnerd
