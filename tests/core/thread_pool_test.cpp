// ThreadPool: every chunk runs exactly once through the spinning and the sleeping hand-off,
// exceptions reach the caller, and a worker that cannot be started is a clear error, not a hang.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"

namespace flashnerd {
namespace {

TEST(ThreadPool, EveryIndexOnceThroughSpinningAndSleepingHandOff) {
  ThreadPool pool(3);
  std::vector<int> hits(1000);
  for (int round = 0; round < 2000; ++round) {  // back to back: workers still spinning
    const int n = 1 + round % 7;
    pool.parallel_for(n, [&](int64_t b, int64_t e, int) {
      for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
    });
    if (round % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // workers asleep
  }
  int total = 0;
  for (int h : hits) total += h;
  int expected = 0;
  for (int round = 0; round < 2000; ++round) expected += 1 + round % 7;
  EXPECT_EQ(total, expected);
}

TEST(ThreadPool, WorkerExceptionReachesCaller) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.parallel_for(2, [](int64_t b, int64_t, int) {
    if (b == 1) throw std::runtime_error("worker failed");
  }), std::runtime_error);
  std::atomic<int> n{0};
  pool.parallel_for(2, [&](int64_t, int64_t, int) { n++; });  // still usable
  EXPECT_EQ(n.load(), 2);
}

// Reproduces a hang: an unprivileged user with a process limit asks for 200 threads.
TEST(ThreadPool, ThreadCreationFailureIsAnErrorNotAHang) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to an unprivileged user with a process limit";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a hang ends the child by SIGALRM: the test fails instead of hanging
    const rlimit limit{8, 8};
    if (setgid(65534) != 0 || setuid(65534) != 0 || setrlimit(RLIMIT_NPROC, &limit) != 0) _exit(3);
    try {
      ThreadPool pool(200);
      _exit(2);  // every thread started: the limit did not apply
    } catch (const Error& e) {
      _exit(std::strstr(e.what(), "could not start worker thread") ? 0 : 4);
    } catch (...) {
      _exit(5);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status) << " (hang or crash)";
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "the process limit did not stop thread creation here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "exit code " << WEXITSTATUS(status);
}

}  // namespace
}  // namespace flashnerd
