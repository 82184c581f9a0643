// Fuzz target: ensemble.json through model_member_dirs, in a temporary directory holding two
// member directories (member_0, member_1) and a symlink loop (loop). A bad manifest or member
// must end in flashnerd::Error; a filesystem_error, a sanitizer report or a huge allocation is
// a bug.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/ensemble_manifest.h"
#include "core/error.h"

namespace {

namespace fs = std::filesystem;

// The ensemble directory, made once per process.
const std::string& ensemble_dir() {
  static const std::string dir = [] {
    char name[] = "/tmp/fuzz_ensemble_XXXXXX";
    const char* made = ::mkdtemp(name);
    if (made == nullptr) std::abort();
    const fs::path d(made);
    fs::create_directories(d / "member_0");
    fs::create_directories(d / "member_1");
    fs::create_symlink("loop", d / "loop");
    return d.string();
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = ensemble_dir();
  {
    std::ofstream f(fs::path(dir) / flashnerd::kEnsembleManifest, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  try {
    volatile size_t sink = flashnerd::model_member_dirs(dir).size();
    (void)sink;
  } catch (const flashnerd::Error&) {
  }
  return 0;
}
