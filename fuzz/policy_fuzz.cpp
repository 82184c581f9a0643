// Fuzz target: the policy artifact (rl::Policy::parse over policy.json and policy.safetensors).
// Input: a 4-byte little-endian length L, then L bytes of policy.json, then the safetensors
// bytes. A corrupt artifact must end in flashnerd::Error; a policy that parses is run on one
// observation, so a width the checks let through is caught by ASan.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "rl/policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint32_t n = uint32_t(data[0]) | uint32_t(data[1]) << 8 | uint32_t(data[2]) << 16 | uint32_t(data[3]) << 24;
  if (n > size - 4) return 0;
  const std::string json(reinterpret_cast<const char*>(data) + 4, n);
  const std::string weights(reinterpret_cast<const char*>(data) + 4 + n, size - 4 - n);
  try {
    const auto policy = flashnerd::rl::Policy::parse(json, weights, "fuzz");
    std::vector<float> obs(size_t(policy.info().observation_dim), 0.5f), act(size_t(policy.info().action_dim));
    auto scratch = policy.make_scratch();
    policy.act(obs.data(), 1, act.data(), scratch);
  } catch (const flashnerd::Error&) {
  }
  return 0;
}
