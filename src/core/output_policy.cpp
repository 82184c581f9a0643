#include "core/output_policy.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/option_error.h"

namespace flashnerd {

namespace fs = std::filesystem;

namespace {

// The path without trailing separators ("out/" and "out" lock the same output).
fs::path without_trailing_separator(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return fs::path(p);
}

// A directory tree holding nothing but empty directories.
bool holds_no_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory(ec) || !holds_no_files(entry.path())) return false;
  }
  return !ec;
}

constexpr const char* kLockSuffix = ".lock";

void check_not_lock_file(const std::string& path, const std::string& option) {
  const std::string name = without_trailing_separator(path).filename().string();
  const size_t n = std::string(kLockSuffix).size();
  FN_CHECK_OPTION(name.size() <= n || name.compare(name.size() - n, n, kLockSuffix) != 0, option, path,
                  ": names ending in ", kLockSuffix, " are the lock files of running commands; choose another name");
}

long read_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  return n > 0 ? std::strtol(buf, nullptr, 10) : 0;
}

}  // namespace

std::string unexaminable_path_message(const std::string& path, const std::string& what, const std::error_code& ec) {
  if (ec == std::errc::too_many_symbolic_link_levels)
    return str_cat(what, " ", path, ": symlink loop (a link on this path leads back to itself: ", ec.message(),
                   "); fix or remove the link, or choose another path");
  return str_cat(what, " ", path, ": cannot be examined (", ec.message(), "); choose another path");
}

void check_path_examinable(const std::string& path, const std::string& what) {
  std::error_code ec;
  (void)fs::status(without_trailing_separator(path), ec);
  if (!ec || ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) return;
  throw Error(unexaminable_path_message(path, what, ec));
}

void check_output_not_input(const std::string& output, const std::string& option, const CommandInputs& inputs) {
  check_path_examinable(output, option);
  const std::string out = resolved_path(output);
  for (const auto& [input_option, path] : inputs)
    FN_CHECK_OPTION(path.empty() || resolved_path(path) != out, option, output, " is this command's own ",
                    option_ref(input_option), " (", out, "); writing it would destroy the input, ",
                    option_ref("overwrite"), " or not: choose another path");
}

void check_output_file(const std::string& path, const std::string& option, bool overwrite) {
  check_not_lock_file(path, option);
  check_path_examinable(path, option);
  const fs::path out(path);
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  FN_CHECK_OPTION(fs::is_directory(dir), option, path, ": directory ", dir.string(), " does not exist; create it first");
  FN_CHECK_OPTION(::access(dir.c_str(), W_OK) == 0, option, path, ": directory ", dir.string(),
                  " is not writable; choose another output path");
  FN_CHECK_OPTION(!fs::is_directory(out), option, path, " is a directory; give a file name inside it");
  FN_CHECK_OPTION(overwrite || !fs::exists(out), option, path,
                  " already exists; pass ", option_ref("overwrite"), " to replace it, or choose another file");
}

void check_output_directory_free(const std::string& dir, const std::string& option,
                                 std::initializer_list<const char*> artifacts, bool overwrite) {
  check_not_lock_file(dir, option);
  check_path_examinable(dir, option);
  FN_CHECK_OPTION(!fs::exists(dir) || fs::is_directory(dir), option, dir, " is a file; give a directory");
  if (overwrite) return;
  for (const char* name : artifacts)
    FN_CHECK_OPTION(!fs::exists(fs::path(dir) / name), option, dir, " already holds ", name,
                    "; pass ", option_ref("overwrite"), " to replace it, or choose another directory");
}

std::string resolved_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(without_trailing_separator(path)), ec);
  if (ec) p = fs::absolute(without_trailing_separator(path)).lexically_normal();
  return p.string();
}

bool path_within(const std::string& inner, const std::string& outer) {
  const std::string i = resolved_path(inner), o = resolved_path(outer);
  return i == o || (i.size() > o.size() && i.compare(0, o.size(), o) == 0 && (o == "/" || i[o.size()] == '/'));
}

OutputLock::OutputLock(const std::string& output, const std::string& option)
    : output_(resolved_path(output)), lock_path_(output_ + kLockSuffix) {
  check_not_lock_file(output, option);
  check_path_examinable(output, option);
  existed_ = fs::exists(output_);
  std::error_code ec;
  fs::create_directories(fs::path(output_).parent_path(), ec);  // a nested --out: its parents, as before
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    FN_CHECK_OPTION(fd >= 0, option, output, ": cannot create the lock file ", lock_path_, ": ", std::strerror(errno),
                    "; check that the directory exists and is writable");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const long holder = read_pid(fd);
      ::close(fd);
      if (holder > 0 && holder == long(::getppid())) return;  // a worker under its launcher's lock
      throw OptionError(option, str_cat(output, " is in use by another flashnerd run (pid ", holder,
                          ", lock ", lock_path_, "); wait for it to finish, or choose another output"));
    }
    // the holder may have removed the file between our open and our lock: lock the current one
    struct stat held {}, current {};
    if (::fstat(fd, &held) != 0 || ::stat(lock_path_.c_str(), &current) != 0 || held.st_ino != current.st_ino) {
      ::close(fd);
      continue;
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
      ::close(fd);
      throw Error(str_cat("cannot write the lock file ", lock_path_, ": ", std::strerror(errno)));
    }
    fd_ = fd;
    return;
  }
  throw OptionError(option, str_cat(output, ": the lock file ", lock_path_, " keeps changing; is another run starting?"));
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  std::error_code ec;
  if (!existed_ && holds_no_files(output_)) fs::remove_all(output_, ec);
  ::unlink(lock_path_.c_str());  // before unlocking, so a waiting run re-checks the inode
  ::close(fd_);
}

}  // namespace flashnerd
