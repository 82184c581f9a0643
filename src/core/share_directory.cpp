#include "core/share_directory.h"

#include <dlfcn.h>

#include <filesystem>

namespace flashnerd {

namespace fs = std::filesystem;

namespace {

// The file this code was loaded from. For the executable itself the loader reports argv[0],
// which is a bare name when the command was found through PATH: the kernel's link knows.
fs::path loaded_file() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&loaded_file), &info) == 0 || !info.dli_fname) return {};
  const std::string name = info.dli_fname;
  std::error_code ec;
  if (name.find('/') == std::string::npos) return fs::read_symlink("/proc/self/exe", ec);
  return fs::weakly_canonical(fs::path(name), ec);
}

std::string share_beside_binary() {
  std::error_code ec;
  fs::path dir = loaded_file().parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    const fs::path candidate = dir / "share" / "flashnerd";
    if (fs::is_directory(candidate / "robots", ec)) return candidate.string();
    if (dir == dir.root_path()) break;
  }
  return {};
}

}  // namespace

std::string share_directory() {
  static const std::string beside = share_beside_binary();
  return beside.empty() ? std::string(FLASHNERD_INSTALLED_SHARE_DIR) : beside;
}

}  // namespace flashnerd
