// bfloat16 as the CPU's bf16 instructions and oneDNN read it: the upper half of an IEEE float.
// One rounding for every owner (the engine's packed weights, the fused trainer's operands).
#pragma once

#include <cstdint>
#include <cstring>

namespace flashnerd {

// fp32 -> bf16, round to nearest even (NaN stays a quiet NaN). Branch-free, so that loops of
// it vectorize.
inline uint16_t bf16_round(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x40u;
  return uint16_t((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

// bf16 -> fp32, exactly.
inline float bf16_value(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

}  // namespace flashnerd
