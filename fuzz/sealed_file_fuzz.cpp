// Fuzz target: the seal of training and PPO checkpoints (core/sealed_file.h unseal). No byte of a
// checkpoint reaches libtorch's archive reader before its seal verifies, so a damaged file must
// end here in flashnerd::Error; a payload that passes is read end to end.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/sealed_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const std::string payload =
        flashnerd::unseal(std::string(reinterpret_cast<const char*>(data), size), "fuzz/checkpoint.pt");
    volatile unsigned sink = 0;
    for (char c : payload) sink = sink + static_cast<unsigned char>(c);
  } catch (const flashnerd::Error&) {
  }
  return 0;
}
