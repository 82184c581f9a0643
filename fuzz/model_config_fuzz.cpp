// Fuzz target: config.json text through parse_model_config, then everything the loaders derive
// from a valid config (tensor list, parameter and FLOP counts). A corrupt config must end in
// flashnerd::Error; any other exception, a sanitizer report or a huge allocation is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/model_artifact.h"
#include "core/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const flashnerd::ModelConfig c =
        flashnerd::parse_model_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz/config.json");
    volatile double sink = double(flashnerd::parameter_count(c)) + flashnerd::flops_per_transition(c) + c.history();
    (void)sink;
  } catch (const flashnerd::Error&) {
  }
  return 0;
}
