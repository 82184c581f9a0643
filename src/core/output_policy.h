// One policy for every command that writes a result (datasets, models, PPO runs, videos,
// trials): an existing output is refused unless the user asked to replace it (--overwrite)
// or to continue it (--resume); paths are compared after resolution, so "a/", "a/../a" and
// a symlink to a name the same thing; and a run holds an advisory lock on its output for
// its whole life, so a second run on the same output is refused with the holder's PID
// instead of both reporting success over each other's files.
#pragma once

#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace flashnerd {

// A command's inputs as (option field, path): "log", "recording.csv".
using CommandInputs = std::vector<std::pair<std::string, std::string>>;

// Throws when `output` names one of the command's own inputs (after resolution): the run
// would replace what it reads, so no --overwrite allows it. Empty input paths are skipped.
void check_output_not_input(const std::string& output, const std::string& option, const CommandInputs& inputs);

// Throws unless `path` can be written as a file: its directory exists and is writable,
// `path` is not a directory nor a lock file ("*.lock": they belong to the runs holding
// them), and it does not exist yet unless `overwrite`. `option` is the output's field
// ("out"): these refusals are OptionErrors about it (core/option_error.h).
void check_output_file(const std::string& path, const std::string& option, bool overwrite);

// Throws unless `dir` can hold this command's outputs: when one of `artifacts` (file names
// inside `dir`) exists, the user must have passed --overwrite. The directory is not created.
void check_output_directory_free(const std::string& dir, const std::string& option,
                                 std::initializer_list<const char*> artifacts, bool overwrite);

// Throws when `path` cannot be examined, naming `what` ("--out", "ensemble member") and the
// path: a symlink loop, a name too long, a directory that cannot be searched. A path that does
// not exist passes (the caller says what it needed).
void check_path_examinable(const std::string& path, const std::string& what);
// Its message for the error `ec` met on `path` ("symlink loop" for ELOOP).
std::string unexaminable_path_message(const std::string& path, const std::string& what, const std::error_code& ec);

// The path with symlinks, "." / ".." and trailing separators resolved (weakly: the part that
// does not exist yet is normalized lexically).
std::string resolved_path(const std::string& path);
// True when `inner` resolves to `outer` or to a path inside it.
bool path_within(const std::string& inner, const std::string& outer);

// An advisory lock on an output (file or directory) held from construction to destruction,
// through the file "<output>.lock" beside it, which holds the holder's PID. A second
// OutputLock on the same output, from any process, throws naming that PID; a child process
// of the holder (data-parallel workers) may take it, since its parent's run is its own.
// When the output did not exist before and the run leaves it empty (a refusal after the
// directory was made), the destructor removes it: nothing empty is left behind.
class OutputLock {
 public:
  OutputLock(const std::string& output, const std::string& option);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // False when a parent process holds the lock and this one merely works under it.
  bool held() const { return fd_ >= 0; }

 private:
  std::string output_;
  std::string lock_path_;
  bool existed_ = false;
  int fd_ = -1;
};

}  // namespace flashnerd
