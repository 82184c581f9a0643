// Fuzz target: load_dataset on arbitrary bytes, written to a temporary .h5 file (libhdf5 reads
// files by name; the file image API would bypass the path the CLI takes). A corrupt file must
// end in flashnerd::Error; any other exception, a sanitizer report, a crash inside libhdf5 or a
// huge allocation is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/dataset.h"
#include "core/error.h"

namespace {

std::string input_path() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/flashnerd_fuzz_dataset." + std::to_string(getpid()) + ".h5";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = input_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) std::abort();
  try {
    flashnerd::load_dataset(path);
  } catch (const flashnerd::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
