#include "core/output_policy.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "core/error.h"

namespace flashnerd {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / (std::string("fn_output_policy_") + name + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(OutputPolicy, PathsAreComparedAfterResolution) {
  const fs::path d = fresh_dir("paths");
  fs::create_directories(d / "m");
  fs::create_directory_symlink(d / "m", d / "link");
  const std::string m = (d / "m").string();
  EXPECT_EQ(resolved_path(m), resolved_path(m + "/"));
  EXPECT_EQ(resolved_path(m), resolved_path((d / "m" / ".." / "m").string()));
  EXPECT_EQ(resolved_path(m), resolved_path((d / "link").string()));
  EXPECT_NE(resolved_path(m), resolved_path((d / "n").string()));
  EXPECT_TRUE(path_within((d / "link" / "sub").string(), m));
  EXPECT_FALSE(path_within((d / "mm").string(), m));  // a prefix of the name is not inside
  fs::remove_all(d);
}

// An output that is (or lies under) a symlink loop is a flashnerd error naming the path and
// "symlink loop", from every check and from the lock, not a raw filesystem_error.
TEST(OutputPolicy, SymlinkLoopIsNamed) {
  const fs::path d = fresh_dir("loop");
  fs::create_symlink("loop", d / "loop");
  for (const std::string& out : {(d / "loop").string(), (d / "loop" / "x.h5").string()}) {
    const std::string want = "--out " + out + ": symlink loop";
    auto expect_named = [&](const std::function<void()>& check) {
      try {
        check();
        ADD_FAILURE() << "accepted " << out;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      }
    };
    expect_named([&] { check_output_file(out, "--out", true); });
    expect_named([&] { check_output_directory_free(out, "--out", {"config.json"}, false); });
    expect_named([&] { check_output_not_input(out, "--out", {{"--data", "d.h5"}}); });
    expect_named([&] { OutputLock lock(out, "--out"); });
  }
  fs::remove_all(d);
}

TEST(OutputPolicy, AnOutputThatIsItsOwnInputIsRefusedEvenWithOverwrite) {
  const fs::path d = fresh_dir("input");
  const std::string log = (d / "log.csv").string();
  std::ofstream(log) << "t\n";
  fs::create_symlink(log, d / "alias.csv");
  for (const std::string& out : {log, (d / "alias.csv").string(), (d / "." / "log.csv").string()}) {
    try {
      check_output_not_input(out, "--out", {{"--robot", "cartpole"}, {"--log", log}});
      ADD_FAILURE() << out << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("own --log"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(check_output_not_input((d / "out.h5").string(), "--out", {{"--log", log}, {"--policy", ""}}));
  fs::remove_all(d);
}

TEST(OutputPolicy, LockFilesAreNeverOutputs) {
  const fs::path d = fresh_dir("lock");
  const std::string data = (d / "data.h5").string();
  {
    OutputLock held(data, "--out");  // a running command's lock, data.h5.lock
    EXPECT_THROW(check_output_file(data + ".lock", "--out", true), Error);
    EXPECT_THROW(check_output_directory_free(data + ".lock/", "--out", {"config.json"}, true), Error);
    EXPECT_THROW(OutputLock(data + ".lock", "--out"), Error);
    EXPECT_TRUE(fs::exists(data + ".lock"));
  }
  EXPECT_NO_THROW(check_output_file((d / "lockstep.h5").string(), "--out", false));
  fs::remove_all(d);
}

TEST(OutputPolicy, ExistingFileIsRefusedUnlessOverwrite) {
  const fs::path d = fresh_dir("file");
  const std::string f = (d / "data.h5").string();
  EXPECT_NO_THROW(check_output_file(f, "--out", false));
  std::ofstream(f) << "x";
  EXPECT_THROW(check_output_file(f, "--out", false), Error);
  EXPECT_NO_THROW(check_output_file(f, "--out", true));
  EXPECT_THROW(check_output_file((d / "missing" / "x.h5").string(), "--out", true), Error);
  fs::remove_all(d);
}

TEST(OutputPolicy, SecondLockIsRefusedWithTheHolderPid) {
  const fs::path d = fresh_dir("lock");
  const std::string out = (d / "run").string();
  {
    OutputLock lock(out, "--out");
    EXPECT_TRUE(lock.held());
    // another process (a child forked here would count as a worker under our lock, so the
    // child takes the lock first and the parent asks for it)
  }
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    OutputLock lock(out, "--out");
    char c = 1;
    (void)!::write(ready[1], &c, 1);
    ::sleep(5);
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  try {
    OutputLock second(out, "--out");
    ADD_FAILURE() << "a second lock was granted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(child)), std::string::npos) << e.what();
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_NO_THROW(OutputLock again(out, "--out"));  // a killed holder's lock is free again
  fs::remove_all(d);
}

TEST(OutputPolicy, RefusedRunLeavesNoEmptyDirectoryAndNoLockFile) {
  const fs::path d = fresh_dir("empty");
  const std::string out = (d / "run").string();
  {
    OutputLock lock(out, "--out");
    fs::create_directories(d / "run" / "policy");  // made, then the run is refused
  }
  EXPECT_FALSE(fs::exists(d / "run"));
  EXPECT_FALSE(fs::exists(d / "run.lock"));
  {
    OutputLock lock(out, "--out");
    fs::create_directories(d / "run");
    std::ofstream((d / "run" / "log.csv").string()) << "1";
  }
  EXPECT_TRUE(fs::exists(d / "run" / "log.csv"));  // a run that wrote something keeps it
  fs::remove_all(d);
}

}  // namespace
}  // namespace flashnerd
