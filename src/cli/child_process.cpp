#include "cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/error.h"

namespace flashnerd::cli {

std::vector<std::string> own_command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t start = 0; start < all.size();) {
    const size_t end = all.find('\0', start);
    args.push_back(all.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  FN_CHECK(!args.empty(), "cannot read this process's command line from /proc/self/cmdline");
  return args;
}

std::string describe_exit_status(int status) {
  if (WIFEXITED(status)) return str_cat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return str_cat("was killed by signal ", sig, " (", strsignal(sig), ")");
  }
  return "ended abnormally";
}

ChildProcess::ChildProcess(const ChildCommand& command) : command_(command) {
  // opened here, not in the child, so a bad path is an error of this process
  const int out = ::open(command.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  FN_CHECK(out >= 0, "cannot write ", command.stdout_path, ": ", std::strerror(errno));
  const int err = ::open(command.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (err < 0) ::close(out);
  FN_CHECK(err >= 0, "cannot write ", command.stderr_path, ": ", std::strerror(errno));
  std::vector<char*> argv{const_cast<char*>("flashnerd")};
  for (const auto& a : command.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // killed with its parent: a killed fit leaves no orphans
    if (::getppid() != parent) std::_Exit(1);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    for (const auto& [name, value] : command.env) ::setenv(name.c_str(), value.c_str(), 1);
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "flashnerd: cannot start '%s': %s\n", command.args.empty() ? "" : command.args[0].c_str(),
                 std::strerror(errno));
    std::_Exit(127);
  }
  const int fork_errno = errno;
  ::close(out);
  ::close(err);
  FN_CHECK(pid_ > 0, "cannot start a child process: ", std::strerror(fork_errno));
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0 || ended_) return;
  ::kill(pid_, SIGTERM);
  ::kill(pid_, SIGCONT);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!finished()) {
    if (std::chrono::steady_clock::now() > deadline) ::kill(pid_, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool ChildProcess::finished() {
  if (ended_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    ended_ = true;
    status_ = status;
  }
  return ended_;
}

std::string ChildProcess::describe() const {
  return ended_ ? describe_exit_status(status_) : std::string("is running");
}

}  // namespace flashnerd::cli
