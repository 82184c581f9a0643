// Fuzz target: SafetensorsFile::parse on arbitrary bytes. A corrupt file must end in
// flashnerd::Error; any other exception, a sanitizer report or a huge allocation is a bug.
// Every tensor that parses is read end to end, so a view past the block is caught by ASan.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto file = flashnerd::SafetensorsFile::parse(std::string(reinterpret_cast<const char*>(data), size),
                                                        "fuzz.safetensors");
    volatile float sink = 0;
    for (const auto& name : file.names()) {
      const flashnerd::TensorView v = file.view(name);
      for (int64_t i = 0; i < v.numel(); ++i) sink = sink + v.data[i];
    }
  } catch (const flashnerd::Error&) {
  }
  return 0;
}
