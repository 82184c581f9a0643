#include "core/share_directory.h"

#include <dlfcn.h>

#include <filesystem>

namespace flashnerd {

namespace fs = std::filesystem;

namespace {

std::string share_beside_binary() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&share_beside_binary), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::path(info.dli_fname), ec).parent_path();
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
