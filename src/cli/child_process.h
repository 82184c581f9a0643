// A flashnerd subcommand run as a child process of this one (fit's stages and ensemble
// members): the same executable, its stdout (the --json summary) and stderr (progress,
// warnings) in files, extra environment variables, and no way to outlive its parent.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace flashnerd::cli {

struct ChildCommand {
  std::vector<std::string> args;  // after the program name: {"train", "--data", ...}
  std::vector<std::pair<std::string, std::string>> env;  // set in the child
  std::string stdout_path;  // truncated
  std::string stderr_path;  // appended: a resumed stage's log continues
};

class ChildProcess {
 public:
  explicit ChildProcess(const ChildCommand& command);  // starts it; throws when it cannot
  ~ChildProcess();  // a child still running is stopped (SIGTERM, then SIGKILL) and reaped
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // True once the child has ended (never blocks).
  bool finished();
  bool succeeded() const { return ended_ && status_ == 0; }
  // "exited with status 1", "was killed by signal 9 (Killed)".
  std::string describe() const;
  const ChildCommand& command() const { return command_; }

 private:
  ChildCommand command_;
  pid_t pid_ = -1;
  bool ended_ = false;
  int status_ = 0;
};

// This process's own argv, as the kernel recorded it (/proc/self/cmdline).
std::vector<std::string> own_command_line();

// How a waitpid status reads in a message.
std::string describe_exit_status(int status);

}  // namespace flashnerd::cli
