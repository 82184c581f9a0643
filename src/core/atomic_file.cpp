#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace flashnerd {

AtomicFile::AtomicFile(std::string final_path)
    : final_path_(std::move(final_path)),
      temp_path_(final_path_ + ".tmp." + std::to_string(::getpid())) {
  remove_stale_temporaries(final_path_);
}

int remove_stale_temporaries(const std::string& final_path) {
  namespace fs = std::filesystem;
  const fs::path target(final_path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = target.filename().string() + ".tmp.";
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(pid_text);
    if (pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

AtomicFile::~AtomicFile() {
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicFile::commit() {
  int fd = ::open(temp_path_.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    throw Error(str_cat("cannot rename ", temp_path_, " to ", final_path_, ": ",
                        std::strerror(errno)));
  }
  committed_ = true;
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  AtomicFile file(path);
  {
    std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
    FN_CHECK(out.good(), "cannot open ", file.temp_path(), " for writing: ", std::strerror(errno),
             "; check that the directory exists and is writable");
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.flush();
    FN_CHECK(out.good(), "writing ", file.temp_path(), " failed (disk full?): ",
             std::strerror(errno));
  }
  file.commit();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  FN_CHECK(in.good(), "cannot open ", path, ": ", std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ensure_writable_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  FN_CHECK(!ec && std::filesystem::is_directory(dir), "cannot create directory ", dir, ": ",
           ec.message());
  FN_CHECK(::access(dir.c_str(), W_OK) == 0, "directory ", dir,
           " is not writable; choose another output path");
}

}  // namespace flashnerd
